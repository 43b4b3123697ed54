"""The SQLite backend: a writer connection and a few reader connections, each on a thread of its
own; ``BEGIN IMMEDIATE`` write transactions, WAL, numbered migrations recorded in
``PRAGMA user_version``.

WAL lets readers read while a transaction writes: each read takes a free reader connection
(there are :data:`READERS`), reads never hold up a write or each other, and only write
transactions take turns on the writer. Only an ``ordered`` write (the record of a board already
posted) makes the reads asked for after it began wait for it (:class:`.db.Ordered`).

A read is one round trip to its reader's thread (executed, fetched and closed there). A write
transaction is two, whatever its statements: ``BEGIN IMMEDIATE`` (which may wait for another
process's write) and ``COMMIT`` (which waits for the disk) go to the writer's thread, and the
statements between run on the event loop's thread. There they cannot wait: the transaction
holds SQLite's write lock, WAL keeps readers out of its way, and nothing reaches the disk before
the commit; each is a few dozen microseconds of work on a few rows, less than a round trip to a
thread costs, and the writer is held for two round trips instead of one per statement.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import stat
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager, nullcontext, suppress
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from bot.base.answer_deadline import patience
from bot.storage.announcements import ChangeListener, Listeners
from bot.storage.db import (
    WRITE_PATIENCE,
    DatabaseBusy,
    DatabaseCannotWrite,
    DatabaseTooNewError,
    DatabaseUnavailable,
    Dialect,
    Ordered,
    Row,
    UniqueViolation,
    Writes,
    scalar,
)
from bot.storage.events import report
from bot.storage.locks import DatabaseLockedError, lock_database
from bot.storage.migrations import MIGRATIONS, SQLITE_TABLE_REBUILDS, statements

log = logging.getLogger(__name__)

T = TypeVar("T")

BUSY_TIMEOUT_MS = 100
"""How long one statement waits for another process's write (SQLite's busy handler); a write
transaction tries to begin again, the connection free in between, for :data:`WRITE_PATIENCE`."""
READERS = 2
"""Reader connections: reads run on them at once, beside the writer (one per core here; a read
is a fraction of a millisecond)."""


CANNOT_WRITE = (sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY)
"""SQLite's primary result codes for a write refused for want of space ("database or disk is
full", the disk's or ``PRAGMA max_page_count``'s) or rights ("attempt to write a readonly
database": a read-only file, directory or filesystem)."""
PRIVATE = 0o600
"""The mode of the database file, and so of its ``-wal`` and ``-shm`` (SQLite gives them its
database's): it holds the key that signs the live board's sessions."""
COMPANIONS = ("", "-wal", "-shm")


@contextmanager
def _translated() -> Iterator[None]:
    """SQLite's errors as the storage layer's: unique violations, a database locked too long,
    a write refused for want of space or rights."""
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
        if getattr(error, "sqlite_errorcode", 0) & 0xFF in CANNOT_WRITE:
            report("failed", "sqlite")
            raise DatabaseCannotWrite(str(error)) from error
        raise


def _is_busy(error: sqlite3.OperationalError) -> bool:
    return "locked" in str(error) or "busy" in str(error)


class _Connection:
    """One SQLite connection and the thread it lives on: what it is given runs there, in order."""

    def __init__(self, name: str) -> None:
        self._thread = ThreadPoolExecutor(1, thread_name_prefix=name)
        self.sqlite: sqlite3.Connection | None = None

    async def open(self, path: str, pragmas: Sequence[str]) -> None:
        def connect() -> None:
            connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            try:
                connection.row_factory = sqlite3.Row
                for pragma in pragmas:
                    connection.execute(pragma)
            except BaseException:
                connection.close()
                raise
            self.sqlite = connection

        await self.run(connect)

    async def run(self, function: Callable[..., T], *arguments: object) -> T:
        """``function(*arguments)`` on the connection's thread."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, function, *arguments)

    async def run_to_the_end(self, function: Callable[..., T], *arguments: object) -> T:
        """:meth:`run`; if the caller is cancelled meanwhile, wait for ``function`` all the same
        before the cancellation goes on (it runs on its thread regardless), so that whether a
        transaction is open is known when the connection is given back."""
        done = asyncio.ensure_future(self.run(function, *arguments))
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            await asyncio.wait([done])
            raise

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        assert self.sqlite is not None
        return self.sqlite.execute(sql, tuple(parameters)).rowcount

    def fetchone(self, sql: str, parameters: Sequence[Any] = ()) -> Row | None:
        assert self.sqlite is not None
        cursor = self.sqlite.execute(sql, tuple(parameters))
        try:
            return cursor.fetchone()
        finally:
            cursor.close()

    def fetchall(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        assert self.sqlite is not None
        return self.sqlite.execute(sql, tuple(parameters)).fetchall()

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        assert self.sqlite is not None
        self.sqlite.executemany(sql, [tuple(row) for row in rows])

    def in_transaction(self) -> bool:
        return self.sqlite is not None and self.sqlite.in_transaction

    def end_transaction(self) -> None:
        """Roll back the transaction open on this connection, if any."""
        if self.in_transaction():
            self.execute("ROLLBACK")

    def begin_reading(self) -> None:
        """A read transaction that sees the database as it is now (WAL: writers go on)."""
        self.execute("BEGIN")  # deferred: it starts at its first read
        self.fetchone("SELECT 1 FROM sqlite_master LIMIT 1")

    async def close(self) -> None:
        if self.sqlite is not None:
            await self.run(self.sqlite.close)
            self.sqlite = None
        self._thread.shutdown(wait=True)


class _Transaction:
    """Statements on one connection: each a round trip to its thread, or (``on_the_loop``, a
    write transaction's) run where they are asked for."""

    def __init__(
        self,
        connection: _Connection,
        announced: list[tuple[str, str]] | None = None,
        on_the_loop: bool = False,
    ) -> None:
        self._connection = connection
        self._announced = announced
        self._on_the_loop = on_the_loop

    async def _do(self, function: Callable[..., T], *arguments: object) -> T:
        with _translated():
            if self._on_the_loop:
                return function(*arguments)
            return await self._connection.run(function, *arguments)

    async def execute(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        return await self._do(self._connection.execute, sql, parameters)

    async def fetchone(self, sql: str, parameters: Sequence[Any] = ()) -> Row | None:
        return await self._do(self._connection.fetchone, sql, parameters)

    async def fetchall(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        return await self._do(self._connection.fetchall, sql, parameters)

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        await self._do(self._connection.executemany, sql, rows)

    async def lock(self, scope: str, key: int) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` already serialises every write transaction."""

    async def announce(self, topic: str, payload: str) -> None:
        """Kept until the transaction commits, then told to this process's listeners."""
        assert self._announced is not None, "announcements need a write transaction"
        self._announced.append((topic, payload))


class _Writer:
    """The writer connection. Write transactions take turns on it (a lock), so that a
    transaction's statements never interleave with another's, and run in ``BEGIN IMMEDIATE``
    transactions that commit whole or not at all."""

    def __init__(self) -> None:
        self.connection = _Connection("sqlite-writer")
        self.turn = asyncio.Lock()
        """Held by the write transaction under way (and while the connections close)."""

    @asynccontextmanager
    async def transaction(
        self, announced: list[tuple[str, str]], on_the_loop: bool
    ) -> AsyncIterator[_Transaction]:
        """A write transaction, rolled back if the block raises; what it announces is kept in
        ``announced``. Its statements run on the event loop's thread (``on_the_loop``: the bot's
        transactions), or each on the writer's thread (the migrations: whole tables)."""
        writer = self.connection
        await self._begin()
        try:
            try:
                yield _Transaction(writer, announced, on_the_loop)
            except BaseException:
                await writer.run_to_the_end(writer.end_transaction)
                raise
            try:
                with _translated():
                    await writer.run_to_the_end(writer.execute, "COMMIT")
            except BaseException:  # a full disk: SQLite may keep the transaction open
                await writer.run_to_the_end(writer.end_transaction)
                raise
        finally:
            self.turn.release()

    async def migrate(self, version: int) -> None:
        """Run the migrations after schema ``version``, each in a transaction of its own."""
        writer = self.connection
        for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
            rebuild = number in SQLITE_TABLE_REBUILDS
            if rebuild:  # takes effect only outside a transaction
                await writer.run(writer.execute, "PRAGMA foreign_keys = OFF")
            try:
                async with self.transaction([], on_the_loop=False) as transaction:
                    for statement in statements(script):
                        await transaction.execute(statement)
                    if rebuild:
                        broken = await transaction.fetchall("PRAGMA foreign_key_check")
                        if broken:
                            raise RuntimeError(f"migration {number} broke references: {broken}")
                    await transaction.execute(f"PRAGMA user_version = {number}")
            finally:
                if rebuild:
                    await writer.run(writer.execute, "PRAGMA foreign_keys = ON")
            log.info("database migrated to schema version %d", number)

    async def _begin(self) -> None:
        """Take the writer and begin a write transaction: while another process writes, try
        again (the writer free for this process's other work in between) until
        :data:`WRITE_PATIENCE` has passed, then raise :class:`DatabaseBusy`."""
        writer = self.connection
        deadline = patience(WRITE_PATIENCE)
        while True:
            await self.turn.acquire()
            try:
                await writer.run_to_the_end(writer.execute, "BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as error:
                self.turn.release()
                if not _is_busy(error) or time.monotonic() >= deadline:
                    with _translated():
                        raise
                report("retried", "sqlite")
            except BaseException:  # cancelled: a transaction begun meanwhile must not stay open
                try:
                    await writer.run_to_the_end(writer.end_transaction)
                finally:
                    self.turn.release()
                raise


class SqliteDatabase:
    """The SQLite file, written by one connection (:class:`_Writer`) and read by
    :data:`READERS` others: reads take whichever reader is free, and wait only for ordered
    writes."""

    dialect: Dialect = "sqlite"

    def __init__(self, lock_file: BinaryIO | None = None) -> None:
        self._writer = _Writer()
        self._readers: list[_Connection] = []
        self._free: asyncio.Queue[_Connection] = asyncio.Queue()
        self._ordered = Ordered()
        self._lock_file = lock_file  # the shared lock on <path>.lock while open (locks.py)
        self._listeners = Listeners()
        self._writes = Writes()

    @property
    def cannot_write(self) -> str | None:
        return self._writes.refused

    @classmethod
    async def open(cls, path: Path | str) -> SqliteDatabase:
        """Open (creating if needed) and migrate the database at ``path``.

        Raises :class:`DatabaseTooNewError` if the file's schema is newer than this code's, and
        :class:`DatabaseUnavailable` while ``python -m bot restore`` replaces it.
        """
        if str(path) == ":memory:":
            raise ValueError("the SQLite backend needs a file: its connections share it")
        try:
            lock_file = lock_database(path)
        except DatabaseLockedError:
            raise DatabaseUnavailable(
                f"{path} is being restored (python -m bot restore): start again when the "
                "restore has finished"
            ) from None
        database = cls(lock_file)
        settings = ("PRAGMA foreign_keys = ON", f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        try:
            await asyncio.to_thread(keep_private, Path(path))
            await database._writer.connection.open(
                str(path), ("PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL", *settings)
            )
            for number in range(READERS):
                reader = _Connection(f"sqlite-reader-{number}")
                database._readers.append(reader)
                await reader.open(str(path), (*settings, "PRAGMA query_only = ON"))
                database._free.put_nowait(reader)
            await database._migrate()
        except BaseException:
            await database.close()
            raise
        return database

    async def close(self) -> None:
        async with self._writer.turn:
            try:
                for connection in (self._writer.connection, *self._readers):
                    await connection.close()
            finally:
                if self._lock_file is not None:
                    self._lock_file.close()
                    self._lock_file = None

    async def _migrate(self) -> None:
        version = await scalar(self, "PRAGMA user_version")
        latest = len(MIGRATIONS)
        if version > latest:
            raise DatabaseTooNewError(
                f"the database has schema version {version}, but this bot knows only up to "
                f"{latest}: upgrade the bot"
            )
        await self._writer.migrate(version)

    @asynccontextmanager
    async def transaction(self, *, ordered: bool = False) -> AsyncIterator[_Transaction]:
        """A write transaction; its statements run on the event loop's thread (a handful of
        statements on a few rows each)."""
        announced: list[tuple[str, str]] = []
        with self._ordered.begun() if ordered else nullcontext(), self._writes.watched():
            async with self._writer.transaction(announced, on_the_loop=True) as transaction:
                yield transaction
        for topic, payload in announced:
            self._listeners.tell(topic, payload)

    async def listen(self, topic: str, listener: ChangeListener) -> Callable[[], None]:
        return self._listeners.add(topic, listener)

    @asynccontextmanager
    async def _reader(self) -> AsyncIterator[_Connection]:
        """A free reader connection for the block, once the ordered writes begun before have
        ended."""
        await self._ordered.ended()
        reader = await self._free.get()
        try:
            yield reader
        finally:
            self._free.put_nowait(reader)

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[_Transaction]:
        async with self._reader() as reader:
            try:
                await reader.run_to_the_end(reader.begin_reading)
                yield _Transaction(reader)
            finally:
                await reader.run_to_the_end(reader.end_transaction)

    async def fetchone(self, sql: str, parameters: Sequence[Any] = ()) -> Row | None:
        async with self._reader() as reader:
            return await _Transaction(reader).fetchone(sql, parameters)

    async def fetchall(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        async with self._reader() as reader:
            return await _Transaction(reader).fetchall(sql, parameters)


def keep_private(path: Path) -> None:
    """Create the database file ``path`` readable by its owner only (:data:`PRIVATE`) before
    SQLite opens it, so that its ``-wal`` and ``-shm`` are born so too; tighten the mode of
    those a bot before this one left readable by others, saying so."""
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE))
    for suffix in COMPANIONS:
        file = Path(f"{path}{suffix}")
        try:
            mode = stat.S_IMODE(file.stat().st_mode)
        except FileNotFoundError:
            continue
        if mode & ~PRIVATE:
            file.chmod(mode & PRIVATE)
            log.warning(
                "%s was readable by others (mode %o): now %o, its owner's only",
                file,
                mode,
                mode & PRIVATE,
            )
