"""Maintenance while the bot plays: ``python -m bot rebuild-ratings`` beside random clicking and
games being resigned, on both backends. No press is lost or answered late, the games that end
during a rebuild are rated, and the result equals a rebuild with the bot stopped."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

import aiohttp
import pytest

from bot.storage import open_database
from engine import Position
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator, RandomPlayer
from tests.e2e.table import Table, path_of
from tests.e2e.test_metrics import samples, total
from tests.e2e.test_random_play import no_failures
from tests.features.admin.test_e2e_backup import tholos_bot_command
from tests.features.ratings.test_e2e import resign_game
from tests.history import assert_same_ratings, replayed_by_hand, stored_ratings, write_history

BUSY = "My database is busy for a moment"
HISTORY_GAMES = 20_000
HISTORY_PLAYERS = 2_000
MOST_REBUILDS = 15
_REPORT = re.compile(
    r"from (\d+) rated games .* \((\d+) finished during the rebuild\); (\d+) rows changed, "
    r"the longest write took (\d+) ms"
)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_rebuilds_beside_random_play_lose_no_press_and_equal_a_rebuild_at_rest(
    emulator: Emulator,
    spawn_bot: SpawnBot,
    tmp_path: Path,
    backend: str,
    seed: int,
    request: pytest.FixtureRequest,
) -> None:
    """A history of 20,000 rated games whose ratings are missing; the bot runs; a random player
    clicks in one channel while two members play and resign game after game in another, and
    ``rebuild-ratings`` runs again and again beside them until a rebuild has caught up games
    that ended while it ran. Every interaction is answered in time, none failed; the ratings
    then equal Glicko-2 over the whole history, and a rebuild with the bot stopped changes
    nothing."""
    if backend == "sqlite":
        url = str(tmp_path / "tholos.db")
    else:
        url = await request.getfixturevalue("postgres_server").create_database()
    await large_history(url, emulator)
    env = {"THOLOS_THREADS": "off", "THOLOS_DB": url}
    bot = spawn_bot(emulator, "bot", db_path=Path(url) if backend == "sqlite" else None, env=env)
    await bot.start(sync=True)

    # No admin among them: an admin's random /tholos-admin settings could put the games of
    # the table beside them in threads, where that table does not look for its boards.
    people = [emulator.member("bob"), emulator.member("carol"), emulator.add_person("gina")]
    player = RandomPlayer(  # no settling between steps: the games beside it keep the bot busy
        emulator, people, emulator.channel("general"), seed=seed, command_rate=0.2
    )
    resigning = Table(emulator, "games")
    dave, erin = emulator.add_person("dave"), emulator.add_person("erin")
    rebuilding = asyncio.Event()
    resigned = 0

    async def resign_games() -> None:
        nonlocal resigned
        while rebuilding.is_set():
            await resign_game(resigning, dave, erin, (dave, erin)[resigned % 2])
            resigned += 1

    async def rebuild_until_one_catches_up() -> list[tuple[int, int, int, int]]:
        reports = []
        while len(reports) < MOST_REBUILDS:
            status, out, err = await tholos_bot_command(tmp_path, url, "rebuild-ratings")
            assert status == 0, err
            found = _REPORT.search(out)
            assert found, out
            reports.append(tuple(int(number) for number in found.groups()))
            if reports[-1][1] > 0:
                break
        rebuilding.clear()
        return reports

    rebuilding.set()
    made, _, reports = await asyncio.gather(
        player.play(40), resign_games(), rebuild_until_one_catches_up()
    )
    no_failures(emulator, made, player)
    resigning.assert_clean()
    assert resigned >= 1
    assert reports[-1][1] > 0, f"no rebuild overlapped a game's end: {reports}"
    assert all(games >= HISTORY_GAMES for games, *_ in reports)
    assert reports[0][2] >= HISTORY_PLAYERS  # the first rebuild wrote every missing rating
    await bot.settle()
    assert await bot.stop() == 0
    bot.assert_clean_log()

    database = await open_database(url)
    try:
        stored = await stored_ratings(database)
        assert_same_ratings(stored, await replayed_by_hand(database))
        finished = await database.fetchone(
            "SELECT COUNT(*) FROM games WHERE status = 'finished' AND rated"
        )
    finally:
        await database.close()
    status, out, err = await tholos_bot_command(tmp_path, url, "rebuild-ratings")
    assert status == 0, err
    games, during, changed, _ = (int(n) for n in _REPORT.search(out).groups())
    assert (games, during, changed) == (finished[0], 0, 0)
    assert password_free(out + err, url)


async def large_history(url: str, emulator: Emulator) -> None:
    """:data:`HISTORY_GAMES` rated games (no turns) between :data:`HISTORY_PLAYERS` players of
    the emulator's guild, their ratings missing, in the database at ``url``."""
    database = await open_database(url)
    try:
        await write_history(
            database,
            games=HISTORY_GAMES,
            players=HISTORY_PLAYERS,
            guild_id=emulator.guild.id,
            channel_id=emulator.channel("games").id,
            with_turns=False,
        )
    finally:
        await database.close()


def games_in(said: str) -> int:
    """The games ``backup`` or ``restore`` says it copied."""
    found = re.search(r": (\d+) games, ", said)
    assert found, said
    return int(found.group(1))


def password_free(text: str, url: str) -> bool:
    """Whether ``text`` keeps the database password (if any) out."""
    found = re.match(r"postgres(?:ql)?://[^:]+:([^@]+)@", url)
    return found is None or found.group(1) not in text


async def test_a_press_that_meets_a_busy_database_hears_so_in_time_and_loses_nothing(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """Another process holds SQLite's write lock (as a long maintenance job would): the press
    that would store a turn is answered in time with a polite "busy, try again", the game as
    it was and the board still at that last step; once the lock is free, pressing the same
    button again stores the turn."""
    bot = spawn_bot(emulator, env={"THOLOS_THREADS": "off"})
    await bot.start(sync=True)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await table.start_game(alice, bob)
    await table.play("w@D")
    board, before = table.board, table.position()
    holder = sqlite3.connect(bot.db_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        press = await table.click_path(bob, board, path_of(before, "+b1"))
        assert press.acknowledged and not press.failed
        assert any(BUSY in text for text in table.ephemeral(bob))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert table.board.id == board.id and table.position() == before
    again = await table.click(bob, board, table.custom_id(board, ":Tb1:n"))  # the same press
    assert again.acknowledged
    await emulator.wait_for(lambda: table.board.id != board.id, what="the board after the turn")
    assert table.position() == before.apply("+b1")
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_a_hosts_night_rebuild_and_backup_beside_play_and_kill_9(
    emulator: Emulator, spawn_bot: SpawnBot, tmp_path: Path, seed: int
) -> None:
    """What a host does while members play on a large history: ``rebuild-ratings`` and
    ``backup`` beside a random player, the bot killed with SIGKILL and started again, metrics
    and health read over HTTP. Then, the bot stopped: every stored turn follows from the one
    before by a legal turn, the ratings equal Glicko-2 over the history (a rebuild at rest
    changes nothing), and the backup restores into a database that holds the history."""
    db_path = tmp_path / "tholos.db"
    await large_history(str(db_path), emulator)
    bot = spawn_bot(emulator, db_path=db_path, env={"THOLOS_THREADS": "off"})
    await bot.start(sync=True)
    people = [emulator.member(name) for name in ("alice", "bob", "carol")]
    player = RandomPlayer(
        emulator,
        people,
        emulator.channel("general"),
        seed=seed,
        command_rate=0.2,
        settle=bot.settle,
    )

    async def host(*command: str) -> str:
        status, out, err = await tholos_bot_command(tmp_path, db_path, *command)
        assert status == 0, err
        return out

    made, rebuilt, backed_up = await asyncio.gather(
        player.play(30), host("rebuild-ratings"), host("backup", str(tmp_path / "backup.db"))
    )
    no_failures(emulator, made, player)
    assert int(_REPORT.search(rebuilt).group(1)) >= HISTORY_GAMES
    assert games_in(backed_up) >= HISTORY_GAMES
    await bot.settle()
    assert await bot.kill() == -9
    await bot.start()
    made, _ = await asyncio.gather(player.play(20), host("rebuild-ratings"))
    no_failures(emulator, made, player)
    await bot.settle()
    metrics_url = await bot.metrics_url()
    async with aiohttp.ClientSession() as http:
        async with http.get(metrics_url.replace("/metrics", "/healthz")) as response:
            assert response.status == 200 and (await response.json())["database"] == "ok"
        async with http.get(metrics_url) as response:
            assert response.status == 200
            metrics = samples(await response.text())
    assert total(metrics, "tholos_interactions_total", outcome="error") == 0
    assert total(metrics, "tholos_interactions_total", outcome="ok") > 0
    assert await bot.stop() == 0
    bot.assert_clean_log()

    database = await open_database(str(db_path))
    try:
        for game in await database.fetchall("SELECT id, start_position, position FROM games"):
            turns = await database.fetchall(
                "SELECT turn, position_after FROM turns WHERE game_id = ? ORDER BY ply", (game[0],)
            )
            position = Position.parse(game[1])
            for turn, after in turns:
                position = position.apply(turn)  # raises if the stored turn is illegal
                assert str(position) == after
            if turns:
                assert str(position) == game[2]
        assert_same_ratings(await stored_ratings(database), await replayed_by_hand(database))
    finally:
        await database.close()
    assert "; 0 rows changed" in await host("rebuild-ratings")
    restored = await host("restore", str(tmp_path / "backup.db"))
    assert games_in(restored) == games_in(backed_up)
    database = await open_database(str(db_path))
    try:
        games = (await database.fetchone("SELECT COUNT(*) FROM games"))[0]
        assert (
            games >= HISTORY_GAMES
            and (await database.fetchone("PRAGMA integrity_check"))[0] == "ok"
        )
    finally:
        await database.close()
