"""The AI in worker processes, so the event loop never waits: the opponent's turns in one,
reviews of finished games in another."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import multiprocessing.queues
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from engine import Position, Turn, parse_turn
from engine.ai import choose_turn
from engine.review import review_game

REVIEW_NICENESS = 10
"""How much lower the review worker's CPU priority is than the bot's."""


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


class Reviewer:
    """A worker process of its own for reviews (at a lower priority), so that a review never
    delays the AI opponent's turns nor, much, the boards of live games. Progress comes back
    through a queue as ``(game_id, done, total)``."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.progress: multiprocessing.queues.Queue[tuple[int, int, int]] = context.Queue()
        self._pool = ProcessPoolExecutor(
            max_workers=1, mp_context=context, initializer=_start_reviewer,
            initargs=(self.progress,),
        )  # fmt: skip

    async def review(self, game_id: int, start: Position, turns: list[Turn], seed: int) -> str:
        """The review of a game, as JSON (see :mod:`engine.review`)."""
        loop = asyncio.get_running_loop()
        played = [str(turn) for turn in turns]
        return await loop.run_in_executor(
            self._pool, _review, game_id, str(start), played, seed
        )

    def close(self) -> None:
        """Stop the worker at once: a review under way is abandoned (it runs again after a
        restart) rather than holding up the shutdown for as long as it would take."""
        workers = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:  # the pool would wait for its task at exit: end it now
            worker.terminate()


_progress: multiprocessing.queues.Queue[tuple[int, int, int]] | None = None


def _start_reviewer(progress: multiprocessing.queues.Queue[tuple[int, int, int]]) -> None:
    """Runs in the review worker once: yield the CPU to the bot, keep the progress queue."""
    global _progress
    with contextlib.suppress(OSError, AttributeError):
        os.nice(REVIEW_NICENESS)
    _progress = progress


def _review(game_id: int, start: str, turns: list[str], seed: int) -> str:
    """Runs in the review worker: the whole review, reporting progress as it goes."""
    parsed = [parse_turn(text) for text in turns]

    def report(done: int, total: int) -> None:
        if _progress is not None:
            _progress.put((game_id, done, total))

    review = review_game(Position.parse(start), parsed, seed=seed, progress=report)
    return review.to_json()
