"""Games against the bot's AI, end to end: no acceptance step, legal AI turns, restarts, and no
effect on ratings."""

from __future__ import annotations

import asyncio
import itertools
import random

import pytest
from aiohttp import web

from engine.ai import LEVEL_RATINGS
from engine.scoring import score
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.emulator import rest as emulator_rest
from tests.e2e.table import Table, path_of


async def challenge_the_ai(table: Table, **options: object) -> None:
    """Alice challenges the bot itself; the game starts at once."""
    (alice,) = table.people_named("alice")
    count = len(table.boards())
    await table.slash(
        alice, "tholos challenge", options={"opponent": table.emu.world.bot_member, **options}
    )
    await table.emu.wait_for(lambda: len(table.boards()) > count, what="the AI game's board")


async def wait_for_alice(table: Table) -> None:
    """Wait until the newest board asks Alice to move, or shows the end."""
    (alice,) = table.people_named("alice")

    def ready() -> bool:
        content = table.status()
        return content.startswith(f"<@{alice.id}>, your turn") or content.startswith("Game over.")

    await table.emu.wait_for(ready, what="the AI's turn")


async def test_a_full_game_against_the_ai(emulator: Emulator, tholos_bot: BotProcess, seed: int):
    """Alice plays random turns against the easy AI to the end; every AI turn was legal (each
    board's position follows from the previous by a legal turn), and ratings are untouched."""
    table = Table(emulator)
    (alice,) = table.people_named("alice")
    await challenge_the_ai(table, level="easy", mode="advanced", ornaments=3, first="opponent")
    rng = random.Random(seed)
    await wait_for_alice(table)
    alice_colour = table.position().turn
    while True:
        await wait_for_alice(table)
        if table.status().startswith("Game over."):
            break
        await table.play(rng.choice(table.position().legal_turns()))
    positions = [table.position(board) for board in table.boards()]
    for before, after in itertools.pairwise(positions):
        assert any(before.apply_unchecked(turn) == after for turn in before.legal_turns())
    assert positions[-1].is_over()
    assert "Rematch" in [b["label"] for b in table.board.buttons]
    empty = (await table.slash(alice, "leaderboard")).original
    assert empty is not None and "Nobody is on this leaderboard yet" in empty.text
    stats = (await table.slash(alice, "tholos stats")).original
    assert stats is not None
    fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
    assert fields["Rating"] == "Not rated yet." and "Record" not in fields
    winner = score(positions[-1]).outcome.winner
    record = "0–0–1" if winner is None else "1–0–0" if winner == alice_colour else "0–1–0"
    assert fields["Against the AI"] == f"easy {record}"
    assert f"vs the AI (easy · {LEVEL_RATINGS['easy']}, unrated)" in fields["Last games"]
    table.assert_clean()


async def test_the_ai_moves_after_a_restart(emulator: Emulator, tholos_bot: BotProcess):
    """Killed while the AI is to move, the bot makes the AI's move when it starts again."""
    table = Table(emulator)
    await challenge_the_ai(table, level="easy", colour="white", first="me")
    await table.play("+w1")
    assert await tholos_bot.kill() == -9
    await tholos_bot.start()
    await wait_for_alice(table)
    assert table.position().turn == 0 and len(table.position().legal_turns()) > 0
    assert emulator.violations == []


@pytest.fixture
def held_followups(monkeypatch: pytest.MonkeyPatch) -> dict[str, asyncio.Event | None]:
    """While ``held["until"]`` is an event, the emulator holds every follow-up message (a
    board after a press, say) until that event is set. Request it before ``emulator``."""
    held: dict[str, asyncio.Event | None] = {"until": None}
    create_followup = emulator_rest.Rest.create_followup

    async def slow(self: emulator_rest.Rest, request: web.Request) -> web.StreamResponse:
        until = held["until"]
        if until is not None:
            await until.wait()
        return await create_followup(self, request)

    monkeypatch.setattr(emulator_rest.Rest, "create_followup", slow)
    return held


async def test_the_ai_waits_until_the_board_of_the_turn_before_is_shown(
    held_followups: dict[str, asyncio.Event | None], emulator: Emulator, spawn_bot: SpawnBot
):
    """Discord is slow to post the board of Alice's turn, and meanwhile the housekeeping loop
    runs (a challenge elsewhere expires): the AI does not move before that board is shown, so
    the boards come in the order of the turns."""
    bot = spawn_bot(emulator, env={"THOLOS_CHALLENGE_TIMEOUT": "2", "THOLOS_THREADS": "off"})
    await bot.start(sync=True)
    table = Table(emulator)
    (alice,) = table.people_named("alice")
    await challenge_the_ai(table, level="easy", colour="white", first="me")
    release = held_followups["until"] = asyncio.Event()
    board = table.board
    await table.click_path(alice, board, path_of(table.position(), "+w1"))
    elsewhere = Table(emulator, "games")  # while that board is held: a challenge expires
    bob, carol = elsewhere.people_named("bob", "carol")
    challenge = (await elsewhere.slash(bob, "tholos challenge", opponent=carol)).original
    assert challenge is not None
    await emulator.wait_for(lambda: "Expired" in challenge.content, what="the expiry")
    await bot.wait_for_work(1)  # the round that expired it is over; the held press is all
    assert table.boards() == [board], "the AI moved while the board before was not shown"
    release.set()
    await wait_for_alice(table)
    positions = [table.position(board) for board in table.boards()]
    assert len(positions) == 3
    for before, after in itertools.pairwise(positions):
        assert any(before.apply_unchecked(turn) == after for turn in before.legal_turns())
    table.assert_clean()
    assert await bot.stop() == 0
