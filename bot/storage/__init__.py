"""Storage: one database interface over two backends (``db``: SQLite in ``sqlite``, PostgreSQL
in ``postgres``), their migrations (``migrations``), what they report (``events``), the changes
announced after a commit (``announcements``), writes committed together (``group``), who has a
SQLite database open (``locks``), and the stores every feature shares (``games``, ``leases``,
``listings``, ``sweeps``, ``servers``, fair play's index ``watched``)."""

from bot.base.database_url import is_postgres_url
from bot.storage.db import Database
from bot.storage.sqlite import SqliteDatabase


async def open_database(url: str) -> Database:
    """Open (creating if needed) and migrate the database ``url`` names: a SQLite path, or a
    ``postgresql://user:pass@host:port/db`` URL.

    Raises :class:`~bot.storage.db.DatabaseTooNewError` if its schema is newer than this code's,
    and :class:`~bot.storage.db.DatabaseUnavailable` if it cannot be reached.
    """
    if is_postgres_url(url):
        from bot.storage.postgres import PostgresDatabase

        return await PostgresDatabase.open(url)

    return await SqliteDatabase.open(url)
