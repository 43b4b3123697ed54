"""The live board's bounds: how many WebSockets a session and the process hold open, and how
often ``/api/session`` may be asked (each ask costs three requests to Discord).

A refusal always says why, in words the page shows: an error frame before a WebSocket is closed
with one of the close codes below, an HTTP 429 with ``Retry-After`` for ``/api/session``."""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import math
import resource
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

PAGES_PER_SESSION = 8
"""Live-board WebSockets one session may hold open at once. A page needs one; a reconnect may
briefly overlap the socket it replaces, and a member may open a second view of the same frame.
More than eight is a runaway client (a reconnect loop), not a member."""
PAGES_PER_PROCESS = 2000
"""Live-board WebSockets one process holds open at once: each is a file descriptor, a task and
a few KiB; 2,000 pages is a busy evening of a large server for one process, well within its
memory and the descriptors it asks for (:func:`descriptors_for`). Past it, a page is told the
board is full and tries again later (another process may take it)."""
RESERVED_DESCRIPTORS = 256
"""File descriptors kept for everything but the pages: the database, Discord's connections,
the workers, logs."""
SESSION_CLOSE = 4001
"""The close code of a page whose session is not valid (only Discord can open it again)."""
TOO_MANY_PAGES_CLOSE = 4029
"""The close code of a page over :data:`PAGES_PER_SESSION` (it does not reconnect)."""
FULL_CLOSE = 4503
"""The close code of a page over the process's :data:`PAGES_PER_PROCESS` (it tries again
later)."""


@dataclass
class TokenBucket:
    """At most ``burst`` at once, then ``per_second``: the classic token bucket."""

    burst: float
    per_second: float
    tokens: float = field(init=False)
    updated: float = field(init=False)
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)

    def __post_init__(self) -> None:
        self.tokens = self.burst
        self.updated = self.clock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.per_second)
        self.updated = now

    def take(self) -> float:
        """Take a token: 0 if there was one, else the seconds until there is (nothing taken)."""
        self._refill()
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.per_second

    def full(self) -> bool:
        """Whether the bucket has refilled (it may then be forgotten: a new one is the same)."""
        self._refill()
        return self.tokens >= self.burst


SESSION_BURST, SESSION_RATE = 30, 2.0
"""``/api/session`` asks one address may make at once, then per second. Behind Discord's proxy
many members share an address, so it is generous: it stops a loop, not a crowd."""
ALL_SESSIONS_BURST, ALL_SESSIONS_RATE = 100, 10.0
"""``/api/session`` asks the whole process takes at once, then per second (each costs three
requests to Discord: two with the member's token, one with the bot's)."""
ADDRESSES = 10_000
"""Addresses whose buckets are remembered at most (those that refilled are forgotten first,
then the oldest: forgetting only forgives)."""


class SessionLimits:
    """The rate of ``/api/session``: per client address and overall."""

    def __init__(
        self,
        per_address: tuple[float, float] = (SESSION_BURST, SESSION_RATE),
        overall: tuple[float, float] = (ALL_SESSIONS_BURST, ALL_SESSIONS_RATE),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._per_address = per_address
        self._clock = clock
        self._overall = TokenBucket(*overall, clock=clock)
        self._addresses: OrderedDict[str, TokenBucket] = OrderedDict()

    def wait(self, address: str) -> float:
        """0 if ``address`` may ask now (counted), else the seconds until it may."""
        bucket = self._addresses.pop(address, None)
        if bucket is None:
            bucket = TokenBucket(*self._per_address, clock=self._clock)
            self._forget()
        self._addresses[address] = bucket
        wait = bucket.take()
        if wait:
            return wait
        overall = self._overall.take()
        if overall:
            bucket.tokens += 1  # the address's ask was not served: it keeps its token
        return overall

    def _forget(self) -> None:
        if len(self._addresses) < ADDRESSES:
            return
        for address in [a for a, bucket in self._addresses.items() if bucket.full()]:
            del self._addresses[address]
        while len(self._addresses) >= ADDRESSES:
            self._addresses.popitem(last=False)


def retry_after(seconds: float) -> str:
    """A ``Retry-After`` header's value: whole seconds, at least one."""
    return str(max(1, math.ceil(seconds)))


def client_address(peer: str | None, forwarded_for: str | None) -> str:
    """The address a request came from. The server listens behind a reverse proxy on the same
    machine (``THOLOS_WEB_HOST=127.0.0.1``): when the peer is a loopback address, the last entry
    of ``X-Forwarded-For`` — the one the proxy itself added, the address that reached it — is
    taken; any earlier entries are the client's word and ignored. A peer that is not loopback
    reached the server directly, and its ``X-Forwarded-For`` is not believed."""
    peer = peer or "?"
    if forwarded_for:
        try:
            loopback = ipaddress.ip_address(peer).is_loopback
        except ValueError:
            loopback = False
        last = forwarded_for.split(",")[-1].strip()
        if loopback and last:
            return last
    return peer


class Doors:
    """Counts the open live-board WebSockets, by session and in all."""

    def __init__(
        self, per_session: int = PAGES_PER_SESSION, per_process: int = PAGES_PER_PROCESS
    ) -> None:
        self.per_session = per_session
        self.per_process = per_process
        self.open = 0
        self._sessions: Counter[str] = Counter()

    @contextlib.contextmanager
    def socket(self) -> Iterator[bool]:
        """Count one WebSocket while the block runs; yields whether it fits in the process."""
        self.open += 1
        try:
            yield self.open <= self.per_process
        finally:
            self.open -= 1

    @contextlib.contextmanager
    def session(self, key: str) -> Iterator[bool]:
        """Count one WebSocket of the session ``key`` while the block runs; yields whether it
        fits in the session's share."""
        self._sessions[key] += 1
        try:
            yield self._sessions[key] <= self.per_session
        finally:
            self._sessions[key] -= 1
            if not self._sessions[key]:
                del self._sessions[key]


def descriptors_for(pages: int) -> int:
    """Make room for ``pages`` WebSockets: raise the process's soft limit of open files towards
    its hard limit if it is lower than they need (plus :data:`RESERVED_DESCRIPTORS`); the pages
    that fit, which is ``pages`` unless the hard limit is lower (then logged)."""
    wanted = pages + RESERVED_DESCRIPTORS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return pages
    fits = max(1, soft - RESERVED_DESCRIPTORS)
    log.warning("open files are limited to %d: the live board takes at most %d pages", soft, fits)
    return fits
