"""Migration 19 on a database of schema 18 with per-server ratings: the rated games' players on
their servers' boards, the old table gone, and the replay at start of every stored rated game,
in rating order, into the two pools — once, however many processes start at once — equal to
the tests' own Glicko-2 over the stored games."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import asyncpg
import pytest

from bot.features.ratings.feature import Ratings
from bot.features.ratings.rebuild import REPLAY_KEY, replay_if_asked
from bot.storage import open_database
from bot.storage.db import get_meta, scalar
from bot.storage.migrations import MIGRATIONS, POSTGRES_MIGRATIONS, statements
from tests.discord_fakes import Wired, fake_app
from tests.history import assert_rated_as_by_hand

DAY = 86400.0
GAMES = [
    # guild, white, black, result, finished_at, time_control, rated, ai_level, rated_seq
    (1, 100, 200, "white", 10 * DAY, None, True, None, 1),
    (2, 100, 200, "black", 11 * DAY, None, True, None, 2),
    (2, 200, 300, "draw", 11 * DAY + 60, "5+5", True, None, 3),
    (1, 300, 100, "white", 90 * DAY, "5+5", True, None, 5),
    (1, 100, 300, "black", 30 * DAY, None, True, None, 4),  # rated before the one above
    (1, 100, 999, "white", 31 * DAY, None, False, "hard", None),  # against the AI: unrated
    (0, 100, 400, "white", 32 * DAY, None, False, None, None),  # a DM between members
]
COLUMNS = (
    "guild_id, white_id, black_id, result, finished_at, time_control, rated, ai_level, "
    "rated_seq, channel_id, white_name, black_name, mode, seed, start_position, position, "
    "status, reason, created_at, updated_at, last_move_at, venue"
)


def rows() -> list[tuple]:
    """The games' rows in :data:`COLUMNS`' order (the rest of each row alike)."""
    return [
        (*game, 10 + number, "W", "B", "basic", 7, "s", "p", "finished", "points", 0, 0, 0, venue)
        for number, game in enumerate(GAMES)
        for venue in ["server" if game[0] else "dm"]
    ]


def sqlite_at_18(path: Path) -> None:
    """A SQLite database of schema 18 holding :data:`GAMES` and per-server ratings."""
    with sqlite3.connect(path) as connection:
        for number, script in enumerate(MIGRATIONS[:18], start=1):
            for statement in statements(script):
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {number}")
        marks = ", ".join("?" for _ in COLUMNS.split(", "))
        connection.executemany(f"INSERT INTO games ({COLUMNS}) VALUES ({marks})", rows())
        connection.execute(
            "INSERT INTO ratings VALUES (1, 100, 1234, 80, 0.06, 3, 1, 2, 0, 0), "
            "(2, 100, 1700, 90, 0.06, 2, 2, 0, 0, 0)"
        )


async def postgres_at_18(url: str) -> None:
    """The same on PostgreSQL."""
    connection = await asyncpg.connect(url)
    try:
        await connection.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        await connection.execute("INSERT INTO schema_version VALUES (18)")
        for script in POSTGRES_MIGRATIONS[:18]:
            for statement in statements(script or ""):
                await connection.execute(statement)
        marks = ", ".join(f"${n}" for n in range(1, len(COLUMNS.split(", ")) + 1))
        await connection.executemany(f"INSERT INTO games ({COLUMNS}) VALUES ({marks})", rows())
        await connection.execute(
            "INSERT INTO ratings VALUES (1, 100, 1234, 80, 0.06, 3, 1, 2, 0, 0), "
            "(2, 100, 1700, 90, 0.06, 2, 2, 0, 0, 0)"
        )
    finally:
        await connection.close()


@pytest.fixture(params=["sqlite", "postgresql"])
async def old_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database of schema 18 with rated games and per-server ratings."""
    if request.param == "sqlite":
        sqlite_at_18(tmp_path / "old.db")
        return str(tmp_path / "old.db")
    url = await request.getfixturevalue("postgres_server").create_database()
    await postgres_at_18(url)
    return url


async def test_migration_19_replays_the_stored_games_into_the_pools_once(old_url: str):
    """Migrated: the old ratings are gone, the pools empty, the rated games' players on the
    boards of the servers they played on, and a replay asked. Three processes start at once:
    one replays (the games in rating order, both pools), the others find nothing asked; the
    ratings are the paper's over the stored games; a later start replays nothing."""
    database = await open_database(old_url)
    try:
        assert await scalar(database, "SELECT COUNT(*) FROM member_ratings") == 0
        servers = await database.fetchall("SELECT guild_id, user_id FROM server_players")
        assert sorted(tuple(row) for row in servers) == [
            (guild, user) for guild in (1, 2) for user in (100, 200, 300)
        ]
        assert await get_meta(database, REPLAY_KEY) == "19"
        with pytest.raises(Exception, match="ratings"):
            await database.fetchall("SELECT * FROM ratings")
        others = [await open_database(old_url) for _ in range(2)]
        replays = await asyncio.gather(
            Wired(fake_app(database))[Ratings].start(),
            *(replay_if_asked(other) for other in others),
        )
        for other in others:
            await other.close()
        assert sorted(replays[1:], key=str) in ([None, None], [5, None])
        assert await get_meta(database, REPLAY_KEY) is None
        await assert_rated_as_by_hand(database)
        pools = await database.fetchall(
            "SELECT pool, user_id, games FROM member_ratings ORDER BY pool, user_id"
        )
        assert [tuple(row) for row in pools] == [
            ("correspondence", 100, 3),
            ("correspondence", 200, 2),
            ("correspondence", 300, 1),
            ("live", 100, 1),
            ("live", 200, 1),
            ("live", 300, 2),
        ]
        assert await replay_if_asked(database) is None
    finally:
        await database.close()


async def test_a_new_database_asks_for_no_replay(database):
    """Without rated games there is nothing to replay."""
    assert await get_meta(database, REPLAY_KEY) is None
    assert await replay_if_asked(database) is None
