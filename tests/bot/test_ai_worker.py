"""The AI's worker process: turns come back legal, and a dead worker is replaced."""

from __future__ import annotations

import os
import signal

from bot.ai import AiPlayer
from engine import Position

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
