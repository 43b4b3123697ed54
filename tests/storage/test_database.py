"""The database on both backends: migrations, schema guarantees, integrity across a crash;
and what a backend must translate (unique violations, an unreachable server)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncpg
import pytest

from bot.storage import open_database
from bot.storage.db import (
    Database,
    DatabaseTooNewError,
    DatabaseUnavailable,
    UniqueViolation,
    get_meta,
    lock_key,
    scalar,
    set_meta,
)
from bot.storage.migrations import (
    FIRST_SHARED_POSTGRES_VERSION,
    LEGACY_POSTGRES_VERSIONS,
    MIGRATIONS,
    POSTGRES_MIGRATIONS,
    SQLITE_TABLE_REBUILDS,
    postgres_version,
    statements,
)
from engine.ai import LEVELS


async def test_migrations_record_the_schema_version(database):
    """A new database is migrated to the newest schema of its dialect and says so."""
    if database.dialect == "sqlite":
        assert await scalar(database, "PRAGMA user_version") == len(MIGRATIONS)
        assert await scalar(database, "PRAGMA foreign_keys") == 1
        assert await scalar(database, "PRAGMA journal_mode") == "wal"
    else:
        version = await scalar(database, "SELECT version FROM schema_version")
        assert version == len(POSTGRES_MIGRATIONS)


async def columns(database: Database) -> set[tuple[str, str]]:
    """Every ``(table, column)`` of the database's own schema."""
    if database.dialect == "sqlite":
        rows = await database.fetchall(
            "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p "
            "WHERE m.type = 'table'"
        )
    else:
        rows = await database.fetchall(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = 'public' AND table_name != 'schema_version'"
        )
    return {(table, column) for table, column in rows}


async def test_both_dialects_have_the_same_tables_and_columns(tmp_path, postgres_server):
    """The PostgreSQL migrations build exactly the tables and columns, by name, that the SQLite
    ones build."""
    sqlite = await open_database(str(tmp_path / "tholos.db"))
    postgres = await open_database(await postgres_server.create_database())
    try:
        in_sqlite, in_postgres = await columns(sqlite), await columns(postgres)
    finally:
        await sqlite.close()
        await postgres.close()
    assert ("games", "rated_seq") in in_sqlite and ("member_ratings", "volatility") in in_sqlite
    assert in_postgres - in_sqlite == set(), "only in PostgreSQL"
    assert in_sqlite - in_postgres == set(), "only in SQLite"


async def test_reopening_does_not_migrate_twice(database_url):
    """Opening an up-to-date database changes nothing."""
    first = await open_database(database_url)
    await set_meta(first, "k", "v")
    await first.close()
    second = await open_database(database_url)
    assert await get_meta(second, "k") == "v"
    await second.close()


@contextmanager
def at_schema(path: Path, version: int) -> Iterator[sqlite3.Connection]:
    """A SQLite file at schema ``version`` (migrated as the bot of that version left it), open
    for rows to be added; committed and closed after."""
    connection = sqlite3.connect(path)
    try:
        with connection:
            connection.execute("PRAGMA foreign_keys = ON")
            for number, script in enumerate(MIGRATIONS[:version], start=1):
                for statement in statements(script):
                    connection.execute(statement)
                connection.execute(f"PRAGMA user_version = {number}")
            yield connection
    finally:
        connection.close()


async def test_rebuilding_the_games_table_keeps_every_game_and_turn(tmp_path):
    """A SQLite database of schema 5 with games, turns and a challenge pointing at a game
    opens at the newest schema with every row kept (no cascade from the rebuilt table), its
    indexes back, and the new status allowed."""
    path = tmp_path / "old.sqlite"
    with at_schema(path, 5) as connection:
        for game_id, status in ((1, "active"), (2, "finished")):
            finished = status == "finished"
            connection.execute(
                "INSERT INTO games (id, guild_id, channel_id, white_id, black_id, white_name, "
                "black_name, mode, seed, start_position, position, status, result, reason, "
                "created_at, updated_at, last_move_at, parent_id) "
                "VALUES (?, 1, ?, 100, 200, 'A', 'B', 'basic', 7, 's', 'p', ?, ?, ?, 0, 0, 0, 9)",
                (
                    game_id,
                    10 + game_id,
                    status,
                    "white" if finished else None,
                    "points" if finished else None,
                ),
            )
            connection.execute("INSERT INTO turns VALUES (?, 1, 100, 't', 'p', 0)", (game_id,))
        connection.execute(
            "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, "
            "challenger_name, opponent_name, mode, ornaments, colour, first, status, "
            "created_at, expires_at, game_id) "
            "VALUES (1, 10, 100, 200, 'A', 'B', 'basic', 0, 'random', 'random', 'accepted', "
            "0, 0, 2)"
        )
    assert 6 in SQLITE_TABLE_REBUILDS
    database = await open_database(str(path))
    try:
        assert await scalar(database, "PRAGMA user_version") == len(MIGRATIONS)
        assert await scalar(database, "PRAGMA foreign_keys") == 1
        assert await database.fetchall("PRAGMA foreign_key_check") == []
        games = await database.fetchall("SELECT id, status, ended_by FROM games ORDER BY id")
        assert [tuple(row) for row in games] == [(1, "active", None), (2, "finished", None)]
        assert await scalar(database, "SELECT COUNT(*) FROM turns") == 2
        assert await scalar(database, "SELECT game_id FROM challenges") == 2
        indexes = await database.fetchall(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'games' "
            "AND sql IS NOT NULL"
        )
        assert len(indexes) == 10  # the rebuild's 7, 9's reminders, 12's flags, 14's finished
        async with database.transaction() as transaction:
            await transaction.execute(
                "UPDATE games SET status = 'aborted', ended_by = 300 WHERE id = 1"
            )
        with pytest.raises(sqlite3.IntegrityError):
            async with database.transaction() as transaction:
                await transaction.execute("UPDATE games SET status = 'aborted' WHERE id = 2")
    finally:
        await database.close()


async def test_a_schema_21_sqlite_database_keeps_every_value_of_its_games(tmp_path):
    """Migration 22 rebuilds SQLite's games table for the AI's six levels: a game whose every
    column but one holds a value comes through equal, with its turns, and every index is back."""
    path = tmp_path / "schema21.sqlite"
    with at_schema(path, 21) as connection:
        names = [row[1] for row in connection.execute("PRAGMA table_info(games)")]
        indexes = connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'games' "
            "AND sql IS NOT NULL ORDER BY name"
        ).fetchall()
        values = {name: index + 1 for index, name in enumerate(names)} | {
            "mode": "basic",
            "status": "aborted",
            "result": "white",
            "reason": None,  # the one column a CHECK keeps empty (aborted, with a result)
            "rated": 1,
            "ai_level": "hard",
            "language": "de",
            "hints": 1,
            "venue": "bot_dm",
            "pool": 0,
            "black_id": 1000,
        }
        connection.execute(
            f"INSERT INTO games ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
            [values[name] for name in names],
        )
        connection.execute("INSERT INTO turns VALUES (1, 1, 2, 't', 'p', 0, NULL)")
        kept = connection.execute("SELECT * FROM games").fetchone()
    assert 22 in SQLITE_TABLE_REBUILDS
    database = await open_database(str(path))
    try:
        assert await scalar(database, "PRAGMA user_version") == len(MIGRATIONS)
        assert tuple(await database.fetchone("SELECT * FROM games")) == kept
        assert await scalar(database, "SELECT COUNT(*) FROM turns") == 1
        rebuilt = await database.fetchall(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'games' "
            "AND sql IS NOT NULL ORDER BY name"
        )
        assert [tuple(row) for row in rebuilt] == indexes
    finally:
        await database.close()


@pytest.mark.parametrize("level", [*LEVELS, "grandmaster"])
async def test_a_game_is_stored_at_each_level_of_the_ai_and_no_other(database, level):
    """games.ai_level takes the engine's levels, and refuses a name it doesn't know."""
    insert = (
        "INSERT INTO games (guild_id, channel_id, white_id, black_id, white_name, black_name, "
        "mode, seed, start_position, position, created_at, updated_at, last_move_at, ai_level) "
        "VALUES (1, 2, 3, 4, 'A', 'B', 'basic', 5, 's', 'p', 0, 0, 0, ?)"
    )
    if level in LEVELS:
        async with database.transaction() as transaction:
            await transaction.execute(insert, (level,))
        assert await scalar(database, "SELECT ai_level FROM games") == level
    else:
        with pytest.raises((sqlite3.IntegrityError, asyncpg.CheckViolationError)):
            async with database.transaction() as transaction:
                await transaction.execute(insert, (level,))


async def test_a_newer_sqlite_database_is_refused(tmp_path):
    """The bot refuses to run on a SQLite schema it doesn't know."""
    path = tmp_path / "future.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(DatabaseTooNewError, match="upgrade the bot"):
        await open_database(str(path))


async def test_a_newer_postgres_database_is_refused(postgres_server):
    """The bot refuses to run on a PostgreSQL schema it doesn't know."""
    url = await postgres_server.create_database()
    database = await open_database(url)
    async with database.transaction() as transaction:
        await transaction.execute("UPDATE schema_version SET version = version + 1")
    await database.close()
    with pytest.raises(DatabaseTooNewError, match="upgrade the bot"):
        await open_database(url)


def test_both_dialects_share_one_numbering():
    """Migration n is ``MIGRATIONS[n - 1]`` and ``POSTGRES_MIGRATIONS[n - 1]``; an old
    PostgreSQL number k is the k-th migration with a PostgreSQL script; the numbers this code
    records in PostgreSQL never meet the old ones."""
    assert len(MIGRATIONS) == len(POSTGRES_MIGRATIONS)
    assert all(script for script in MIGRATIONS)
    with_a_script = [n for n, script in enumerate(POSTGRES_MIGRATIONS, 1) if script is not None]
    reached = [following - 1 for following in [*with_a_script[1:], len(MIGRATIONS) + 1]]
    assert dict(enumerate(reached[:7], 1)) == LEGACY_POSTGRES_VERSIONS  # after k scripts
    assert max(LEGACY_POSTGRES_VERSIONS) < FIRST_SHARED_POSTGRES_VERSION <= len(MIGRATIONS)
    assert [postgres_version(k) for k in (0, 1, 7, 9, 12)] == [0, 3, 9, 9, 12]
    with pytest.raises(ValueError, match="no release"):
        postgres_version(8)


async def postgres_schema(url: str) -> dict[str, set[tuple[object, ...]]]:
    """Every column (with its type, default and nullability), index and constraint."""
    connection = await asyncpg.connect(url)
    try:
        queries = {
            "columns": "SELECT table_name, column_name, data_type, column_default, is_nullable "
            "FROM information_schema.columns WHERE table_schema = 'public'",
            "indexes": "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'",
            "constraints": "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) "
            "FROM pg_constraint WHERE connamespace = 'public'::regnamespace",
        }
        return {
            kind: {tuple(row) for row in await connection.fetch(sql)}
            for kind, sql in queries.items()
        }
    finally:
        await connection.close()


@pytest.mark.parametrize("recorded", sorted(LEGACY_POSTGRES_VERSIONS))
async def test_a_postgres_database_numbered_the_old_way_migrates_forward(postgres_server, recorded):
    """A PostgreSQL database migrated by an older bot (its own numbering: 1-7, migration by
    migration) opens at the newest version in the shared numbering, its rows kept, with
    exactly the schema of a new database."""
    url = await postgres_server.create_database()
    old = [script for script in POSTGRES_MIGRATIONS if script is not None][:recorded]
    connection = await asyncpg.connect(url)
    try:
        await connection.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        await connection.execute("INSERT INTO schema_version VALUES (0)")
        for number, script in enumerate(old, 1):
            async with connection.transaction():
                for statement in statements(script):
                    await connection.execute(statement)
                await connection.execute("UPDATE schema_version SET version = $1", number)
        await connection.execute("INSERT INTO meta (key, value) VALUES ('kept', 'yes')")
    finally:
        await connection.close()
    database = await open_database(url)
    try:
        assert await scalar(database, "SELECT version FROM schema_version") == len(MIGRATIONS)
        assert await get_meta(database, "kept") == "yes"
    finally:
        await database.close()
    fresh = await postgres_server.create_database()
    await (await open_database(fresh)).close()
    assert await postgres_schema(url) == await postgres_schema(fresh)


async def test_schema_allows_one_active_game_per_channel(database):
    """The partial unique index refuses a second active game in a channel, on both backends
    as the same error."""
    row = (1, 10, 100, 200, "a", "b", "basic", 1, "-", "-", 0.0, 0.0, 0.0)
    sql = (
        "INSERT INTO games (guild_id, channel_id, white_id, black_id, white_name, black_name, "
        "mode, seed, start_position, position, created_at, updated_at, last_move_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    async with database.transaction() as transaction:
        await transaction.execute(sql, row)
    with pytest.raises(UniqueViolation):
        async with database.transaction() as transaction:
            await transaction.execute(sql, row)
    assert await scalar(database, "SELECT COUNT(*) FROM games") == 1


async def test_a_failed_transaction_leaves_nothing(database):
    """A transaction that raises is rolled back whole."""
    with pytest.raises(RuntimeError):
        async with database.transaction() as transaction:
            await transaction.execute("INSERT INTO meta (key, value) VALUES ('a', 'b')")
            raise RuntimeError("crash mid-transaction")
    assert await get_meta(database, "a") is None


async def test_reads_hold_up_no_write_and_wait_only_for_ordered_ones(database):
    """Two snapshots (reads of one moment, held open) run at once, and a write commits while
    one is still open: it still sees the database as it was. A read asked for once an ordered
    write has begun waits for it and sees it; a read never waits for any other write, even one
    held open."""
    await set_meta(database, "colour", "white")
    sql = "SELECT value FROM meta WHERE key = 'colour'"

    async def ordered(value: str) -> None:
        async with database.transaction(ordered=True) as transaction:
            await transaction.execute("UPDATE meta SET value = ? WHERE key = 'colour'", (value,))

    async with asyncio.timeout(30):  # a read that held up a write, or waited for it, never ends
        async with database.snapshot() as first:
            async with database.snapshot() as second:
                assert [await scalar(first, sql), await scalar(second, sql)] == ["white"] * 2
            writing = asyncio.ensure_future(ordered("black"))
            await asyncio.sleep(0)  # one turn of the loop: the ordered write has begun
            assert await get_meta(database, "colour") == "black"
            await writing
            assert await scalar(first, sql) == "white"
        async with database.transaction() as transaction:
            await transaction.execute("UPDATE meta SET value = 'green' WHERE key = 'colour'")
            assert await get_meta(database, "colour") == "black"  # not waiting: not ordered
    assert await get_meta(database, "colour") == "green"


async def test_an_unreachable_postgres_is_reported_without_its_password(postgres_server):
    """Nothing listening: DatabaseUnavailable, and the message hides the password."""
    url = postgres_server.url("nothing").replace(str(postgres_server.port), "1")
    with pytest.raises(DatabaseUnavailable) as raised:
        await open_database(url)
    assert postgres_server.password not in str(raised.value)
    assert ":***@" in str(raised.value)


def test_lock_keys_are_32_bit_and_tell_scopes_apart():
    """Advisory-lock keys fit PostgreSQL's two int4 arguments for any snowflake."""
    for key in (0, 1, 2**63 - 1, 1234567890123456789):
        for part in lock_key("channel", key):
            assert -(2**31) <= part < 2**31
    assert lock_key("channel", 5) != lock_key("ratings", 5)
