"""Games against the bot's AI, end to end: no acceptance step, legal AI turns, restarts, and no
effect on ratings."""

from __future__ import annotations

import itertools
import random

from engine.scoring import score

from .emulator import BotProcess, Emulator
from .table import Table


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

    await table.emu.wait_for(ready, timeout=30, what="the AI's turn")


async def test_a_full_game_against_the_ai(emulator: Emulator, tholos_bot: BotProcess):
    """Alice plays random turns against the easy AI to the end; every AI turn was legal (each
    board's position follows from the previous by a legal turn), and ratings are untouched."""
    table = Table(emulator)
    (alice,) = table.people_named("alice")
    await challenge_the_ai(table, level="easy", mode="advanced", ornaments=3, first="opponent")
    rng = random.Random(2)
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
    assert empty is not None and "No rated games" in empty.text
    stats = (await table.slash(alice, "tholos stats")).original
    assert stats is not None
    fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
    assert fields["Rating"] == "Not rated yet." and "Record" not in fields
    winner = score(positions[-1]).outcome.winner
    record = "0–0–1" if winner is None else "1–0–0" if winner == alice_colour else "0–1–0"
    assert fields["Against the AI (unrated)"] == f"easy {record}"
    assert "vs the AI (easy, unrated)" in fields["Last games"]
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
