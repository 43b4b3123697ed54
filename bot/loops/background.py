"""What every background loop shares so that it cannot stall: a timeout on each Discord call,
retries with backoff that keep bounded memory, and a shutdown that waits for its tasks."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
from collections import OrderedDict
from collections.abc import Awaitable, Collection, Hashable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")
K = TypeVar("K", bound=Hashable)

DISCORD_CALL_SECONDS = 10.0
"""The longest a background loop waits for one Discord request (discord.py's own limit is
aiohttp's five minutes, rate-limit waits not counted): a Discord that hangs on one game's request
must not hold up the expiries, reminders and reposts of every other game."""
STOP_SECONDS = 10.0
"""How long a shutdown waits for its cancelled background tasks to finish."""


async def discord_call(call: Awaitable[T], seconds: float | None = None) -> T:
    """``await call`` for at most ``seconds`` (:data:`DISCORD_CALL_SECONDS` unless given);
    raises :class:`TimeoutError` after that (the request is abandoned; the caller logs it and
    goes on with the next game)."""
    async with asyncio.timeout(DISCORD_CALL_SECONDS if seconds is None else seconds):
        return await call


async def wait_for_event(event: asyncio.Event, seconds: float) -> None:
    """Wait until ``event`` is set or ``seconds`` have passed. (Not ``asyncio.wait_for``: in
    Python 3.11 it can swallow the cancellation of a shutdown that arrives as the event is
    set, and the loop would go on.)"""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await event.wait()


@dataclass(frozen=True, slots=True)
class Backoff:
    """Exponential backoff: the first retry ``first`` seconds after the first failure, each
    next one ``factor`` times later (at most ``longest``); given up after ``tries`` failures."""

    first: float
    tries: int
    factor: float = 2.0
    longest: float = 3600.0

    def delay(self, failures: int) -> float:
        """Seconds from the ``failures``-th failure (1, 2, …) to the next try."""
        return min(self.longest, self.first * self.factor ** max(0, failures - 1))

    def gives_up(self, failures: int) -> bool:
        """Whether ``failures`` failures are enough to stop trying."""
        return failures >= self.tries


@dataclass(frozen=True, slots=True)
class _Failing:
    failures: int
    retry_at: float


class Retries(Generic[K]):
    """The pieces of work that failed lately (e.g. boards Discord refused to post), each tried
    again after a backoff, and given up after :attr:`Backoff.tries` failures (with a log line).

    Memory is bounded: at most ``capacity`` keys are remembered, the longest untouched one
    forgotten first (forgetting only means that work is tried again sooner)."""

    def __init__(self, what: str, backoff: Backoff, capacity: int = 1000) -> None:
        self.what = what
        """What the keys are, for the log (e.g. ``"board of game"``)."""
        self.backoff = backoff
        self.capacity = capacity
        self._failing: OrderedDict[K, _Failing] = OrderedDict()

    def __len__(self) -> int:
        return len(self._failing)

    def retry_at(self, key: K) -> float | None:
        """When ``key``, which failed lately, may be tried again (``math.inf`` once given up);
        ``None`` if it has not failed."""
        failing = self._failing.get(key)
        return None if failing is None else failing.retry_at

    def ready(self, key: K, now: float) -> bool:
        """Whether ``key`` may be tried now: it has not failed lately, or its backoff is over
        (never once given up)."""
        retry_at = self.retry_at(key)
        return retry_at is None or retry_at <= now

    def failed(self, key: K, now: float, reason: object) -> float | None:
        """``key`` failed (``reason``, logged) at ``now``: when to try it again, or ``None``
        once it is given up (it stays given up until forgotten)."""
        failures = self._failing.pop(key, _Failing(0, now)).failures + 1
        if self.backoff.gives_up(failures):
            log.warning("gave up on the %s %s after %d tries: %s", self.what, key, failures, reason)
            retry_at = math.inf
        else:
            retry_at = now + self.backoff.delay(failures)
            log.info(
                "the %s %s failed (%d of %d tries), next try in %.0f s: %s",
                self.what,
                key,
                failures,
                self.backoff.tries,
                retry_at - now,
                reason,
            )
        self._failing[key] = _Failing(failures, retry_at)
        while len(self._failing) > self.capacity:
            self._failing.popitem(last=False)
        return None if retry_at == math.inf else retry_at

    def succeeded(self, key: K) -> None:
        """``key`` worked (or no longer needs doing): forget its failures."""
        self._failing.pop(key, None)


async def stop_tasks(tasks: Collection[asyncio.Task[Any]], seconds: float = STOP_SECONDS) -> None:
    """Cancel ``tasks`` and wait (at most ``seconds``) until they have finished; log those that
    did not, and the errors of those that failed."""
    tasks = [task for task in tasks if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    if not tasks:
        return
    done, pending = await asyncio.wait(tasks, timeout=seconds)
    for task in pending:
        log.warning("background task %s did not stop within %.0f s", task.get_name(), seconds)
    for task in done:
        if not task.cancelled() and task.exception() is not None:
            log.error("background task %s failed", task.get_name(), exc_info=task.exception())


NONCE_LIMIT = 25
"""Discord's longest message nonce."""


def nonce(*parts: object) -> str:
    """The nonce of the message of one step of a background loop (``"rt", 12, 3``: the
    reminder in the channel of game 12's version 3): always the same for one step, so that
    Discord answers a second send within its nonce window (after a kill -9) with the first
    message instead of posting it again; at most 25 characters (longer ones hashed)."""
    text = ".".join(str(part) for part in parts)
    if len(text) <= NONCE_LIMIT:
        return text
    return hashlib.sha256(text.encode()).hexdigest()[:NONCE_LIMIT]
