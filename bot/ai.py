"""The AI opponent's turns, searched in a worker process so the event loop never waits."""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from engine import Position, Turn, parse_turn
from engine.ai import choose_turn


class AiPlayer:
    """One worker process that searches turns, one at a time (a new one if it dies)."""

    def __init__(self) -> None:
        self._pool = _new_pool()
        self._closed = False

    async def choose(self, position: Position, level: str, seed: int) -> Turn:
        """The AI's turn in ``position`` at ``level``, reproducible from ``seed``.

        If the worker died (killed, out of memory), a new one searches the turn again.
        """
        loop = asyncio.get_running_loop()
        arguments = (_choose, str(position), level, seed)
        pool = self._pool
        try:
            text = await loop.run_in_executor(pool, *arguments)
        except BrokenProcessPool:
            if self._closed:
                raise
            if self._pool is pool:  # the first search to notice replaces the worker
                self._pool = _new_pool()
            text = await loop.run_in_executor(self._pool, *arguments)
        return parse_turn(text)

    def close(self) -> None:
        """Stop the worker (a search under way is abandoned)."""
        self._closed = True
        self._pool.shutdown(wait=False, cancel_futures=True)


def _new_pool() -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))


def _choose(position: str, level: str, seed: int) -> str:
    """Runs in the worker: notation in, notation out (cheap to pass between processes)."""
    return str(choose_turn(Position.parse(position), level, seed=seed))
