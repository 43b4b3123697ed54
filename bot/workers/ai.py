"""The AI in worker processes, so the event loop never waits: the opponent's turns in one,
reviews of finished games in another, the search for puzzles in finished games in a third,
hints (and the analysis board's best turn) in a fourth; the boards drawn in one more
(:mod:`bot.workers.renderer`). A
worker that dies is replaced and its task runs again; a task abandoned (cancelled) stops its
worker, which is replaced at the next task."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import multiprocessing.queues
import os
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from typing import TypeVar

from bot.fair_play.scheduler import FairScheduler
from engine import Position, Turn, parse_turn
from engine.ai import choose_turn
from engine.hints import HINT_BUDGET, Hint, hint
from engine.puzzles import LATE, Puzzle, first_puzzle, game_positions
from engine.review import review_game

log = logging.getLogger(__name__)
T = TypeVar("T")

REVIEW_NICENESS = 10
"""How much lower the review worker's CPU priority is than the bot's."""
SPAWN = multiprocessing.get_context("spawn")
PARENT_CHECK_SECONDS = 0.5
"""How often a worker checks that its bot process is still alive (it ends within this of a
kill -9 of the bot)."""
CLOSE_SECONDS = 5.0
"""The longest a stop waits for a pool's manager thread once its process is ended (it takes
milliseconds)."""


_progress: multiprocessing.queues.Queue[tuple[int, int, int]] | None = None
"""In the review worker, its way to report progress (``None`` elsewhere)."""


def new_pool(
    niceness: int = 0, progress: multiprocessing.queues.Queue[tuple[int, int, int]] | None = None
) -> ProcessPoolExecutor:
    """A pool of one worker process that ends with the bot process however the bot ends
    (see :func:`_start_worker`), at ``niceness`` below the bot's priority."""
    return ProcessPoolExecutor(
        1,
        mp_context=SPAWN,
        initializer=_start_worker,
        initargs=(os.getpid(), niceness, progress),
    )


def _start_worker(
    parent: int, niceness: int, progress: multiprocessing.queues.Queue[tuple[int, int, int]] | None
) -> None:
    """Runs in each worker once: watch the bot process, lower the priority, keep the
    review's progress queue.

    A worker must not outlive its bot: killed with SIGKILL, the bot closes nothing, and a
    worker holds both ends of its own task queue's pipe, so it would wait for tasks forever.
    A thread of the worker checks every :data:`PARENT_CHECK_SECONDS` that its parent is
    still the bot (an orphan is adopted by another process) and ends it otherwise. Chosen
    over Linux's ``PR_SET_PDEATHSIG``: that signal follows the *thread* that spawned the
    worker, not the process, and exists on Linux only; the check is plain Python, works
    wherever the bot runs, and also catches a bot that died before the worker started.
    Once the bot and its workers are gone, multiprocessing's resource tracker reads the end
    of its pipe and exits too."""
    global _progress
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()
    if niceness:
        with contextlib.suppress(OSError, AttributeError):
            os.nice(niceness)
    _progress = progress


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)  # the bot is gone: nothing here is worth finishing


class Worker:
    """One worker process, running one task at a time; started when first needed."""

    def __init__(
        self,
        name: str,
        start: Callable[[], ProcessPoolExecutor],
        *,
        stop_when_abandoned: bool = True,
    ) -> None:
        self.name = name
        self._start = start
        self.stop_when_abandoned = stop_when_abandoned
        """Whether a task abandoned stops the worker (a long search must not go on without
        anyone waiting; a board drawn in milliseconds is let finish)."""
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False

    async def run(self, function: Callable[..., T], *arguments: object) -> T:
        """``function(*arguments)`` in the worker. If the worker dies (killed, out of memory),
        a new one runs it again, once; if this is cancelled, the worker is stopped with it
        (unless :attr:`stop_when_abandoned` is false)."""
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            pool = self._current()
            try:
                return await loop.run_in_executor(pool, function, *arguments)
            except BrokenProcessPool:
                if self._closed or attempt == 2:
                    raise
                log.warning("the %s worker died; a new one takes its task", self.name)
                self._stop(pool)
            except asyncio.CancelledError:
                if self.stop_when_abandoned:  # the work must not go on without anyone waiting
                    self._stop(pool)
                raise
        raise AssertionError("unreachable")

    def pids(self) -> list[int]:
        """The worker's process id (none before its first task)."""
        return list((getattr(self._pool, "_processes", None) or {}).keys())

    def close(self) -> None:
        """Stop the worker at once (a task under way is abandoned), and wait the moment its
        pool's manager thread takes to see the process gone: one still running as the
        interpreter exits races ``concurrent.futures``' exit hook, which then writes to the
        thread's closed pipe (a traceback on a clean stop)."""
        self._closed = True
        if self._pool is None:
            return
        manager = getattr(self._pool, "_executor_manager_thread", None)
        self._stop(self._pool)
        if manager is not None:
            manager.join(CLOSE_SECONDS)

    def _current(self) -> ProcessPoolExecutor:
        if self._closed:
            raise BrokenProcessPool(f"the {self.name} worker is closed")
        if self._pool is None:
            self._pool = self._start()
        return self._pool

    def _stop(self, pool: ProcessPoolExecutor) -> None:
        """End ``pool``'s process now (the next task starts a new one)."""
        if self._pool is pool:
            self._pool = None
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:  # the pool would wait for its task at exit: end it now
            process.terminate()


class AiPlayer:
    """The worker process that searches the AI opponent's turns, one at a time."""

    workers = 1
    """How many searches run at once (the opponent starts no more)."""

    def __init__(self) -> None:
        self.worker = Worker("AI", new_pool)

    async def choose(self, position: Position, level: str, seed: int) -> Turn:
        """The AI's turn in ``position`` at ``level``, reproducible from ``seed``."""
        return parse_turn(await self.worker.run(_choose, str(position), level, seed))

    def close(self) -> None:
        """Stop the worker (a search under way is abandoned)."""
        self.worker.close()


def _choose(position: str, level: str, seed: int) -> str:
    """Runs in the worker: notation in, notation out (cheap to pass between processes)."""
    return str(choose_turn(Position.parse(position), level, seed=seed))


class Adviser:
    """The worker process that finds hints: one good turn and what it gains
    (:func:`engine.hints.hint`), for a player who asked, at the bot's priority (someone
    waits for it); shared fairly between the members who ask (:class:`FairScheduler`: one
    search at a time, the members in turn, a few waiting per member)."""

    def __init__(self) -> None:
        self.worker = Worker("hints", new_pool)
        self.turns = FairScheduler()

    async def hint(self, position: Position, seed: int, *, member: int) -> Hint:
        """A good turn for the side to move in ``position``, reproducible from ``seed``, for
        ``member`` (the one asking); raises :class:`~bot.fair_play.scheduler.Replaced` if a newer
        request of theirs takes this one's place while it waits. A member asking faster than
        the answers come (more of theirs waiting as this one starts) gets a search of
        :data:`HURRIED_BUDGET`: another member waits at most that long for it."""

        def search() -> Awaitable[tuple[str, float, bool, int]]:
            hurried = self.turns.waiting(member) > 0
            return self.worker.run(_hint, str(position), seed, hurried)

        turn, expected, exact, gain = await self.turns.run(member, search)
        return Hint(parse_turn(turn), expected, exact, gain)

    def close(self) -> None:
        """Stop the worker (a search under way is abandoned)."""
        self.worker.close()


HURRIED_BUDGET = replace(HINT_BUDGET, seconds=0.4)
"""The hint's search for a member asking faster than the answers come: a third of the time (most
hints end sooner anyway, within their iterations; the cap binds on a busy machine), so that a
member flooding the worker holds another member's hint up by at most that."""


def _hint(position: str, seed: int, hurried: bool = False) -> tuple[str, float, bool, int]:
    """Runs in the hints worker: notation in, the hint's fields out."""
    found = hint(Position.parse(position), seed, HURRIED_BUDGET if hurried else HINT_BUDGET)
    return str(found.turn), found.expected, found.exact, found.gain


class Reviewer:
    """A worker process of its own for reviews (at a lower priority), so that a review never
    delays the AI opponent's turns nor, much, the boards of live games. Progress comes back
    through :attr:`progress` as ``(game_id, done, total)`` (a new queue with each new worker:
    a worker killed while writing may leave the old one locked)."""

    def __init__(self) -> None:
        self.progress: multiprocessing.queues.Queue[tuple[int, int, int]] = SPAWN.Queue()
        self.worker = Worker("review", self._new_pool)

    def _new_pool(self) -> ProcessPoolExecutor:
        self.progress = SPAWN.Queue()
        return new_pool(REVIEW_NICENESS, self.progress)

    async def review(self, game_id: int, start: Position, turns: list[Turn], seed: int) -> str:
        """The review of a game, as JSON (see :mod:`engine.review`)."""
        played = [str(turn) for turn in turns]
        return await self.worker.run(_review, game_id, str(start), played, seed)

    def close(self) -> None:
        """Stop the worker at once: a review under way is abandoned (it runs again after a
        restart) rather than holding up the shutdown for as long as it would take."""
        self.worker.close()


def _review(game_id: int, start: str, turns: list[str], seed: int) -> str:
    """Runs in the review worker: the whole review, reporting progress as it goes."""
    parsed = [parse_turn(text) for text in turns]

    def report(done: int, total: int) -> None:
        if _progress is not None:
            _progress.put((game_id, done, total))

    review = review_game(Position.parse(start), parsed, seed=seed, progress=report)
    return review.to_json()


SEARCH_NODE_LIMIT = 200_000
"""A finished game's positions are searched within 200,000 nodes each (the command line's
limit is 2,000,000): on 40 self-play games as many puzzles, the worst game 19 s, the worker at
most 130 MiB (benchmarks/README.md)."""


class PuzzleFinder:
    """A worker process of its own, at the reviews' low priority, that looks for a puzzle in
    finished games (an exhaustive search of their last turns: seconds of CPU each)."""

    def __init__(self) -> None:
        self.worker = Worker("puzzles", lambda: new_pool(REVIEW_NICENESS))

    async def find(
        self, start: Position, turns: list[Turn], source: str, late: int = LATE
    ) -> Puzzle | None:
        """The game's puzzle (:func:`engine.puzzles.first_puzzle`), if it makes one."""
        played = [str(turn) for turn in turns]
        found = await self.worker.run(_find, str(start), played, source, late)
        return None if found is None else Puzzle.from_json(found)

    def close(self) -> None:
        self.worker.close()


def _find(start: str, turns: list[str], source: str, late: int) -> str | None:
    """Runs in the puzzle worker: notation in, the puzzle as JSON out."""
    positions = game_positions(Position.parse(start), [parse_turn(text) for text in turns])
    found = first_puzzle(positions, source, late=late, limit=SEARCH_NODE_LIMIT)
    return None if found is None else found.to_json()
