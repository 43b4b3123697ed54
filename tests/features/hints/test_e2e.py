"""Hints through the real bot: a game against the easy AI with hints, whose Hint gives a legal
turn, to the player alone, counted in the game's history and record. Hints appear nowhere
else."""

from __future__ import annotations

import random

from engine.record import read_record
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator, Member
from tests.e2e.table import Table, board_position
from tests.e2e.test_ai_opponent import wait_for_alice
from tests.features.lessons.test_e2e import reply, stored


async def test_hints_only_where_allowed_and_counted(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    """/tholos-ai hints: True: a Hint button at the start of Alice's turns, a legal turn and
    why, to her alone, counted; the game's history and record say so. No Hint in an AI game
    without hints, nor in a game between members; a forged Hint is refused."""
    rng = random.Random(seed)
    bot = spawn_bot(emulator)
    await bot.start(sync=True)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await play_the_ai(table, alice, hints=True)
    for asked in (1, 2):
        board = table.board
        position = board_position(board)
        await table.click(alice, board, table.labelled(board, "Hint"))
        await emulator.wait_for(
            lambda asked=asked: (
                len([t for t in table.ephemeral(alice) if t.startswith("💡 **Hint:**")]) == asked
            ),
            what="the hint",
        )
        hints = [text for text in table.ephemeral(alice) if text.startswith("💡 **Hint:**")]
        notation = hints[-1].split("(`", 1)[1].split("`)", 1)[0]
        assert notation in {str(turn) for turn in position.legal_turns()}, hints[-1]
        assert stored(bot, "SELECT hints_used FROM games") == [(asked,)]
        await table.play(rng.choice(position.legal_turns()))
        await wait_for_alice(table)
    ask = await table.slash(alice, "tholos resign")
    assert ask.original is not None
    count = len(table.boards())
    await table.click(alice, ask.original, table.labelled(ask.original, "Yes, resign"))
    await emulator.wait_for(lambda: len(table.boards()) > count, what="the final board")
    history = (await table.slash(alice, "tholos history")).original
    assert history is not None and "💡 2 hints" in history.embeds[0]["description"]
    record = (await table.slash(alice, "tholos record")).original
    assert record is not None
    assert read_record(record.attachments[0].data.decode()).hints == 2
    # no Hint in an AI game without hints, nor between members; a forged one is refused
    await play_the_ai(table, alice)
    assert "Hint" not in [b.get("label") for b in table.board.buttons]
    forged = f"tholos:hint:{stored(bot, 'SELECT MAX(id) FROM games')[0][0]}:1"
    said = await reply(emulator, await table.click(alice, table.board, forged, stale=True))
    assert "This game has no hints" in said, said
    members = Table(emulator, "games")
    game = await members.start_game(alice, bob)
    assert "Hint" not in [b.get("label") for b in game.buttons]
    table.assert_clean()
    members.assert_clean()
    assert await bot.stop() == 0


async def play_the_ai(table: Table, member: Member, **options: object) -> None:
    """``member`` plays the easy AI with /tholos-ai (White, first); wait for their turn."""
    count = len(table.boards())
    await table.slash(member, "tholos-ai", level="easy", colour="white", first="me", **options)
    await table.emu.wait_for(lambda: len(table.boards()) > count, what="the AI game's board")
    await wait_for_alice(table)
