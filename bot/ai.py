"""The AI opponent's turns, searched in a worker process so the event loop never waits."""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from engine import Position, Turn, parse_turn
from engine.ai import choose_turn

LEVELS = ("easy", "medium", "hard")


class AiPlayer:
    """One worker process that searches turns, one at a time."""

    def __init__(self) -> None:
        self._pool = ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn")
        )

    async def choose(self, position: Position, level: str, seed: int) -> Turn:
        """The AI's turn in ``position`` at ``level``, reproducible from ``seed``."""
        loop = asyncio.get_running_loop()
        text = await loop.run_in_executor(self._pool, _choose, str(position), level, seed)
        return parse_turn(text)

    def close(self) -> None:
        """Stop the worker (a search under way is abandoned)."""
        self._pool.shutdown(wait=False, cancel_futures=True)


def _choose(position: str, level: str, seed: int) -> str:
    """Runs in the worker: notation in, notation out (cheap to pass between processes)."""
    return str(choose_turn(Position.parse(position), level, seed=seed))
