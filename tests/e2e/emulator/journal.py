"""What the emulator saw: requests, rule violations, and a way to wait for any of it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Violation:
    """A broken Discord rule, answered as Discord would and kept for tests to assert on.

    ``rule`` is a stable identifier such as ``"components.row-width"`` or
    ``"interaction.double-ack"`` (README lists them); ``status``/``code`` are the HTTP status
    and Discord error code sent back (0/0 for ``interaction.not-acknowledged``, which no request
    answers: the member just sees "This interaction failed").
    """

    rule: str
    message: str
    status: int
    code: int
    request: str
    interaction_id: int | None = None

    def __str__(self) -> str:
        where = f" (interaction {self.interaction_id})" if self.interaction_id else ""
        return f"{self.rule}: {self.message} [{self.request} -> {self.status}/{self.code}]{where}"


@dataclass(frozen=True)
class RequestRecord:
    """One REST request and the status it got."""

    method: str
    path: str
    status: int


class Journal:
    """The emulator's log of requests and violations; ``changed()`` wakes ``wait_for``."""

    def __init__(self) -> None:
        self.requests: list[RequestRecord] = []
        self.violations: list[Violation] = []
        self._changed = asyncio.Event()

    def changed(self) -> None:
        """Tell waiters that the state moved on."""
        self._changed.set()

    def violate(self, violation: Violation) -> None:
        self.violations.append(violation)
        self.changed()

    async def wait_for(self, predicate: Callable[[], object], timeout: float) -> None:
        """Return once ``predicate()`` is true; raise TimeoutError after ``timeout`` seconds.

        The predicate is checked on every change and, as a safety net, every 50 ms.
        """
        async with asyncio.timeout(timeout):
            while not predicate():
                self._changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), 0.05)
