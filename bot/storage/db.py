"""The database: one interface, two backends (SQLite, embedded; PostgreSQL, shared by several
processes), chosen by ``THOLOS_DB``.

Repositories write their SQL once, with ``?`` placeholders, and run it through a
:class:`Transaction` or the :class:`Database`'s read helpers; the backend adapts placeholders,
maps its errors onto :class:`UniqueViolation`, :class:`DatabaseUnavailable` and
:class:`DatabaseCannotWrite` (a full disk, a read-only database), and migrates
the schema (migrations numbered alike in both, a script per dialect).
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, Literal, Protocol, overload

from bot.base.answer_deadline import answer_by
from bot.storage.announcements import ChangeListener

Dialect = Literal["sqlite", "postgresql"]


class Row(Protocol):
    """A result row (SQLite's ``sqlite3.Row``, asyncpg's ``Record``): read by column name
    (``row["id"]``) or position (``row[0]``)."""

    @overload
    def __getitem__(self, key: int, /) -> Any: ...
    @overload
    def __getitem__(self, key: str, /) -> Any: ...
    @overload
    def __getitem__(self, key: slice, /) -> tuple[Any, ...]: ...

    def __iter__(self) -> Iterator[Any]: ...

    def keys(self) -> Iterable[str]: ...


class DatabaseTooNewError(RuntimeError):
    """The database was written by a newer version of the bot than this one."""


class UniqueViolation(Exception):
    """A write broke a unique index (on either backend): nothing was written."""


class DatabaseUnavailable(Exception):
    """The database cannot be reached right now (PostgreSQL down or restarting, connection
    lost, SQLite locked for too long): nothing was written."""


class DatabaseCannotWrite(DatabaseUnavailable):
    """The database refuses writes: its disk is full, or it is read-only (a read-only file or
    filesystem, a PostgreSQL role without write rights, a read-only server): nothing was
    written, everything saved before is intact, and writes work again once space or rights are
    back. Reads go on."""


class DatabaseBusy(DatabaseUnavailable):
    """Another writer held the database past :data:`WRITE_PATIENCE` (maintenance such as
    ``rebuild-ratings`` writing, a long transaction of another process): nothing was written,
    and trying again in a moment will most likely work."""


WRITE_PATIENCE = 1.5
"""Seconds a write waits for another writer before :class:`DatabaseBusy`: a press still hears
its answer inside Discord's 3 seconds."""


class Transaction(Protocol):
    """Statements that commit together, or not at all."""

    async def execute(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        """Run a statement; the number of rows it changed."""
        ...

    async def fetchone(self, sql: str, parameters: Sequence[Any] = ()) -> Row | None:
        """The first row of a query (``UPDATE … RETURNING`` too), or ``None``."""
        ...

    async def fetchall(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        """All rows of a query."""
        ...

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run a statement once per row of parameters."""
        ...

    async def lock(self, scope: str, key: int) -> None:
        """Serialise this transaction with every other one that locks ``(scope, key)`` until it
        ends (a PostgreSQL advisory lock; SQLite serialises all writes anyway)."""
        ...

    async def announce(self, topic: str, payload: str) -> None:
        """Tell the listeners of ``topic`` ``payload`` once this transaction commits
        (:mod:`.announcements`)."""
        ...


class Reader(Protocol):
    """Queries of one read transaction."""

    async def fetchone(self, sql: str, parameters: Sequence[Any] = ()) -> Row | None:
        """The first row of a query, or ``None``."""
        ...

    async def fetchall(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        """All rows of a query."""
        ...


class Database(Protocol):
    """A migrated database that repositories read and write."""

    dialect: Dialect

    def transaction(self, *, ordered: bool = False) -> AbstractAsyncContextManager[Transaction]:
        """A write transaction: commits when the block ends, rolls back if it raises.

        ``ordered``: it records something already shown (a board is on Discord a moment before
        the transaction that records it commits): this process's reads asked for once it has
        begun wait for it to end, so that they see it (:class:`Ordered`). Other transactions'
        reads never wait for them."""
        ...

    async def fetchone(self, sql: str, parameters: Sequence[Any] = ()) -> Row | None:
        """The first row of a query, or ``None``."""
        ...

    async def fetchall(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        """All rows of a query."""
        ...

    def snapshot(self) -> AbstractAsyncContextManager[Reader]:
        """Reads that all see the database as it was at one moment (a read transaction: a
        SQLite reader in WAL mode and a PostgreSQL ``REPEATABLE READ`` one block no writer)."""
        ...

    async def listen(self, topic: str, listener: ChangeListener) -> Callable[[], None]:
        """Hear what transactions announce on ``topic`` (:mod:`.announcements`); the function
        returned stops it."""
        ...

    async def close(self) -> None:
        """Close every connection (waiting for the operation under way)."""
        ...

    @property
    def cannot_write(self) -> str | None:
        """Why the latest write transaction was refused for want of space or rights
        (:class:`DatabaseCannotWrite`); ``None`` once a write has committed since (or none was
        refused)."""
        ...


class Writes:
    """Whether the database is refusing writes (:attr:`Database.cannot_write`): the outcome
    of the latest write transaction, kept by the backend."""

    def __init__(self) -> None:
        self.refused: str | None = None

    @contextmanager
    def watched(self) -> Iterator[None]:
        """Around one write transaction: a :class:`DatabaseCannotWrite` it raises is
        remembered, a commit forgets it."""
        try:
            yield
        except DatabaseCannotWrite as error:
            self.refused = str(error)
            raise
        self.refused = None


class Ordered:
    """The ordered write transactions under way (:meth:`Database.transaction`)."""

    def __init__(self) -> None:
        self._under_way: set[asyncio.Future[None]] = set()

    @contextmanager
    def begun(self) -> Iterator[None]:
        """One is under way while the block runs."""
        ended = asyncio.get_running_loop().create_future()
        self._under_way.add(ended)
        try:
            yield
        finally:
            self._under_way.discard(ended)
            ended.set_result(None)

    async def ended(self) -> None:
        """Wait for those under way now (not for those begun meanwhile) — no later than the
        answer the task owes (:func:`answer_by`), else :class:`DatabaseBusy`."""
        if not self._under_way:
            return
        owed = answer_by()
        timeout = None if owed is None else max(0.0, owed - time.monotonic())
        _, waiting = await asyncio.wait(list(self._under_way), timeout=timeout)
        if waiting:
            raise DatabaseBusy("a write this read must see waits for another writer")


@dataclass(frozen=True, slots=True)
class Sql:
    """An SQL expression and its parameters, in the order of their ``?``."""

    text: str
    values: tuple[object, ...] = ()


async def insert(
    transaction: Transaction, table: str, values: Mapping[str, object], returning: str
) -> Row:
    """Insert one row into ``table`` (column → its value, or an :class:`Sql` expression written
    into the statement); the ``returning`` columns of the row stored."""
    written = [value if isinstance(value, Sql) else Sql("?", (value,)) for value in values.values()]
    row = await transaction.fetchone(
        f"INSERT INTO {table} ({', '.join(values)}) "
        f"VALUES ({', '.join(value.text for value in written)}) RETURNING {returning}",
        tuple(parameter for value in written for parameter in value.values),
    )
    assert row is not None  # INSERT … RETURNING gives the row
    return row


async def scalar(database: Database | Transaction, sql: str, parameters: Sequence[Any] = ()) -> Any:
    """The first column of the first row (``None`` when there is no row)."""
    row = await database.fetchone(sql, parameters)
    return None if row is None else row[0]


async def get_meta(database: Database, key: str) -> str | None:
    """A value the bot keeps for itself (e.g. the hash of the registered commands)."""
    return await scalar(database, "SELECT value FROM meta WHERE key = ?", (key,))


async def set_meta(database: Database, key: str, value: str) -> None:
    """Store a value under ``key``."""
    async with database.transaction() as transaction:
        await transaction.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


def lock_key(scope: str, key: int) -> tuple[int, int]:
    """Two 32-bit advisory-lock keys for ``(scope, key)``: the scope's CRC and the key folded."""
    folded = (key ^ (key >> 32)) & 0xFFFFFFFF
    return _signed(zlib.crc32(scope.encode())), _signed(folded)


def _signed(value: int) -> int:
    return value - (1 << 32) if value >= 1 << 31 else value
