"""Storage: one database interface over two backends (``db``: SQLite in ``sqlite``, PostgreSQL
in ``postgres``), their migrations, and the stores every feature shares (games, leases, the
lists of games, the background sweeps, servers' settings)."""

from bot.base.database_url import is_postgres_url
from bot.storage.db import Database
from bot.storage.sqlite import SqliteDatabase


async def open_database(url: str) -> Database:
    """Open (creating if needed) and migrate the database ``url`` names: a SQLite path, or a
    ``postgresql://user:pass@host:port/db`` URL.

    Raises :class:`DatabaseTooNewError` if its schema is newer than this code's, and
    :class:`DatabaseUnavailable` if it cannot be reached.
    """
    if is_postgres_url(url):
        from bot.storage.postgres import PostgresDatabase

        return await PostgresDatabase.open(url)

    return await SqliteDatabase.open(url)
