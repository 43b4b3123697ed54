"""One language's words: gettext lookups with ``str.format`` placeholders.

The catalogues (and their loading) live with the bot; the image and its text take a
:class:`Translator` so that they speak the game's language without knowing where it comes from.
Messages are written in English, which is also the fallback::

    >>> ENGLISH("{name} to move", name="Ana")
    'Ana to move'
    >>> ENGLISH.plural("{count} stone", "{count} stones", 3)
    '3 stones'
"""

from __future__ import annotations

import gettext
from typing import Final


class Translator:
    """Texts in one language. Call it with a message (and its placeholders' values) to get
    the translation; :meth:`plural` picks the plural form for a count."""

    __slots__ = ("language", "translations")

    def __init__(
        self, language: str = "en", translations: gettext.NullTranslations | None = None
    ) -> None:
        self.language = language
        self.translations = translations or gettext.NullTranslations()

    def __call__(self, message: str, /, **values: object) -> str:
        """``message`` in this language, its ``{placeholders}`` filled from ``values``."""
        text = self.translations.gettext(message)
        return text.format(**values) if values else text

    def plural(self, singular: str, plural: str, count: int, /, **values: object) -> str:
        """The form of ``singular``/``plural`` for ``count`` (``{count}`` is filled in)."""
        return self.translations.ngettext(singular, plural, count).format(count=count, **values)

    def __repr__(self) -> str:
        return f"Translator({self.language!r})"


ENGLISH: Final = Translator()
"""The messages as written."""
