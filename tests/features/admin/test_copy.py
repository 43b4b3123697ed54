"""``python -m bot copy-db``: a SQLite history moved into PostgreSQL, ratings and all."""

from __future__ import annotations

import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot.base.game_options import GameOptions
from bot.base.people import Caller, Person
from bot.features.admin import copy
from bot.features.admin.copy import TargetNotEmptyError, copy_database
from bot.features.ratings.rebuild import rebuild_ratings
from bot.storage import open_database
from bot.storage.games.store import GameStore
from tests.databases import services_on

TABLES = ("games", "turns", "challenges", "member_ratings", "server_players")


async def sqlite_history(path: Path, clock) -> None:
    """Six finished games between four players (resignations) and one game still on."""
    database = await open_database(str(path))
    service = services_on(database, clock)
    for number, (white, black) in enumerate([(1, 2), (3, 4), (1, 3), (2, 4), (4, 1), (2, 3)]):
        channel = 100 + number
        made = await service.challenges.challenge(
            guild_id=7,
            channel_id=channel,
            challenger=Person(white, f"p{white}"),
            opponent=Person(black, f"p{black}"),
            options=GameOptions(colour="white", first="me"),
        )
        game = (await service.challenges.answer(made.id, Caller(black, channel), "accept")).game
        assert game is not None
        clock.now += 60
        await service.play.resign(game.id, game.version, Caller(black, channel))
    made = await service.challenges.challenge(
        guild_id=7,
        channel_id=200,
        challenger=Person(1, "p1"),
        opponent=Person(2, "p2"),
        options=GameOptions(),
    )
    await service.challenges.answer(made.id, Caller(2, 200), "accept")
    await database.close()


async def contents(database) -> dict[str, list[tuple]]:
    """Every row of the history tables, in a fixed order, booleans as ints."""
    found = {}
    for table in TABLES:
        rows = await database.fetchall(f"SELECT * FROM {table} ORDER BY 1, 2")
        found[table] = [tuple(int(v) if isinstance(v, bool) else v for v in row) for row in rows]
    return found


async def test_copy_db_copies_one_moment_while_the_bot_goes_on_writing(
    tmp_path, clock, postgres_server, monkeypatch
):
    """The copy reads the source in one snapshot: a game the bot ends while the copy runs ends
    at once (the copy holds no lock the bot waits for) and is not in the copy, which holds the
    history as it was when the copy began, ratings and games agreeing."""
    path = tmp_path / "old.db"
    await sqlite_history(path, clock)
    source = await open_database(str(path))
    bot_side = await open_database(str(path))
    service = services_on(bot_side, clock)
    before = await contents(source)
    snapshot = source.snapshot

    def snapshot_while_a_game_ends():
        @asynccontextmanager
        async def reading():
            async with snapshot() as read:
                game = await GameStore(bot_side).active_game(200)
                await service.play.resign(game.id, game.version, Caller(2, 200))
                yield read

        return reading()

    monkeypatch.setattr(source, "snapshot", snapshot_while_a_game_ends)
    target = await open_database(await postgres_server.create_database())
    await copy_database(source, target)
    assert await contents(target) == before
    after = await contents(bot_side)
    assert after["games"] != before["games"] and after["member_ratings"] != before["member_ratings"]
    for database in (source, bot_side, target):
        await database.close()


async def test_copy_db_moves_everything_and_ratings_rebuild_the_same(
    tmp_path, clock, postgres_server
):
    """Every game, turn, challenge and rating arrives; a rebuild on PostgreSQL gives the same
    ratings; the copy goes on as a live database (new ids follow the copied ones); a second
    copy into the now full database is refused."""
    await sqlite_history(tmp_path / "old.db", clock)
    source = await open_database(str(tmp_path / "old.db"))
    target = await open_database(await postgres_server.create_database())
    copied = await copy_database(source, target)
    assert copied["games"] == 7 and copied["member_ratings"] == 4 and copied["server_players"] == 4
    before = await contents(source)
    assert await contents(target) == before
    await rebuild_ratings(target)
    assert (await contents(target))["member_ratings"] == before["member_ratings"]
    service = services_on(target, clock)
    made = await service.challenges.challenge(
        guild_id=7,
        channel_id=300,
        challenger=Person(3, "p3"),
        opponent=Person(4, "p4"),
        options=GameOptions(),
    )
    game = (await service.challenges.answer(made.id, Caller(4, 300), "accept")).game
    assert game is not None and game.id == 8 and made.id == 8
    with pytest.raises(TargetNotEmptyError):
        await copy_database(source, target)
    await source.close()
    await target.close()


async def test_the_copy_db_command(tmp_path, clock, postgres_server):
    """``python -m bot copy-db SQLITE POSTGRES_URL`` says what it copied, never the password;
    ``rebuild-ratings`` then works on the PostgreSQL database."""
    await sqlite_history(tmp_path / "old.db", clock)
    url = await postgres_server.create_database()
    command = [sys.executable, "-m", "bot", "copy-db", str(tmp_path / "old.db"), url]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "7 games" in done.stdout and "4 member_ratings" in done.stdout
    assert postgres_server.password not in done.stdout + done.stderr
    rebuild = subprocess.run(
        [sys.executable, "-m", "bot", "rebuild-ratings"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "THOLOS_DB": url},
    )
    assert rebuild.returncode == 0, rebuild.stderr
    assert "from 6 rated games" in rebuild.stdout
    assert postgres_server.password not in rebuild.stdout + rebuild.stderr


async def test_every_column_of_every_history_table_is_copied(tmp_path):
    """A column added by a migration but forgotten by ``copy-db`` would be lost silently."""
    database = await open_database(str(tmp_path / "schema.db"))
    try:
        rows = await database.fetchall(
            "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p "
            "WHERE m.type = 'table' AND m.name != 'leases'"
        )
    finally:
        await database.close()
    schema: dict[str, set[str]] = {}
    for table, column in rows:
        schema.setdefault(table, set()).add(column)
    assert {table: set(columns) for table, columns in copy.TABLES} == schema
