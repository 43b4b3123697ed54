"""Nothing outlives a killed bot: with every kind of worker running — the boards' drawing, the
AI opponent's, the review's, the puzzle search's, and multiprocessing's resource tracker beside
them — a kill -9
of the bot's process alone (not of its process group) leaves no process of it alive 5 s later
(``BotProcess.kill`` fails otherwise, as it does after every kill of the suite)."""

from __future__ import annotations

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator
from tests.e2e.table import Table
from tests.e2e.test_ai_opponent import challenge_the_ai, wait_for_alice
from tests.e2e.test_finished_games import play_and_resign

WORKER = "multiprocessing.spawn"
TRACKER = "multiprocessing.resource_tracker"


async def test_a_killed_bot_leaves_no_worker_behind(emulator: Emulator, spawn_bot: SpawnBot):
    bot = spawn_bot(emulator, env={"THOLOS_PUZZLES_FROM_GAMES": "on"})
    await bot.start(sync=True)
    against_ai = Table(emulator, "games")
    await challenge_the_ai(against_ai, level="easy", colour="white", first="me")
    await against_ai.play(against_ai.position().legal_turns()[0])
    await wait_for_alice(against_ai)  # the AI's worker searched its turn
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await play_and_resign(table, alice, bob, ["+w1", "+b1"])  # searched for a puzzle
    count = len(emulator.messages(table.channel))
    await table.click(alice, table.board, table.labelled(table.board, "Review"))
    await emulator.wait_for(
        lambda: len(emulator.messages(table.channel)) > count, what="the review's message"
    )

    def workers() -> list[str]:
        return [
            command
            for command in bot.left_behind().values()
            if WORKER in command or TRACKER in command
        ]

    await emulator.wait_for(
        lambda: (
            sum(WORKER in command for command in workers()) == 4
            and sum(TRACKER in command for command in workers()) == 1
        ),
        what="the drawing, the AI's, the review's and the puzzle search's workers, and the tracker",
    )
    assert await bot.kill() == -9  # fails if any of them is alive 5 s later
    assert bot.left_behind() == {}
