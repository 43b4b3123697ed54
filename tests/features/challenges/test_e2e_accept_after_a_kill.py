"""An accept cut short by a kill -9 opens no second thread: Discord allows one thread per
message and refuses a second (400, 160004). The bot is killed after opening the game's thread
on the challenge's message but before storing the game; the next accept finds that thread (its
id is the message's), names it after the players, and plays the game there. A member who
presses while the killed process's hold on an open challenge still runs is told the truth:
someone is accepting it (no game exists yet), not that someone was faster."""

from __future__ import annotations

import asyncio
import sqlite3
import time

import pytest
from aiohttp import web

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Interaction
from tests.e2e.emulator import rest as emulator_rest
from tests.e2e.table import Table

THREADS = {"THOLOS_THREADS": "on"}


@pytest.fixture
def held_joins(monkeypatch: pytest.MonkeyPatch) -> dict[str, asyncio.Event]:
    """While ``held["release"]`` is unset, the emulator holds every request adding a member to
    a thread (the step right after a thread is opened); ``held["reached"]`` is set when one
    arrives. Request it before ``emulator``."""
    held = {"release": asyncio.Event(), "reached": asyncio.Event()}
    add_thread_member = emulator_rest.Rest.add_thread_member

    async def slow(self: emulator_rest.Rest, request: web.Request) -> web.StreamResponse:
        held["reached"].set()
        await held["release"].wait()
        return await add_thread_member(self, request)

    monkeypatch.setattr(emulator_rest.Rest, "add_thread_member", slow)
    return held


def said(interaction: Interaction, words: str) -> bool:
    return any(words in message.text for message in interaction.messages)


def set_hold(bot: BotProcess, expires_at: float) -> int:
    """Move the hold (lease) on taking an open challenge, as time would; how many there are."""
    with sqlite3.connect(bot.db_path) as database:
        return database.execute(
            "UPDATE leases SET expires_at = ? WHERE name LIKE 'taking:%'", (expires_at,)
        ).rowcount


@pytest.mark.parametrize("open_challenge", [True, False], ids=["open", "direct"])
async def test_an_accept_cut_by_a_kill_opens_no_second_thread(
    held_joins: dict[str, asyncio.Event],
    emulator: Emulator,
    spawn_bot: SpawnBot,
    open_challenge: bool,
):
    bot = spawn_bot(emulator, env=THREADS)
    await bot.start(sync=True)
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    options = {} if open_challenge else {"opponent": bob}
    challenge = (await table.slash(alice, "tholos challenge", **options)).original
    assert challenge is not None
    accept = table.custom_id(challenge, ":accept")
    await table.click(bob, challenge, accept, wait=False)
    await held_joins["reached"].wait()  # the thread is open; the game is not stored yet
    thread = emulator.thread_of(challenge)
    assert thread is not None and thread.id == challenge.id
    assert await bot.kill() == -9
    held_joins["release"].set()
    await bot.start()
    with sqlite3.connect(bot.db_path) as database:
        assert database.execute("SELECT COUNT(*) FROM games").fetchone() == (0,)

    taker = carol if open_challenge else bob
    if open_challenge:  # the killed process's hold still runs: nobody has the game yet
        assert set_hold(bot, time.time() + 60) == 1
        early = await table.click(carol, challenge, accept)
        assert said(early, "Someone is accepting this challenge right now")
        assert not said(early, "Someone was faster")
        assert set_hold(bot, time.time() - 1) == 1  # …and then it ran out
    await table.click(taker, challenge, accept)
    game = table.in_thread(thread)
    await emulator.wait_for(lambda: bool(game.boards()), what="the first board in the thread")

    assert emulator.threads(table.channel) == [thread], "one thread, the message's"
    assert thread.name == f"Alice vs {'Carol' if open_challenge else 'Bob'} · Tholos"
    assert {alice.id, taker.id} <= emulator.thread_members(thread)
    assert [violation.rule for violation in emulator.violations] == []
    with sqlite3.connect(bot.db_path) as database:
        games = database.execute("SELECT channel_id, black_id, white_id FROM games").fetchall()
    assert len(games) == 1 and games[0][0] == thread.id
    assert set(games[0][1:]) == {alice.id, taker.id}
    assert f"<#{thread.id}>" in challenge.content
    if open_challenge:
        late = await table.click(bob, challenge, accept, stale=True)
        assert said(late, "Someone was faster")
    await bot.stop()
    bot.assert_clean_log()
