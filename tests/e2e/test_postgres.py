"""The real bot on a real PostgreSQL (``THOLOS_DB=postgresql://…``) through the emulator:
games survive ``kill -9``, and an outage of the database gets a polite answer and loses
nothing."""

from __future__ import annotations

import asyncpg

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator
from tests.e2e.table import Table
from tests.postgres import PostgresServer

UNAVAILABLE = "I can't reach my database right now"


async def test_a_game_on_postgres_survives_a_kill_and_ends_rated(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer
):
    """Turns stored in PostgreSQL, a SIGKILL after an acknowledged press, a restart, a
    resignation: the turns read back from the database are those played, and both players
    are rated."""
    url = await postgres_server.create_database()
    bot = spawn_bot(emulator, env={"THOLOS_DB": url})
    await bot.start(sync=True)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await table.start_game(alice, bob)
    played = ["w@D", "+b1"]
    for turn in played:
        await table.play(turn)
    board, before = table.board, table.position()  # before the press: its board may come at once
    press = await table.click_path(alice, board, "Tw1", wait=False)
    await emulator.wait_for(lambda: press.acknowledged, what="the press acknowledged")
    assert await bot.kill() == -9
    await bot.start()
    await emulator.wait_for(  # at once, or once the killed poster's lease runs out (10 s)
        lambda: table.position() != before, what="the stored turn's board"
    )
    await bot.settle()
    played.append("+w1")
    turn = table.position().legal_turns()[0]
    await table.play(turn)
    ask = await table.slash(bob, "tholos resign")
    assert ask.original is not None
    await table.click(bob, ask.original, table.labelled(ask.original, "Yes, resign"))
    await emulator.wait_for(lambda: table.status().startswith("Game over."), what="end")
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch("SELECT turn FROM turns ORDER BY ply")
        turns = [row["turn"] for row in rows]
        rated = await connection.fetchval("SELECT COUNT(*) FROM member_ratings WHERE games = 1")
    finally:
        await connection.close()
    assert turns == [*played, str(turn)]
    assert rated == 2
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert postgres_server.password not in bot.log()


async def test_a_database_outage_is_answered_and_loses_nothing(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer
):
    """PostgreSQL stops mid-game: a press is answered at once with an ephemeral "try again"
    and changes nothing; once it is back, the same press works and the game goes on."""
    url = await postgres_server.create_database()
    bot = spawn_bot(emulator, env={"THOLOS_DB": url})
    await bot.start(sync=True)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    board = await table.start_game(alice, bob)
    before = table.position()
    await bot.settle()
    postgres_server.stop()
    try:
        press = await table.click(alice, board, table.custom_id(board, ":Tw1:n"))
        assert press.acknowledged
        assert any(UNAVAILABLE in text for text in table.ephemeral(alice))
    finally:
        postgres_server.start()
    assert table.position() == before
    await table.play("+w1")
    assert str(table.position()) == "-/-/-/-/-/-/- www bb b -"
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert postgres_server.password not in bot.log()
