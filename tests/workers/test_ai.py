"""The AI's worker processes: turns come back legal; a dead worker is replaced and its task runs
again; a task abandoned (cancelled) stops its worker, and the next task gets a new one."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import threading

from bot.workers.ai import AiPlayer, Reviewer
from engine import Position
from engine.newgame import new_game
from engine.play import random_game
from tests.discord_fakes import eventually

START = Position.parse("-/-/-/-/-/-/- ww bb w -")


async def test_a_killed_worker_is_replaced():
    """After its worker process is killed, the AI still answers, from a new process."""
    ai = AiPlayer()
    try:
        first = await ai.choose(START, "easy", seed=1)
        assert first in START.legal_turns()
        workers = ai.worker.pids()
        assert len(workers) == 1
        os.kill(workers[0], signal.SIGKILL)
        again = await ai.choose(START, "easy", seed=1)
        assert again == first  # same seed, same turn, from the new worker
        assert ai.worker.pids() != workers
    finally:
        ai.close()


async def test_a_closed_worker_leaves_no_thread_behind():
    """Closing a worker ends its pool's manager thread before it returns: a thread still
    running as the interpreter exits races ``concurrent.futures``' exit hook, which then
    prints a traceback on a clean stop (seen once in an end-to-end test)."""
    earlier = _managers()  # other tests' workers may have left theirs
    ai = AiPlayer()
    await ai.choose(START, "easy", seed=1)
    ours = _managers() - earlier
    assert ours, "the worker's pool runs a manager thread"
    ai.close()
    assert [thread for thread in ours if thread.is_alive()] == []


def _managers() -> set[threading.Thread]:
    """The running threads that manage a process pool."""
    return {
        thread
        for thread in threading.enumerate()
        if thread.is_alive() and "Manager" in type(thread).__name__
    }


async def test_a_review_abandoned_stops_its_worker():
    """Cancelling a review ends its worker process (no CPU spent on work nobody waits for);
    the next review gets a new worker and completes."""
    reviewer = Reviewer()
    game = random_game(new_game(), random.Random(3))  # any game: only its length matters
    start, turns = game.start, list(game.turns[:12])
    try:
        review = asyncio.create_task(reviewer.review(1, start, turns, seed=1))
        await eventually(reviewer.worker.pids, "the review worker started")
        [worker] = reviewer.worker.pids()
        review.cancel()
        await asyncio.wait([review])
        assert review.cancelled()

        def gone() -> bool:
            try:
                os.kill(worker, 0)
            except ProcessLookupError:
                return True
            return _zombie(worker)

        await eventually(gone, "the abandoned worker ended")
        text = await reviewer.review(2, start, turns[:2], seed=1)
        assert '"turns"' in text and reviewer.worker.pids() != [worker]
    finally:
        reviewer.close()


def _zombie(pid: int) -> bool:
    """Whether ``pid`` has ended but not been reaped yet."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True
