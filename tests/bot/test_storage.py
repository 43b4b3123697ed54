"""The database: migrations, schema guarantees, and integrity across a crash."""

from __future__ import annotations

import sqlite3

import pytest

from bot.storage import Database, DatabaseTooNewError
from bot.storage.migrations import MIGRATIONS


async def test_migrations_record_the_schema_version(database):
    """A new database is migrated to the newest schema and says so."""
    assert await database.scalar("PRAGMA user_version") == len(MIGRATIONS)
    assert await database.scalar("PRAGMA foreign_keys") == 1
    assert await database.scalar("PRAGMA journal_mode") == "wal"


async def test_reopening_does_not_migrate_twice(tmp_path):
    """Opening an up-to-date database changes nothing."""
    first = await Database.open(tmp_path / "db.sqlite")
    await first.set_meta("k", "v")
    await first.close()
    second = await Database.open(tmp_path / "db.sqlite")
    assert await second.get_meta("k") == "v"
    await second.close()


async def test_a_newer_database_is_refused(tmp_path):
    """The bot refuses to run on a schema it doesn't know."""
    path = tmp_path / "future.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(DatabaseTooNewError, match="upgrade the bot"):
        await Database.open(path)


async def test_schema_allows_one_active_game_per_channel(database):
    """The partial unique index refuses a second active game in a channel."""
    row = ("1", "10", "100", "200", "a", "b", "basic", "1", "-", "-", "0", "0", "0")
    sql = (
        "INSERT INTO games (guild_id, channel_id, white_id, black_id, white_name, black_name, "
        "mode, seed, start_position, position, created_at, updated_at, last_move_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    async with database.transaction() as connection:
        await connection.execute(sql, row)
    with pytest.raises(sqlite3.IntegrityError):
        async with database.transaction() as connection:
            await connection.execute(sql, row)
    assert await database.scalar("SELECT COUNT(*) FROM games") == 1


async def test_a_failed_transaction_leaves_nothing(database):
    """A transaction that raises is rolled back whole."""
    with pytest.raises(RuntimeError):
        async with database.transaction() as connection:
            await connection.execute("INSERT INTO meta (key, value) VALUES ('a', 'b')")
            raise RuntimeError("crash mid-transaction")
    assert await database.get_meta("a") is None
