"""Reviews that cannot stall: games played to the end, their reviews asked for; the review
worker is killed mid-review, the bot is killed with reviews waiting, and one review is made to
fail for good (its game's record spoiled). Every review that can complete completes, the
failing one is given up with its reason after its tries and delays no other, and the database
says so when read directly."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
from pathlib import Path

from bot.workers.ai import REVIEW_NICENESS
from engine.newgame import new_game
from engine.play import random_game
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.table import Table
from tests.e2e.test_finished_games import play_and_resign

GAMES = 3
TRIES = 4
"""The review's tries before it is given up (``bot.features.reviews.feature.REVIEW_BACKOFF``)."""
PATIENCE = 300.0
"""How long a review may take here (a short game, on a busy machine)."""


def reviews(bot: BotProcess) -> dict[int, tuple[str, int, int, int, str | None]]:
    """Each review, by game: status, positions done and in all, tries failed, failure."""
    with sqlite3.connect(bot.db_path) as database:
        rows = database.execute(
            "SELECT game_id, status, done, total, attempts, failure FROM reviews"
        ).fetchall()
    return {row[0]: tuple(row[1:]) for row in rows}  # type: ignore[misc]


def review_worker(bot: BotProcess) -> int | None:
    """The bot's review worker process: its child at a lower priority (the bot's other
    children, the AI's worker and multiprocessing's resource tracker, are not niced)."""
    assert bot.process is not None
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:  # gone meanwhile
            continue
        parent, niceness = int(fields[1]), int(fields[16])
        if parent == bot.process.pid and niceness == REVIEW_NICENESS:
            return int(entry.name)
    return None


async def test_every_review_that_can_complete_completes(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
) -> None:
    """Three games, three reviews asked for; the second game's record is spoiled (a turn no
    parser reads). The first review's worker is killed while it works: a new worker reviews it
    again, to the end. The failing review is tried again after each restart (its
    backoff put forward in the database, as time would) and, after its tries, is failed with
    its reason and said so on its message; the third review completes — also across a kill -9
    of the bot."""
    rng = random.Random(seed)
    bot = spawn_bot(emulator)
    await bot.start(sync=True)
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    finals = []
    for index in range(GAMES):
        # The first game is the longest (10 to 13 turns), so that its review lasts seconds
        # (a 6-turn game's takes about 2 s) and the test can kill its worker while it works.
        shortest = 10 if index == 0 else 6
        played = random_game(new_game(), rng).turns[: rng.randrange(shortest, 14)]
        await play_and_resign(table, alice, bob, [str(turn) for turn in played])
        finals.append(table.board)
    with sqlite3.connect(bot.db_path) as database:
        games = [row[0] for row in database.execute("SELECT id FROM games ORDER BY id")]
        spoiled = games[1]
        database.execute(
            "UPDATE turns SET turn = 'not a turn' WHERE game_id = ? AND ply = 1", (spoiled,)
        )
    # The first review is asked for alone, so that nothing holds the test up while it runs
    # (it takes a few seconds); the two others while its worker is being replaced.
    first = games[0]
    await table.click(carol, finals[0], table.labelled(finals[0], "Review"))
    await emulator.wait_for(
        lambda: reviews(bot).get(first, ("",))[0] == "running" and review_worker(bot) is not None,
        timeout=PATIENCE,
        what="the first review under way",
    )
    worker = review_worker(bot)
    assert worker is not None
    os.kill(worker, signal.SIGKILL)
    for final in finals[1:]:
        await table.click(carol, final, table.labelled(final, "Review"))
    await emulator.wait_for(
        lambda: reviews(bot)[first][0] == "done",
        timeout=PATIENCE,
        what="the first review, done by a new worker",
    )
    assert review_worker(bot) not in (None, worker), "a new review worker"
    assert "the review worker died; a new one takes its task" in bot.log()

    for tries in range(1, TRIES + 1):
        await emulator.wait_for(
            lambda n=tries: reviews(bot)[spoiled][3] >= n,
            timeout=PATIENCE,
            what=f"try {tries} of the spoiled review",
        )
        if reviews(bot)[spoiled][0] == "failed":
            break
        assert await bot.kill() == -9  # its backoff is put forward, as time would
        with sqlite3.connect(bot.db_path) as database:
            database.execute("UPDATE reviews SET next_attempt_at = 0 WHERE game_id = ?", (spoiled,))
        await bot.start()
    await emulator.wait_for(
        lambda: all(status in ("done", "failed") for status, *_ in reviews(bot).values()),
        timeout=PATIENCE,
        what="every review ended",
    )

    ended = reviews(bot)
    assert sorted(ended) == games
    for game in games:
        status, done, total, attempts, failure = ended[game]
        if game == spoiled:
            assert (status, attempts) == ("failed", TRIES), ended[game]
            assert failure is not None and "not a turn" in failure, failure
        else:
            assert status == "done" and done == total > 0 and failure is None, ended[game]
    shown = [m for m in emulator.messages(table.channel) if not m.ephemeral]
    titles = [m.embeds[0]["title"] for m in shown if m.embeds]
    assert sum(title.startswith("AI review") for title in titles) == GAMES - 1, [
        (m.content, m.embeds[0]["title"] if m.embeds else None) for m in shown
    ]
    await emulator.wait_for(  # stored as failed first, then said on its message
        lambda: any(
            m.content == "The AI could not review this game."
            for m in emulator.messages(table.channel)
        ),
        timeout=PATIENCE,
        what="the failed review's message",
    )
    await table.click(alice, finals[1], table.labelled(finals[1], "Review"))
    answer = emulator.messages(table.channel, alice)[-1]
    assert answer.ephemeral and "could not review" in answer.content
    assert await bot.stop() == 0
    log = bot.log()
    assert emulator.token not in log
    for block in log.split("Traceback (most recent call last):")[1:]:
        raised = next(line for line in block.splitlines()[1:] if line and not line[0].isspace())
        assert "not a turn" in raised, f"a traceback other than the spoiled review's: {raised}"
