"""A double press posts once, end to end (the bot's own process, the emulator as Discord): two
presses of a finished board's Replay, Record or Analyse by one member, the second arriving
before the first is answered, are answered once (the second told it is on its way); a press
after that is answered again, and so is one after a kill -9 left the first press's hold behind,
once the hold runs out. Two presses of Review post one message, which shows the review even when
the review is done before the message is recorded."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from typing import Any

import pytest
from aiohttp import web

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Interaction, Member
from tests.e2e.emulator import rest as emulator_rest
from tests.e2e.table import Table
from tests.e2e.test_privacy import replays
from tests.features.analysis.test_e2e_from_discord import game_of, launched
from tests.features.live.test_e2e_board import free_port

ON_ITS_WAY = "That is on its way already: one press is enough."
HOLD_SECONDS = 20.0
"""The longest the emulator holds an answer for a test (a bot that never sends the awaited one
fails the test instead of hanging it)."""


@pytest.fixture
def held_answers(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Once ``held["on"]`` is set, the emulator holds the first interaction answer (callback)
    until another one arrives — the second press's — so that the second press surely comes
    before the first is answered. Request it before ``emulator``."""
    held: dict[str, Any] = {"on": False, "first": False, "second": asyncio.Event()}
    callback = emulator_rest.Rest.interaction_callback

    async def hold(self: emulator_rest.Rest, request: web.Request) -> web.StreamResponse:
        if held["on"] and not held["first"]:
            held["first"] = True
            async with asyncio.timeout(HOLD_SECONDS):
                await held["second"].wait()
        elif held["on"]:
            held["second"].set()
        return await callback(self, request)

    monkeypatch.setattr(emulator_rest.Rest, "interaction_callback", hold)
    return held


@pytest.fixture
def held_original(monkeypatch: pytest.MonkeyPatch) -> dict[str, asyncio.Event | None]:
    """While ``held["until"]`` is an event, the emulator holds every read of an interaction's
    message (``GET …/messages/@original``) until it is set. Request it before ``emulator``."""
    held: dict[str, asyncio.Event | None] = {"until": None}
    read = emulator_rest.Rest.get_webhook_message

    async def hold(self: emulator_rest.Rest, request: web.Request) -> web.StreamResponse:
        until = held["until"]
        if until is not None:
            async with asyncio.timeout(HOLD_SECONDS * 3):
                await until.wait()
        return await read(self, request)

    monkeypatch.setattr(emulator_rest.Rest, "get_webhook_message", hold)
    return held


async def finished_board(emulator: Emulator, spawn_bot: SpawnBot) -> tuple[BotProcess, Table]:
    """A bot serving the live board; Alice and Bob play a turn in #general and Bob resigns."""
    emulator.enable_activities()
    bot = spawn_bot(emulator, env={"THOLOS_WEB_PORT": str(free_port())})
    await bot.start(sync=True)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await table.start_game(alice, bob)
    await table.play(table.position().legal_turns()[0])
    ask = await table.slash(bob, "tholos resign")
    assert ask.original is not None
    await table.click(bob, ask.original, table.labelled(ask.original, "Yes, resign"))
    await emulator.wait_for(lambda: table.status().startswith("Game over."), what="the end")
    return bot, table


def answered(
    kind: str, table: Table, member: Member, game_id: int, presses: list[Interaction]
) -> int:
    """How many of ``presses`` of ``kind`` were answered with what was asked for."""
    if kind == "Replay":
        return replays(table, member, game_id)
    if kind == "Record":
        return sum(
            attachment.filename == f"tholos-{game_id}.txt"
            for press in presses
            for message in press.messages
            for attachment in message.attachments
        )
    return sum(launched(press) for press in presses)


def on_its_way(presses: list[Interaction]) -> int:
    """How many of ``presses`` were told the answer is on its way."""
    return sum(message.text == ON_ITS_WAY for press in presses for message in press.messages)


def set_holds(bot: BotProcess, expires_at: float) -> int:
    """Move the holds (leases) on answering presses, as time would; how many there are."""
    with sqlite3.connect(bot.db_path) as database:
        return database.execute(
            "UPDATE leases SET expires_at = ? WHERE name LIKE 'replay:%' OR name LIKE 'record:%' "
            "OR name LIKE 'analyse:%'",
            (expires_at,),
        ).rowcount


@pytest.mark.parametrize("kind", ["Replay", "Record", "Analyse"])
async def test_a_double_press_is_answered_once(
    held_answers: dict[str, Any], emulator: Emulator, spawn_bot: SpawnBot, kind: str
):
    bot, table = await finished_board(emulator, spawn_bot)
    carol = emulator.member("carol")
    final = table.board
    game_id = game_of(final)
    button = table.labelled(final, kind)
    held_answers["on"] = True
    presses = list(
        await asyncio.gather(*(table.click(carol, final, button, stale=True) for _ in range(2)))
    )
    await bot.settle()
    assert held_answers["second"].is_set(), "the second press was answered while the first waited"
    assert answered(kind, table, carol, game_id, presses) == 1
    assert on_its_way(presses) == 1
    held_answers["on"] = False
    presses.append(await table.click(carol, final, button))  # the first is answered: again
    await bot.settle()
    assert answered(kind, table, carol, game_id, presses) == 2
    assert on_its_way(presses) == 1
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_a_press_cut_by_a_kill_holds_the_next_only_until_its_hold_runs_out(
    held_answers: dict[str, Any], emulator: Emulator, spawn_bot: SpawnBot
):
    """The bot is killed while it answers Record (its answer held): after the restart a press
    is told the record is on its way while the dead press's hold lasts, and gets it once the
    hold has run out."""
    bot, table = await finished_board(emulator, spawn_bot)
    carol = emulator.member("carol")
    final = table.board
    game_id = game_of(final)
    button = table.labelled(final, "Record")
    held_answers["on"] = True
    await table.click(carol, final, button, wait=False)
    await emulator.wait_for(lambda: held_answers["first"], what="the record's answer, held")
    await bot.kill()
    held_answers["on"] = False
    held_answers["second"].set()
    await bot.start()
    assert set_holds(bot, time.time() + 60) == 1, "the killed press's hold is left"
    told = await table.click(carol, final, button)
    assert on_its_way([told]) == 1
    assert set_holds(bot, time.time() - 1) == 1  # …and then it ran out
    again = await table.click(carol, final, button)
    assert answered("Record", table, carol, game_id, [again]) == 1
    assert await bot.stop() == 0


def review_status(bot: BotProcess) -> str | None:
    with sqlite3.connect(bot.db_path) as database:
        row = database.execute("SELECT status FROM reviews").fetchone()
    return None if row is None else row[0]


async def test_a_double_press_of_review_posts_one_message_that_shows_the_review(
    held_original: dict[str, asyncio.Event | None], emulator: Emulator, spawn_bot: SpawnBot
):
    """Carol presses Review twice; Discord is slow to tell the bot the id of the review's
    message, so the AI finishes the review before the bot recorded its message: the second
    press is told the review is under way, and the one message shows the review."""
    bot, table = await finished_board(emulator, spawn_bot)
    carol = emulator.member("carol")
    final = table.board
    before = len(emulator.messages(table.channel))
    release = held_original["until"] = asyncio.Event()
    button = table.labelled(final, "Review")
    presses = await asyncio.gather(
        *(table.click(carol, final, button, stale=True) for _ in range(2))
    )
    await emulator.wait_for(lambda: review_status(bot) == "done", what="the review, done")
    release.set()
    public = [m for m in emulator.messages(table.channel)[before:] if not m.ephemeral]
    assert len(public) == 1, [m.text for m in public]
    (message,) = public
    await emulator.wait_for(
        lambda: any(embed.get("title", "").startswith("AI review") for embed in message.embeds),
        what="the review on its message",
    )
    await bot.settle()
    assert [m for m in emulator.messages(table.channel)[before:] if not m.ephemeral] == [message]
    told = [m.text for press in presses for m in press.messages if m.ephemeral]
    assert told == ["The AI is reviewing this game already."]
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()
