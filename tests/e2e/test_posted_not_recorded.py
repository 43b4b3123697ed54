"""A board posted but not recorded: the bot is killed after Discord took a board and before
the bot stored that it did (the post's answer never reached it). The next process finds that
board among the channel's newest messages (its image is named after the game's version),
records it instead of posting a second one, and the game goes on from it."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from aiohttp import web

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator
from tests.e2e.emulator import rest as emulator_rest
from tests.e2e.table import Table


@pytest.fixture
def unanswered_followups(monkeypatch: pytest.MonkeyPatch) -> dict[str, asyncio.Event]:
    """Once ``held["armed"]`` is set, the emulator posts the next follow-up message (a board
    after a press) but holds its answer until ``held["release"]``; ``held["reached"]`` is set
    when it is posted. Request it before ``emulator``."""
    held = {name: asyncio.Event() for name in ("armed", "reached", "release")}
    create_followup = emulator_rest.Rest.create_followup

    async def unanswered(self: emulator_rest.Rest, request: web.Request) -> web.StreamResponse:
        answer = await create_followup(self, request)
        if held["armed"].is_set() and not held["reached"].is_set():
            held["reached"].set()
            await held["release"].wait()
        return answer

    monkeypatch.setattr(emulator_rest.Rest, "create_followup", unanswered)
    return held


async def test_a_board_posted_before_a_kill_is_recorded_not_posted_again(
    unanswered_followups: dict[str, asyncio.Event], emulator: Emulator, spawn_bot: SpawnBot
):
    bot = spawn_bot(emulator)
    await bot.start(sync=True)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await table.start_game(alice, bob)
    await table.play("+w1")
    unanswered_followups["armed"].set()
    board = table.board
    await table.click_path(table.mover(board), board, "Tb1")  # Black takes one black stone
    await unanswered_followups["reached"].wait()  # posted; the bot has not heard so
    posted = table.board
    assert posted is not board and table.position(posted) == table.position(board).apply("+b1")
    assert await bot.kill() == -9
    unanswered_followups["release"].set()
    with sqlite3.connect(bot.db_path) as database:
        ((version, recorded),) = database.execute("SELECT version, board_version FROM games")
    assert recorded < version, "the kill came before the record"
    await bot.start()

    def recorded_now() -> bool:
        with sqlite3.connect(bot.db_path) as database:
            return database.execute("SELECT board_message_id FROM games").fetchone() == (posted.id,)

    await emulator.wait_for(recorded_now, what="the posted board recorded")
    await bot.settle()
    assert table.board is posted and len(table.boards()) == 3, "no second board of that turn"
    await table.play(table.position().legal_turns()[0])  # the game goes on from it
    assert len(table.boards()) == 4
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()
