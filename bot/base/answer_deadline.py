"""Discord's deadline for an answer: an interaction is answered within 3 seconds or fails.

The Discord layer (:mod:`bot.discord.answers`) sets it around the handler (:func:`answering`),
a little inside Discord's 3 seconds; whatever the handler waits for (the database, notably)
consults it (:func:`answer_by`, :func:`patience`) and gives up in time for the answer to be
heard.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

ANSWER_BY: ContextVar[tuple[asyncio.Task[Any], float] | None] = ContextVar(
    "answer_by", default=None
)
"""The task answering an interaction, and the monotonic time by which it must have answered
(set by the Discord layer, a little inside Discord's 3 seconds): every wait of that task for
the database ends by then, with ``DatabaseBusy`` — a press that meets a read waiting behind a busy
write, then a busy write of its own, still hears "busy" in time. Tasks it starts (a board posted
after the answer) inherit the variable but not the deadline."""


@contextmanager
def answering(seconds: float) -> Iterator[None]:
    """While the block runs, the current task owes an answer within ``seconds``."""
    task = asyncio.current_task()
    assert task is not None  # an answer is owed by a task
    token = ANSWER_BY.set((task, time.monotonic() + seconds))
    try:
        yield
    finally:
        ANSWER_BY.reset(token)


def answer_by() -> float | None:
    """The deadline of the answer the current task owes (``None``: it owes none)."""
    owed = ANSWER_BY.get()
    if owed is None or owed[0] is not asyncio.current_task():
        return None
    return owed[1]


def patience(seconds: float) -> float:
    """The monotonic deadline of a wait of at most ``seconds``, and no later than the answer
    the task owes (:func:`answer_by`)."""
    deadline = time.monotonic() + seconds
    owed = answer_by()
    return deadline if owed is None else min(deadline, owed)
