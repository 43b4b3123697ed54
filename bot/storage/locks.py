"""Who has a SQLite database open: a ``flock`` on ``<database>.lock`` next to it.

Every process that opens the database through the bot's storage (the bot, ``rebuild-ratings``,
``copy-db``, ``backup``) holds a shared lock on it for as long as it has the database open;
``restore`` takes the exclusive lock, so it runs only when nobody has the database open, and no
bot can start while it runs. The kernel drops a process's locks when it exits, even on
``kill -9``, so a crashed bot never leaves the database "in use". The lock file stays (empty).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

try:
    import fcntl
except ImportError:  # Windows: no flock; the lock is not taken, and restore refuses to run
    fcntl = None


class DatabaseLockedError(Exception):
    """Another process holds a lock on the database that conflicts with the one asked for."""


def lock_path(database: Path | str) -> Path:
    """The lock file of a SQLite database: ``<database>.lock``."""
    return Path(f"{database}.lock")


def locks_supported() -> bool:
    """Whether this system has ``flock`` (every POSIX system; not Windows)."""
    return fcntl is not None


def lock_database(database: Path | str, *, exclusive: bool = False) -> BinaryIO | None:
    """Take the shared (or ``exclusive``) lock of ``database`` without waiting; closing the
    returned file releases it (``None``: no locks on this system).

    Raises :class:`DatabaseLockedError` when another process holds a conflicting lock. A lock
    file that cannot be made (no such directory) is SQLite's error to report: ``None`` too.
    """
    if fcntl is None:
        return None
    try:
        # Made for the bot's user only, as the database (it is empty: a lock is all it holds).
        descriptor = os.open(lock_path(database), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        file = os.fdopen(descriptor, "ab")
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        fcntl.flock(file.fileno(), (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        file.close()
        raise DatabaseLockedError(os.fspath(database)) from None
    except BaseException:
        file.close()
        raise
    return file
