"""The SQLite backend: one connection, one lock, ``BEGIN IMMEDIATE`` transactions, WAL, numbered
migrations recorded in ``PRAGMA user_version``."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import aiosqlite

from .announcements import ChangeListener, Listeners
from .db import (
    WRITE_PATIENCE,
    DatabaseBusy,
    DatabaseTooNewError,
    DatabaseUnavailable,
    Dialect,
    UniqueViolation,
    report,
)
from .locks import DatabaseLockedError, lock_database
from .migrations import MIGRATIONS, SQLITE_TABLE_REBUILDS, statements

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 100
"""How long one statement waits for another process's write (SQLite's busy handler); a write
transaction tries to begin again, the connection free in between, for :data:`WRITE_PATIENCE`."""


@contextmanager
def _translated() -> Iterator[None]:
    """SQLite's errors as the storage layer's: unique violations, a database locked too long."""
    try:
        yield
    except sqlite3.IntegrityError as error:
        if "UNIQUE" in str(error):
            raise UniqueViolation(str(error)) from error
        raise
    except sqlite3.OperationalError as error:
        if _is_busy(error):
            report("failed", "sqlite")
            raise DatabaseBusy(str(error)) from error
        raise


def _is_busy(error: sqlite3.OperationalError) -> bool:
    return "locked" in str(error) or "busy" in str(error)


class _Transaction:
    """Statements on the one connection, inside ``BEGIN IMMEDIATE``."""

    def __init__(
        self, connection: aiosqlite.Connection, announced: list[tuple[str, str]] | None = None
    ) -> None:
        self._connection = connection
        self._announced = announced

    async def execute(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        with _translated():
            cursor = await self._connection.execute(sql, tuple(parameters))
            return cursor.rowcount

    async def fetchone(self, sql: str, parameters: Sequence[Any] = ()) -> Any:
        with _translated():
            async with self._connection.execute(sql, tuple(parameters)) as cursor:
                return await cursor.fetchone()

    async def fetchall(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        with _translated():
            async with self._connection.execute(sql, tuple(parameters)) as cursor:
                return list(await cursor.fetchall())

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with _translated():
            await self._connection.executemany(sql, [tuple(row) for row in rows])

    async def lock(self, scope: str, key: int) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` already serialises every write transaction."""

    async def announce(self, topic: str, payload: str) -> None:
        """Kept until the transaction commits, then told to this process's listeners."""
        assert self._announced is not None, "announcements need a write transaction"
        self._announced.append((topic, payload))


class SqliteDatabase:
    """One connection to the SQLite file, used by one coroutine at a time.

    Every operation takes the same lock, so a transaction's statements never interleave with
    another coroutine's; writes run in ``BEGIN IMMEDIATE`` transactions that commit whole or
    not at all.
    """

    dialect: Dialect = "sqlite"

    def __init__(self, connection: aiosqlite.Connection, lock_file: BinaryIO | None = None) -> None:
        self._connection = connection
        self._lock = asyncio.Lock()
        self._lock_file = lock_file  # the shared lock on <path>.lock while open (locks.py)
        self._listeners = Listeners()

    @classmethod
    async def open(cls, path: Path | str) -> SqliteDatabase:
        """Open (creating if needed) and migrate the database at ``path``.

        Raises :class:`DatabaseTooNewError` if the file's schema is newer than this code's, and
        :class:`DatabaseUnavailable` while ``python -m bot restore`` replaces it.
        """
        lock_file = None
        if str(path) != ":memory:":
            try:
                lock_file = lock_database(path)
            except DatabaseLockedError:
                raise DatabaseUnavailable(
                    f"{path} is being restored (python -m bot restore): start again when the "
                    "restore has finished"
                ) from None
        try:
            connection = await aiosqlite.connect(str(path), isolation_level=None)
        except BaseException:
            if lock_file is not None:
                lock_file.close()
            raise
        connection.row_factory = aiosqlite.Row
        database = cls(connection, lock_file)
        try:
            for pragma in (
                "PRAGMA journal_mode = WAL",
                "PRAGMA synchronous = FULL",
                "PRAGMA foreign_keys = ON",
                f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",
            ):
                await connection.execute(pragma)
            await database._migrate()
        except BaseException:
            await database.close()
            raise
        return database

    async def close(self) -> None:
        async with self._lock:
            try:
                await self._connection.close()
            finally:
                if self._lock_file is not None:
                    self._lock_file.close()
                    self._lock_file = None

    async def _migrate(self) -> None:
        version = (await self.fetchone("PRAGMA user_version"))[0]
        latest = len(MIGRATIONS)
        if version > latest:
            raise DatabaseTooNewError(
                f"the database has schema version {version}, but this bot knows only up to "
                f"{latest}: upgrade the bot"
            )
        for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
            rebuild = number in SQLITE_TABLE_REBUILDS
            if rebuild:  # takes effect only outside a transaction
                await self._connection.execute("PRAGMA foreign_keys = OFF")
            try:
                async with self.transaction() as transaction:
                    for statement in statements(script):
                        await transaction.execute(statement)
                    if rebuild:
                        broken = await transaction.fetchall("PRAGMA foreign_key_check")
                        if broken:
                            raise RuntimeError(f"migration {number} broke references: {broken}")
                    await transaction.execute(f"PRAGMA user_version = {number}")
            finally:
                if rebuild:
                    await self._connection.execute("PRAGMA foreign_keys = ON")
            log.info("database migrated to schema version %d", number)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[_Transaction]:
        announced: list[tuple[str, str]] = []
        await self._begin()
        try:
            try:
                yield _Transaction(self._connection, announced)
            except BaseException:
                await self._connection.execute("ROLLBACK")
                raise
            with _translated():
                await self._connection.execute("COMMIT")
        finally:
            self._lock.release()
        for topic, payload in announced:
            self._listeners.tell(topic, payload)

    async def listen(self, topic: str, listener: ChangeListener) -> Callable[[], None]:
        return self._listeners.add(topic, listener)

    async def _begin(self) -> None:
        """Take the connection and begin a write transaction: while another process writes,
        try again (the connection free for this process's other work in between) until
        :data:`WRITE_PATIENCE` has passed, then raise :class:`DatabaseBusy`."""
        deadline = time.monotonic() + WRITE_PATIENCE
        while True:
            await self._lock.acquire()
            try:
                await self._to_the_end("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as error:
                self._lock.release()
                if not _is_busy(error) or time.monotonic() >= deadline:
                    with _translated():
                        raise
                report("retried", "sqlite")
            except BaseException:  # cancelled: a transaction begun meanwhile must not stay open
                try:
                    if self._connection.in_transaction:
                        await self._to_the_end("ROLLBACK")
                finally:
                    self._lock.release()
                raise

    async def _to_the_end(self, sql: str) -> None:
        """Execute ``sql``; if the caller is cancelled meanwhile, wait for the statement all
        the same (aiosqlite runs it on its thread regardless) before the cancellation goes on,
        so that whether a transaction is open is known when the connection is given back."""
        statement = asyncio.ensure_future(self._connection.execute(sql))
        try:
            await asyncio.shield(statement)
        except asyncio.CancelledError:
            await asyncio.wait([statement])
            raise

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[_Transaction]:
        async with self._lock:
            try:
                await self._to_the_end("BEGIN")  # deferred: reads only, writers go on (WAL)
                await self._connection.execute("SELECT 1 FROM sqlite_master LIMIT 1")  # the moment
                yield _Transaction(self._connection)
            finally:
                if self._connection.in_transaction:
                    await self._to_the_end("ROLLBACK")

    async def fetchone(self, sql: str, parameters: Sequence[Any] = ()) -> Any:
        async with self._lock:
            return await _Transaction(self._connection).fetchone(sql, parameters)

    async def fetchall(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        async with self._lock:
            return await _Transaction(self._connection).fetchall(sql, parameters)
