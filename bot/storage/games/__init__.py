"""Games in the database: a game's row (``rows``), the changes made in the caller's
transaction (``changes``), the settings' rules written as SQL (``sql_rules``) and the store
(``store``)."""
