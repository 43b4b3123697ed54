"""``python -m bot backup`` and ``restore``: a SQLite database copied while the bot runs, and
brought back while it does not.

**Backup** uses SQLite's online backup API from a connection of its own (plain ``sqlite3``, in the
CLI process). The bot's database is in WAL mode, so the copy's reads never block the bot's
writer. It copies :data:`PAGES_PER_STEP` pages a step; a write by the bot between two steps makes
SQLite start again, and after :data:`MAX_RESTARTS` such restarts (a busy bot) it copies the rest
in one step: one read transaction, a snapshot, still no lock on the writer. Either way the copy is
one consistent state of the database. It is written to a hidden temporary file next to the
target, switched to a rollback journal (one self-contained file), checked with
``PRAGMA integrity_check``, synced, then renamed: a crash leaves no half backup.

**Restore** takes the database's exclusive lock (``locks.py``: refused while the bot or any
``tholos-bot`` command has it open), copies the backup into a temporary file next to the
database and checks it (integrity, a Tholos schema not newer than this bot's), keeps the database
it replaces as ``<database>.before-restore-<UTC time>`` (checkpointed first; a ``-wal``/``-shm``
that remains goes along with it, so nothing committed is lost), then renames the copy into place.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from bot.storage.locks import DatabaseLockedError, lock_database, locks_supported
from bot.storage.migrations import MIGRATIONS

PAGES_PER_STEP = 4096
"""Pages copied a step: 16 MiB at SQLite's default page size."""
MAX_RESTARTS = 3
"""Restarts (the bot wrote between two steps) before the rest is copied in one step."""
SIDE_FILES = ("-wal", "-shm", "-journal")
"""SQLite's files that belong to a database file (its name plus the suffix)."""


class BackupError(Exception):
    """A backup or restore refused or failed; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Copied:
    """What a backup or restore copied."""

    path: Path
    """The file written (the backup; the restored database)."""
    games: int
    turns: int
    size: int
    """Bytes."""
    schema: int
    """The schema version (``PRAGMA user_version``)."""
    seconds: float
    kept: Path | None = None
    """Restore: where the database it replaced is kept (``None``: there was none)."""

    def summary(self) -> str:
        """``12 games, 340 turns, 1.2 MB, schema version 9``."""
        return (
            f"{self.games} games, {self.turns} turns, {self.size / 1e6:.1f} MB, "
            f"schema version {self.schema}"
        )


def _utc_stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")


def _same_file(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))


def _connect_read_only(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{quote(os.fspath(path.resolve()))}?mode=ro", uri=True)


@contextmanager
def _temporary_next_to(path: Path) -> Iterator[Path]:
    """A new empty hidden file in ``path``'s directory, removed unless renamed away."""
    descriptor, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    os.close(descriptor)
    temporary = Path(name)
    try:
        yield temporary
    finally:
        for suffix in ("", *SIDE_FILES):
            Path(f"{temporary}{suffix}").unlink(missing_ok=True)


def _sync(path: Path) -> None:
    """Flush ``path`` (a file or a directory) to disk."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


class _TooBusy(Exception):
    """The stepwise copy restarted too often."""


def _copy(source: sqlite3.Connection, target: sqlite3.Connection, pages: int) -> None:
    """``source`` into ``target`` with the backup API: in steps of ``pages``, then, if the
    source keeps changing, in one step."""
    restarts = 0
    remaining: int | None = None

    def progress(status: int, left: int, total: int) -> None:
        nonlocal restarts, remaining
        if remaining is not None and left > remaining:
            restarts += 1
            if restarts > MAX_RESTARTS:
                raise _TooBusy
        remaining = left

    try:
        source.backup(target, pages=pages, progress=progress)
    except _TooBusy:
        source.backup(target, pages=-1)


def _check(
    connection: sqlite3.Connection, what: str, *, openable: bool = False
) -> tuple[int, int, int]:
    """A self-contained, intact Tholos database (``openable``: by this bot, its schema not newer
    than this bot's migrations): (schema, games, turns).

    Raises :class:`BackupError` saying what is wrong with ``what``.
    """
    try:
        connection.execute("PRAGMA journal_mode = DELETE")
        problems = [row[0] for row in connection.execute("PRAGMA integrity_check(20)")]
        if problems != ["ok"]:
            raise BackupError(f"{what} is damaged (PRAGMA integrity_check): {'; '.join(problems)}")
        schema = connection.execute("PRAGMA user_version").fetchone()[0]
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        if schema == 0 or not {"games", "turns"} <= tables:
            raise BackupError(f"{what} is not a Tholos database")
        if openable and schema > len(MIGRATIONS):
            raise BackupError(
                f"{what} has schema version {schema}, but this bot knows only up to "
                f"{len(MIGRATIONS)}: upgrade the bot first"
            )
        games = connection.execute("SELECT count(*) FROM games").fetchone()[0]
        turns = connection.execute("SELECT count(*) FROM turns").fetchone()[0]
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{what} is damaged or not a SQLite database: {error}") from None
    return schema, games, turns


def backup(
    database: Path, target: Path, *, force: bool = False, pages: int = PAGES_PER_STEP
) -> Copied:
    """Copy the SQLite ``database`` (the bot may be running) to ``target``: a file that must not
    exist unless ``force``, or a directory to put ``<name>-<UTC time>.db`` in.

    Raises :class:`BackupError` when refused or when the copy fails its checks.
    """
    started = time.perf_counter()
    if not database.is_file():
        raise BackupError(f"there is no database at {database} (THOLOS_DB)")
    if target.is_dir():
        target = target / f"{database.stem}-{_utc_stamp()}.db"
    if any(_same_file(target, Path(f"{database}{suffix}")) for suffix in ("", *SIDE_FILES)):
        raise BackupError(f"{target} is the database itself: back it up to another file")
    if target.exists() and not force:
        raise BackupError(f"{target} already exists: choose another name, or add --force")
    if not target.parent.is_dir():
        raise BackupError(f"there is no directory {target.parent}")
    try:
        lock = lock_database(database)
    except DatabaseLockedError:
        raise BackupError(f"{database} is being restored: back it up afterwards") from None
    try:
        with _temporary_next_to(target) as temporary:
            source = sqlite3.connect(database)
            try:
                source.execute("PRAGMA busy_timeout = 5000")
                copy = sqlite3.connect(temporary)
                try:
                    _copy(source, copy, pages)
                    schema, games, turns = _check(copy, f"the copy of {database}")
                finally:
                    copy.close()
            except sqlite3.Error as error:
                raise BackupError(f"copying {database} failed: {error}") from None
            finally:
                source.close()
            _sync(temporary)
            if force:
                os.replace(temporary, target)
            else:
                try:  # a link fails if the target appeared meanwhile: never overwritten
                    os.link(temporary, target)
                except FileExistsError:
                    raise BackupError(f"{target} already exists: choose another name") from None
                except OSError:  # a file system without hard links
                    if target.exists():
                        raise BackupError(f"{target} already exists: choose another name") from None
                    os.replace(temporary, target)
            _sync(target.parent)
    finally:
        if lock is not None:
            lock.close()
    return Copied(
        target, games, turns, target.stat().st_size, schema, time.perf_counter() - started
    )


def restore(backup_file: Path, database: Path, *, stamp: Callable[[], str] = _utc_stamp) -> Copied:
    """Replace the SQLite ``database`` by ``backup_file``; refused while anyone has the database
    open. The replaced database is kept as ``<database>.before-restore-<stamp()>``.

    Raises :class:`BackupError` when refused, with nothing changed.
    """
    started = time.perf_counter()
    if not backup_file.is_file():
        raise BackupError(f"there is no backup at {backup_file}")
    if _same_file(backup_file, database):
        raise BackupError(f"{backup_file} is the database itself")
    if not locks_supported():
        raise BackupError("restore needs file locks (flock), which this system lacks")
    if not database.parent.is_dir():
        raise BackupError(f"there is no directory {database.parent}")
    try:
        lock = lock_database(database, exclusive=True)
    except DatabaseLockedError:
        raise BackupError(
            f"{database} is in use (a bot or another tholos-bot command has it open): "
            "stop it, then restore"
        ) from None
    try:
        with _temporary_next_to(database) as temporary:
            try:
                source = _connect_read_only(backup_file)
            except sqlite3.Error as error:
                raise BackupError(f"cannot open the backup {backup_file}: {error}") from None
            try:
                copy = sqlite3.connect(temporary)
                try:
                    try:
                        source.backup(copy)
                    except sqlite3.DatabaseError as error:
                        raise BackupError(
                            f"the backup {backup_file} is damaged or not a SQLite database: {error}"
                        ) from None
                    schema, games, turns = _check(copy, f"the backup {backup_file}", openable=True)
                finally:
                    copy.close()
            finally:
                source.close()
            if database.exists():  # the restored file gets the permissions of the one replaced
                os.chmod(temporary, stat.S_IMODE(database.stat().st_mode))
            _sync(temporary)
            kept = _keep(database, stamp())
            os.replace(temporary, database)
            _sync(database.parent)
    finally:
        if lock is not None:
            lock.close()
    return Copied(
        database,
        games,
        turns,
        database.stat().st_size,
        schema,
        time.perf_counter() - started,
        kept,
    )


def _keep(database: Path, stamp: str) -> Path | None:
    """Move the database (checkpointed first, so that it is one file when it can be) and any
    file of its that remains (``-wal``, ``-shm``, ``-journal``) aside; where to."""
    present = [suffix for suffix in ("", *SIDE_FILES) if Path(f"{database}{suffix}").exists()]
    if not present:
        return None
    if "" in present:
        try:
            connection = sqlite3.connect(database)
            try:
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                connection.close()  # the last connection: SQLite removes -wal and -shm
        except sqlite3.Error:
            pass  # damaged: kept as it is, with its -wal
    kept = Path(f"{database}.before-restore-{stamp}")
    number = 1
    while any(Path(f"{kept}{suffix}").exists() for suffix in ("", *SIDE_FILES)):
        number += 1
        kept = Path(f"{database}.before-restore-{stamp}-{number}")
    for suffix in ("", *SIDE_FILES):
        if Path(f"{database}{suffix}").exists():
            os.replace(f"{database}{suffix}", f"{kept}{suffix}")
    return kept
