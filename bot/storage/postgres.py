"""The PostgreSQL backend (asyncpg): a connection pool shared by one process's coroutines, and
by as many processes as there are shards. Numbered migrations (one numbering with SQLite's) run
in one transaction under an advisory lock, so that processes starting together migrate once,
and are recorded in ``schema_version``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager, nullcontext
from functools import lru_cache
from typing import Any

import asyncpg
import asyncpg.transaction
from asyncpg.pool import PoolConnectionProxy

from bot.base.database_url import redact
from bot.storage.announcements import CHANNEL_PREFIX, ChangeListener, Listeners
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
    lock_key,
    scalar,
)
from bot.storage.events import report
from bot.storage.migrations import POSTGRES_MIGRATIONS, postgres_version, statements

log = logging.getLogger(__name__)

POOL_SIZE = 10
CONNECT_TIMEOUT = 5
"""Seconds to wait for a connection before telling the user the database is unavailable."""
STATEMENT_TIMEOUT = 10.0
RECONNECT_FIRST, RECONNECT_LAST = 0.5, 30.0
"""Seconds before listening again after the connection was lost: the first wait, doubled after
each failure up to the last."""
_UNAVAILABLE = (
    OSError,
    TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.CannotConnectNowError,
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
)
_CANNOT_WRITE = (
    asyncpg.DiskFullError,  # 53100
    asyncpg.ReadOnlySQLTransactionError,  # 25006: a read-only server or database
    asyncpg.InsufficientPrivilegeError,  # 42501: a role without write rights
)
_MIGRATION_LOCK = lock_key("migrations", 0)


@lru_cache(maxsize=512)
def dollar_placeholders(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2, …`` (the SQL has no ``?`` in strings).

    >>> dollar_placeholders("SELECT 1 FROM games WHERE id = ? AND version = ?")
    'SELECT 1 FROM games WHERE id = $1 AND version = $2'
    """
    numbers = iter(range(1, sql.count("?") + 1))
    return re.sub(r"\?", lambda _: f"${next(numbers)}", sql)


@contextmanager
def _translated() -> Iterator[None]:
    """asyncpg's errors as the storage layer's: unique violations, an unreachable server, a
    write refused for want of space or rights."""
    try:
        yield
    except asyncpg.UniqueViolationError as error:
        raise UniqueViolation(str(error)) from error
    except (asyncpg.LockNotAvailableError, asyncpg.DeadlockDetectedError) as error:
        report("failed", "postgresql")
        raise DatabaseBusy(f"{type(error).__name__}: {error}") from error
    except _CANNOT_WRITE as error:
        report("failed", "postgresql")
        raise DatabaseCannotWrite(f"{type(error).__name__}: {error}") from error
    except _UNAVAILABLE as error:
        report("failed", "postgresql")
        raise DatabaseUnavailable(f"{type(error).__name__}: {error}") from error


class _Transaction:
    """Statements on one pooled connection, inside its transaction."""

    def __init__(self, connection: PoolConnectionProxy) -> None:
        self._connection = connection

    async def execute(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        with _translated():
            status = await self._connection.execute(dollar_placeholders(sql), *parameters)
        count = status.rpartition(" ")[2]
        return int(count) if count.isdigit() else 0

    async def fetchone(self, sql: str, parameters: Sequence[Any] = ()) -> Row | None:
        with _translated():
            return await self._connection.fetchrow(dollar_placeholders(sql), *parameters)

    async def fetchall(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        with _translated():
            return list(await self._connection.fetch(dollar_placeholders(sql), *parameters))

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with _translated():
            await self._connection.executemany(dollar_placeholders(sql), rows)

    async def lock(self, scope: str, key: int) -> None:
        await self.execute("SELECT pg_advisory_xact_lock(?, ?)", lock_key(scope, key))

    async def announce(self, topic: str, payload: str) -> None:
        """``NOTIFY``: delivered to every listening process when the transaction commits."""
        await self.execute("SELECT pg_notify(?, ?)", (CHANNEL_PREFIX + topic, payload))


class PostgresDatabase:
    """A pool of connections to one PostgreSQL database."""

    dialect: Dialect = "postgresql"

    def __init__(self, pool: asyncpg.Pool, url: str) -> None:
        self._pool = pool
        self.url = url
        self._listening = _Listening(url)
        self._ordered = Ordered()
        self._writes = Writes()

    @property
    def cannot_write(self) -> str | None:
        return self._writes.refused

    @classmethod
    async def open(cls, url: str) -> PostgresDatabase:
        """Connect to ``url`` and migrate its schema.

        Raises :class:`DatabaseUnavailable` (the URL's password hidden) if the server cannot be
        reached, and :class:`DatabaseTooNewError` if the schema is newer than this code's.
        """
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=0,
                max_size=POOL_SIZE,
                timeout=CONNECT_TIMEOUT,
                command_timeout=STATEMENT_TIMEOUT,
                server_settings={"lock_timeout": f"{WRITE_PATIENCE * 1000:.0f}ms"},
            )
        except (*_UNAVAILABLE, asyncpg.PostgresError) as error:
            raise DatabaseUnavailable(
                f"cannot connect to {redact(url)}: {type(error).__name__}"
            ) from None
        database = cls(pool, url)
        try:
            await database._migrate()
        except DatabaseUnavailable as error:  # or DatabaseCannotWrite: no right to migrate
            await pool.close()
            raise type(error)(f"cannot connect to {redact(url)}: {error}") from None
        except BaseException:
            await pool.close()
            raise
        return database

    async def close(self) -> None:
        await self._listening.close()
        await self._pool.close()

    async def listen(self, topic: str, listener: ChangeListener) -> Callable[[], None]:
        return await self._listening.add(topic, listener)

    async def _migrate(self) -> None:
        """Run the pending migrations, all in one transaction (a failed one leaves the schema
        as it was), and record the newest version; processes starting together wait for the
        first (an advisory lock), then find nothing to do."""
        latest = len(POSTGRES_MIGRATIONS)
        async with self.transaction() as transaction:
            await transaction.execute("SET LOCAL lock_timeout = 0")  # others migrate: wait
            await transaction.execute("SELECT pg_advisory_xact_lock(?, ?)", _MIGRATION_LOCK)
            # asked first: a role without the right to create tables runs a migrated database
            if await scalar(transaction, "SELECT to_regclass('schema_version')") is None:
                await transaction.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
            row = await transaction.fetchone("SELECT version FROM schema_version")
            recorded = 0 if row is None else row[0]
            if recorded == latest:
                return
            version = postgres_version(recorded)
            if version > latest:
                raise DatabaseTooNewError(
                    f"the database has schema version {version}, but this bot knows only "
                    f"up to {latest}: upgrade the bot"
                )
            for script in POSTGRES_MIGRATIONS[version:]:
                for statement in statements(script or ""):
                    await transaction.execute(statement)
            if row is None:
                await transaction.execute("INSERT INTO schema_version VALUES (?)", (latest,))
            else:
                await transaction.execute("UPDATE schema_version SET version = ?", (latest,))
        log.info("database migrated from schema version %d to %d", version, latest)

    @asynccontextmanager
    async def _begun(
        self, **options: Any
    ) -> AsyncIterator[tuple[PoolConnectionProxy, asyncpg.transaction.Transaction]]:
        """A pooled connection in a transaction begun with ``options``; released after."""
        with _translated():
            connection = await self._pool.acquire(timeout=CONNECT_TIMEOUT)
        try:
            with _translated():
                transaction = connection.transaction(**options)
                await transaction.start()
            yield connection, transaction
        finally:
            await self._pool.release(connection)

    @asynccontextmanager
    async def transaction(self, *, ordered: bool = False) -> AsyncIterator[_Transaction]:
        with self._ordered.begun() if ordered else nullcontext(), self._writes.watched():
            async with self._begun() as (connection, transaction):
                try:
                    yield _Transaction(connection)
                except BaseException:
                    with _translated():
                        await transaction.rollback()
                    raise
                with _translated():
                    await transaction.commit()

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[_Transaction]:
        await self._ordered.ended()
        async with self._begun(isolation="repeatable_read", readonly=True) as (connection, done):
            try:
                with _translated():
                    await connection.execute("SELECT 1")  # the snapshot is taken here
                yield _Transaction(connection)
            finally:
                with _translated():
                    await done.rollback()

    async def fetchone(self, sql: str, parameters: Sequence[Any] = ()) -> Row | None:
        await self._ordered.ended()
        with _translated():
            async with self._pool.acquire(timeout=CONNECT_TIMEOUT) as connection:
                return await connection.fetchrow(dollar_placeholders(sql), *parameters)

    async def fetchall(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        await self._ordered.ended()
        with _translated():
            async with self._pool.acquire(timeout=CONNECT_TIMEOUT) as connection:
                return list(await connection.fetch(dollar_placeholders(sql), *parameters))


class _Listening:
    """One connection of this process that ``LISTEN``s for every topic listened to, opened on
    the first; when it is lost, it is opened again (waiting longer after each failure) and the
    listeners are told that they may have missed announcements."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._listeners = Listeners()
        self._connection: asyncpg.Connection | None = None
        self._reconnecting: asyncio.Task[None] | None = None
        self._closed = False

    async def add(self, topic: str, listener: ChangeListener) -> Callable[[], None]:
        new_topic = topic not in self._listeners.topics
        stop = self._listeners.add(topic, listener)
        if self._connection is None and self._reconnecting is None:
            await self._connect()
        elif new_topic and self._connection is not None:
            with _translated():
                await self._connection.add_listener(CHANNEL_PREFIX + topic, self._heard)
        return stop

    async def _connect(self) -> None:
        with _translated():
            connection = await asyncpg.connect(self._url, timeout=CONNECT_TIMEOUT)
        try:
            for topic in self._listeners.topics:
                with _translated():
                    await connection.add_listener(CHANNEL_PREFIX + topic, self._heard)
        except BaseException:
            await connection.close()
            raise
        connection.add_termination_listener(self._lost)
        self._connection = connection

    def _heard(self, connection: object, pid: int, channel: str, payload: str) -> None:
        self._listeners.tell(channel.removeprefix(CHANNEL_PREFIX), payload)

    def _lost(self, connection: object) -> None:
        self._connection = None
        if not self._closed and self._reconnecting is None:
            log.warning("the database connection listening for changes was lost; reconnecting")
            self._reconnecting = asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        delay = RECONNECT_FIRST
        try:
            while not self._closed:
                await asyncio.sleep(delay)
                try:
                    await self._connect()
                except DatabaseUnavailable as error:
                    log.warning("could not listen for changes again: %s", error)
                    delay = min(delay * 2, RECONNECT_LAST)
                    continue
                log.info("listening for changes again")
                self._listeners.tell_all_missed()
                return
        finally:
            self._reconnecting = None

    async def close(self) -> None:
        self._closed = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reconnecting
        if self._connection is not None:
            connection, self._connection = self._connection, None
            connection.remove_termination_listener(self._lost)
            await connection.close()
