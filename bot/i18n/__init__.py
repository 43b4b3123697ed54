"""Translation, in one place: the catalogues and each language's translator (``catalogues``),
and Discord's side of languages — the reader's, the server's, the commands' names
(``locales``)."""
