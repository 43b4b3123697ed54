"""Every background loop of the bot, on one runner.

A :class:`Loop` is a round of work and how to wait for the next: the round says when the next
one is due (``None``: none is, so after :attr:`Loop.longest`); between rounds the loop sleeps
until then, or until its :attr:`Loop.wakeup` is set (a change that gives it work), or its
:attr:`Loop.alarm` rings with something due sooner. A round is counted as work in flight; a
database outage is logged as a warning and the round is tried again after a backoff (1 s,
doubling, at most the loop's longest sleep); any other error is logged with its trace and the
loop goes on. :class:`Loops` runs them once the client is ready and stops them on close."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.loops import work
from bot.loops.alarm import Alarm
from bot.loops.background import Backoff, stop_tasks, wait_for_event
from bot.storage.db import DatabaseUnavailable

log = logging.getLogger(__name__)

SHORTEST_SLEEP = 0.05
"""The shortest sleep between two rounds, whatever is due (never a busy loop)."""
OUTAGE_BACKOFF = Backoff(first=1.0, tries=1_000_000)
"""After a database outage a round is tried again 1 s later, then 2, 4… (at most the loop's
longest sleep)."""


@dataclass(eq=False)
class Loop:
    """One background loop: its round and how it waits for the next."""

    name: str
    """For the log."""
    round: Callable[[], Awaitable[float | None]]
    """One round of work: when the next is due (Unix time), or ``None`` (after ``longest``)."""
    longest: float
    """The longest sleep between two rounds (what another process changed is seen within it)."""
    wakeup: work.Wakeup = field(default_factory=work.Wakeup)
    """Set to start a round at once (counted as work until the loop takes it)."""
    alarm: Alarm | None = None
    """Told how long the loop sleeps; rung with a due time sooner than that, it wakes it."""
    shortest: float = SHORTEST_SLEEP
    counted: bool = True
    """Whether a round counts as work in flight (what the shutdown and the tests wait for)."""

    async def run(self, closed: Callable[[], bool]) -> None:
        """Rounds until ``closed()``."""
        outages = 0
        while not closed():
            self.wakeup.clear()
            due = None
            try:
                with work.busy() if self.counted else contextlib.nullcontext():
                    due = await self.round()
                outages = 0
            except DatabaseUnavailable as error:
                outages += 1
                log.warning("%s: database unavailable: %s", self.name, error)
                due = time.time() + min(self.longest, OUTAGE_BACKOFF.delay(outages))
            except Exception:
                log.exception("%s: a round failed", self.name)
            delay = self._delay(due)
            log.debug("%s: next round in %.1f s", self.name, delay)
            await self._sleep(delay)

    def _delay(self, due: float | None) -> float:
        if due is None:
            return self.longest
        return min(self.longest, max(self.shortest, due - time.time()))

    async def _sleep(self, delay: float) -> None:
        if self.alarm is None:
            await wait_for_event(self.wakeup, delay)
            return
        self.alarm.sleeping_until(time.time() + delay)
        woken = asyncio.ensure_future(self.wakeup.wait())
        rung = asyncio.ensure_future(self.alarm.rung.wait())
        try:
            await asyncio.wait((woken, rung), timeout=delay, return_when=asyncio.FIRST_COMPLETED)
        finally:
            await stop_tasks((woken, rung))
            self.alarm.awake()


class Loops:
    """Runs the loops of one process: each in a task of its own from when the client is ready
    until :meth:`stop`."""

    def __init__(self, ready: Callable[[], Awaitable[object]], closed: Callable[[], bool]) -> None:
        self._ready = ready
        self._closed = closed
        self._tasks: list[asyncio.Task[None]] = []

    def start(self, loops: list[Loop]) -> None:
        """Run ``loops`` (each once the client is ready)."""
        for loop in loops:
            task = asyncio.create_task(self._run(loop), name=loop.name)
            self._tasks.append(task)

    async def _run(self, loop: Loop) -> None:
        await self._ready()
        log.info("%s loop started", loop.name)
        await loop.run(self._closed)

    async def stop(self, seconds: float) -> None:
        """Stop every loop (a round under way is cancelled) and wait at most ``seconds``."""
        await stop_tasks(self._tasks, seconds)
        self._tasks.clear()
