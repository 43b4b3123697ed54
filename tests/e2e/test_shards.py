"""Two bot processes as two shards on one PostgreSQL, through the emulator: games in two
servers at once, ``kill -9`` of a process after a stored turn, another process taking over its
shard, presses during the handoff. Afterwards the database is read directly."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import asyncpg

from engine import Position
from engine.builder import TurnBuilder, chosen_path
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.table import FOOTER, Table, board_part, press_paths
from tests.postgres import PostgresServer

SHARDS = 2


def shard_env(url: str, shard: int) -> dict[str, str]:
    """The environment of the process that runs ``shard`` of :data:`SHARDS`."""
    return {"THOLOS_DB": url, "THOLOS_SHARD_COUNT": str(SHARDS), "THOLOS_SHARD_IDS": str(shard)}


async def shard_bots(
    emulator: Emulator, spawn_bot: SpawnBot, url: str, env: dict[str, str] | None = None
) -> list[BotProcess]:
    """A bot process for each shard on the database ``url`` (with ``env`` added), started:
    shard 0's registers the commands, and is connected first."""
    bots = [
        spawn_bot(emulator, env=shard_env(url, shard) | (env or {}), guild_commands=False)
        for shard in range(SHARDS)
    ]
    await bots[0].start(sync=True)
    await bots[1].start()
    return bots


def path_turn(position: Position, path: str):
    """The turn a complete button path builds."""
    turn = TurnBuilder(position, tuple(path)).turn
    assert turn is not None
    return turn


def a_turn(position: Position) -> str:
    """The button path of a legal turn, skipping a bonus it could use (so that it completes on
    its last press)."""
    return "".join(chosen_path(position, position.legal_turns()[0]))


async def check_database(url: str) -> dict[int, int]:
    """Every game's turns are numbered 1..n without a gap, and replaying them from the start
    position gives the stored position; returns the plies of each game."""
    connection = await asyncpg.connect(url)
    try:
        games = await connection.fetch("SELECT id, start_position, position, plies FROM games")
        plies = {}
        for game in games:
            turns = await connection.fetch(
                "SELECT ply, turn, position_after FROM turns WHERE game_id = $1 ORDER BY ply",
                game["id"],
            )
            assert [row["ply"] for row in turns] == list(range(1, game["plies"] + 1))
            position = Position.parse(game["start_position"])
            for row in turns:
                position = position.apply(row["turn"])
                assert str(position) == row["position_after"]
            assert str(position) == game["position"]
            plies[game["id"]] = game["plies"]
        return plies
    finally:
        await connection.close()


def one_board_per_ply(table: Table, asked_again: int = 0) -> None:
    """No board was posted twice for the same state of its game (the small print's ply), but for
    the ``asked_again`` boards a player asked for with ``/tholos board``."""
    shown = Counter(board_part(board, FOOTER) for board in table.boards())
    assert sum(count - 1 for count in shown.values()) == asked_again, shown


async def test_two_shards_in_two_processes_share_one_postgres(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer
):
    """Each process serves the server of its shard; one registers the commands; a kill -9
    after a stored turn and a new process for that shard lose nothing and post nothing twice;
    presses while the old process drains are answered; a double press stores one turn."""
    url = await postgres_server.create_database()
    guilds = [emulator.add_guild(f"Shard {shard}", shard=(shard, SHARDS)) for shard in (0, 1)]
    first = spawn_bot(emulator, env=shard_env(url, 0), guild_commands=False)
    second = spawn_bot(emulator, env=shard_env(url, 1), guild_commands=False)
    await first.start(sync=True)
    await second.start()
    assert emulator.command_syncs == 1, "only shard 0's process registers the commands"
    for shard, guild in enumerate(guilds):
        sessions = emulator.gateway.sessions_for(guild.id)
        assert [session.shard for session in sessions] == [[shard, SHARDS]]
    tables = [Table(emulator, "games", guild=guild) for guild in guilds]
    alice, bob = tables[0].people_named("alice", "bob")
    await asyncio.gather(*(table.start_game(alice, bob) for table in tables))
    for turn in ("+w1", "+b1"):
        await asyncio.gather(*(table.play(turn) for table in tables))

    # kill -9 of shard 1's process once a completing press is acknowledged (stored, its board
    # being posted); a new process takes the shard over and posts that board, once.
    table = tables[1]
    before = table.position()
    press = await table.click_path(alice, table.board, a_turn(before), wait=False)
    await emulator.wait_for(lambda: press.acknowledged, what="the press acknowledged")
    assert await second.kill() == -9
    await tables[0].play("w@D")  # the other shard goes on meanwhile
    third = spawn_bot(emulator, env=shard_env(url, 1), guild_commands=False)
    await third.start()
    await emulator.wait_for(lambda: table.position() != before, what="the stored turn's board")
    assert table.mover().id == bob.id

    # The handoff: a fourth process joins shard 1, then the third stops on SIGTERM; right
    # after, a double press on the final step stores one turn and tells the other press so.
    fourth = spawn_bot(emulator, env=shard_env(url, 1), guild_commands=False)
    await fourth.start()
    assert len(emulator.gateway.sessions_for(guilds[1].id)) == 2
    assert await third.stop() == 0
    position = table.position()
    path = a_turn(position)
    board = table.board
    *before, last_press = press_paths(position, path)
    for press in before:
        await table.click(bob, board, table.custom_id(board, f":{press}:n"))
    last = table.custom_id(board, f":{last_press}:n")
    presses = await asyncio.gather(
        table.click(bob, board, last), table.click(bob, board, last, stale=True)
    )
    assert all(press.acknowledged for press in presses)
    await fourth.settle()
    assert any("out of date" in text for text in table.ephemeral(bob))
    assert table.position() == position.apply(path_turn(position, path))
    await asyncio.gather(*(table.play(table.position().legal_turns()[0]) for table in tables))

    # kill -9 of shard 0's process right after a completing press, wherever it is (perhaps
    # inside the transaction): after a restart the press is stored if it was acknowledged,
    # and the channel shows what is stored.
    zero = tables[0]
    before = zero.position()
    press = await zero.click_path(zero.mover(), zero.board, a_turn(before), wait=False)
    assert await first.kill() == -9
    first = spawn_bot(emulator, env=shard_env(url, 0), guild_commands=False)
    await first.start()
    await first.settle()
    asked_again = 0
    if press.acknowledged or zero.position() != before:
        await emulator.wait_for(lambda: zero.position() != before, what="the stored turn's board")
    else:  # lost before it was stored: the player asks for the board again
        count = len(zero.boards())
        await zero.slash(zero.mover(), "tholos board")
        await emulator.wait_for(lambda: len(zero.boards()) > count, what="the board again")
        asked_again = 1
    await zero.play(zero.position().legal_turns()[0])
    await first.settle()

    plies = await check_database(url)
    assert len(plies) == 2
    connection = await asyncpg.connect(url)
    try:
        stored = {
            row["channel_id"]: row["position"]
            for row in await connection.fetch("SELECT channel_id, position FROM games")
        }
    finally:
        await connection.close()
    for table, again in zip(tables, (asked_again, 0), strict=True):
        assert stored[table.channel.id] == str(table.position())
        one_board_per_ply(table, again)
    killed = [v for v in emulator.violations if v.interaction_id == press.id]
    assert [v.rule for v in killed] in ([], ["interaction.not-acknowledged"])
    assert [v for v in emulator.violations if v not in killed] == []
    for process in (first, fourth):
        assert await process.stop() == 0
        process.assert_clean_log()
        assert postgres_server.password not in process.log()


async def test_live_games_on_two_shards_end_on_points_on_postgres(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer, seed: int
):
    """A live game (5+5) in each shard's server, played to its end by random turns through
    the buttons, side by side: each ends on points — its last press stores the last turn,
    stops the clock and the game in one write (PostgreSQL once refused that write) — and
    the stored result is the engine's, rated for both players."""
    rng = random.Random(seed)
    url = await postgres_server.create_database()
    guilds = [emulator.add_guild(f"Shard {shard}", shard=(shard, SHARDS)) for shard in (0, 1)]
    bots = await shard_bots(emulator, spawn_bot, url)
    tables = [Table(emulator, "games", guild=guild) for guild in guilds]
    alice, bob = tables[0].people_named("alice", "bob")

    async def play_out(table: Table, rng: random.Random) -> None:
        await table.start_game(alice, bob, pace="5+5")
        while not table.status().startswith("Game over."):
            await table.play(rng.choice(table.position().legal_turns()))

    await asyncio.gather(*(play_out(t, random.Random(rng.random())) for t in tables))
    connection = await asyncpg.connect(url)
    try:
        games = await connection.fetch(
            "SELECT channel_id, position, result, reason, white_points, black_points, "
            "time_control, clock_started_at, flag_at FROM games"
        )
        rated = await connection.fetch("SELECT pool, games FROM member_ratings")
        boards = await connection.fetchval("SELECT COUNT(*) FROM server_players")
    finally:
        await connection.close()
    assert len(games) == 2 and sorted(tuple(row) for row in rated) == [("live", 2)] * 2, (
        "both games rated, for both players (one rating each, in the live pool)"
    )
    assert boards == 4, "both players on both servers' boards"
    for game in games:
        (table,) = [t for t in tables if t.channel.id == game["channel_id"]]
        final = Position.parse(game["position"])
        outcome = final.outcome()
        assert final == table.position() and outcome is not None
        assert (game["result"], game["reason"]) == (outcome.result, outcome.reason)
        assert (game["white_points"], game["black_points"]) == outcome.points
        assert (game["time_control"], game["clock_started_at"], game["flag_at"]) == (
            "5+5",
            None,
            None,
        )
    await check_database(url)
    for table in tables:
        table.assert_clean()
    for bot in bots:
        assert await bot.stop() == 0
        bot.assert_clean_log()
