"""The SQLite connection: PRAGMAs, numbered forward migrations, serialised transactions."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from .migrations import MIGRATIONS

log = logging.getLogger(__name__)


class DatabaseTooNewError(RuntimeError):
    """The database was written by a newer version of the bot than this one."""


class Database:
    """One connection to the SQLite file, used by one coroutine at a time.

    Every operation takes the same lock, so a transaction's statements never interleave with
    another coroutine's; writes run in ``BEGIN IMMEDIATE`` transactions that commit whole or
    not at all.
    """

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path | str) -> Database:
        """Open (creating if needed) and migrate the database at ``path``.

        Raises :class:`DatabaseTooNewError` if the file's schema is newer than this code's.
        """
        connection = await aiosqlite.connect(str(path), isolation_level=None)
        connection.row_factory = aiosqlite.Row
        database = cls(connection)
        try:
            for pragma in (
                "PRAGMA journal_mode = WAL",
                "PRAGMA synchronous = FULL",
                "PRAGMA foreign_keys = ON",
                "PRAGMA busy_timeout = 5000",
            ):
                await connection.execute(pragma)
            await database._migrate()
        except BaseException:
            await connection.close()
            raise
        return database

    async def close(self) -> None:
        """Close the connection (waiting for the operation under way)."""
        async with self._lock:
            await self._connection.close()

    async def _migrate(self) -> None:
        version = await self.scalar("PRAGMA user_version")
        latest = len(MIGRATIONS)
        if version > latest:
            raise DatabaseTooNewError(
                f"the database has schema version {version}, but this bot knows only up to "
                f"{latest}: upgrade the bot"
            )
        for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
            async with self.transaction() as connection:
                for statement in _statements(script):
                    await connection.execute(statement)
                await connection.execute(f"PRAGMA user_version = {number}")
            log.info("database migrated to schema version %d", number)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """A write transaction: commits when the block ends, rolls back if it raises."""
        async with self._lock:
            await self._connection.execute("BEGIN IMMEDIATE")
            try:
                yield self._connection
            except BaseException:
                await self._connection.execute("ROLLBACK")
                raise
            await self._connection.execute("COMMIT")

    async def fetchone(self, sql: str, parameters: Iterable[Any] = ()) -> aiosqlite.Row | None:
        """The first row of a query, or ``None``."""
        async with self._lock, self._connection.execute(sql, tuple(parameters)) as cursor:
            return await cursor.fetchone()

    async def fetchall(self, sql: str, parameters: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        """All rows of a query."""
        async with self._lock, self._connection.execute(sql, tuple(parameters)) as cursor:
            return list(await cursor.fetchall())

    async def get_meta(self, key: str) -> str | None:
        """A value the bot keeps for itself (e.g. the hash of the registered commands)."""
        return await self.scalar("SELECT value FROM meta WHERE key = ?", (key,))

    async def set_meta(self, key: str, value: str) -> None:
        """Store a value under ``key``."""
        async with self.transaction() as connection:
            await connection.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    async def scalar(self, sql: str, parameters: Iterable[Any] = ()) -> Any:
        """The first column of the first row (``None`` when there is no row)."""
        row = await self.fetchone(sql, parameters)
        return None if row is None else row[0]


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (they contain no ';' inside strings)."""
    return [statement.strip() for statement in script.split(";") if statement.strip()]
