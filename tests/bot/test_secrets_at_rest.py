"""Secrets at rest: the SQLite file (which holds the key that signs the live board's sessions)
and its ``-wal`` and ``-shm`` readable by their owner only."""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.storage import open_database, set_meta

COMPANIONS = ("", "-wal", "-shm")


def modes(path: Path) -> dict[str, int]:
    return {suffix: stat.S_IMODE(os.stat(f"{path}{suffix}").st_mode) for suffix in COMPANIONS}


@pytest.fixture
def lax_umask() -> Iterator[None]:
    """A umask that lets others read new files (the usual 022)."""
    before = os.umask(0o022)
    yield
    os.umask(before)


@pytest.mark.usefixtures("lax_umask")
async def test_a_new_database_and_its_wal_and_shm_are_its_owners_only(tmp_path):
    path = tmp_path / "tholos.db"
    database = await open_database(str(path))
    try:
        await set_meta(database, "written", "yes")  # the -wal and -shm exist once it writes
        assert modes(path) == {"": 0o600, "-wal": 0o600, "-shm": 0o600}
    finally:
        await database.close()


@pytest.mark.usefixtures("lax_umask")
async def test_a_database_others_could_read_is_tightened_with_a_word(tmp_path, caplog):
    path = tmp_path / "tholos.db"
    made = sqlite3.connect(path)  # a bot before this one made it 0644, its -wal and -shm too
    made.execute("PRAGMA journal_mode = WAL")
    made.execute("CREATE TABLE kept (x)")
    made.execute("INSERT INTO kept VALUES (1)")
    made.commit()
    for suffix in COMPANIONS:
        os.chmod(f"{path}{suffix}", 0o644)
    with caplog.at_level(logging.WARNING, logger="bot.storage.sqlite"):
        database = await open_database(str(path))
    made.close()
    try:
        assert modes(path) == {"": 0o600, "-wal": 0o600, "-shm": 0o600}
        warned = [record.getMessage() for record in caplog.records]
        assert len(warned) == 3 and all("was readable by others (mode 644)" in w for w in warned)
        assert (await database.fetchone("SELECT x FROM kept"))[0] == 1
    finally:
        await database.close()
