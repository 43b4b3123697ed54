"""The bot's work in flight: interactions being handled, background rounds (housekeeping,
reviews), the AI's turns, and wake-ups a background loop has not taken yet.

Each piece counts from the moment it exists until it is done, with no gap when one hands over
to another (a task is counted when it is created, not when it first runs; a wake-up while it
is set), so zero means the process has nothing to do until something new arrives or a timer
fires. The metrics server shows it as ``tholos_work_in_flight``; the end-to-end tests wait for
it to be zero instead of guessing from the clock or the CPU.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

_in_flight = 0


def in_flight() -> int:
    """How many pieces of work are under way in this process."""
    return _in_flight


def _count(change: int) -> None:
    global _in_flight
    _in_flight += change


@contextlib.contextmanager
def busy() -> Iterator[None]:
    """Count one piece of work while the block runs."""
    _count(1)
    try:
        yield
    finally:
        _count(-1)


def start(work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """Run ``work`` in a task of its own, counted from now until it ends."""
    task = asyncio.create_task(work)
    _count(1)
    task.add_done_callback(lambda _: _count(-1))
    return task


class Wakeup(asyncio.Event):
    """An event that wakes a background loop, counted as work while it is set: from the moment
    someone asks for a round until the loop clears it (just before the counted round)."""

    def set(self) -> None:
        if not self.is_set():
            _count(1)
        super().set()

    def clear(self) -> None:
        if self.is_set():
            _count(-1)
        super().clear()
