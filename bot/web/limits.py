"""The live board's bounds, so that no stranger can lock the members out: how many WebSockets
the process, a client address, a member and a session hold open — each counted from its accept,
a silent one the first to go —, how often an address opens them and a member opens pages and
sends messages, how many HTTP requests an address has in flight, and how often
``/api/session`` may be asked (each well-formed ask costs three requests to Discord).

A client address is the one :func:`client_address` reads (``X-Forwarded-For`` only from a proxy
on this machine; an IPv6 address by its /64). A refusal says why, in words the page shows where
it can: an error frame before a WebSocket is closed with one of the close codes below, an HTTP
429 with ``Retry-After``; a socket that never said who it is is dropped without a word."""

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
from typing import Any

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


class Buckets:
    """A token bucket per key (an address, a member), made on first use; at most
    :data:`REMEMBERED` are kept — those that refilled are forgotten first, then the oldest:
    forgetting only forgives."""

    def __init__(
        self, rate: tuple[float, float], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.clock = clock
        self._buckets: OrderedDict[object, TokenBucket] = OrderedDict()

    def take(self, key: object) -> float:
        """Take a token of ``key``'s bucket: 0 if there was one, else the seconds until
        there is (nothing taken)."""
        return self.bucket(key).take()

    def bucket(self, key: object) -> TokenBucket:
        bucket = self._buckets.pop(key, None)
        if bucket is None:
            bucket = TokenBucket(*self.rate, clock=self.clock)
            self._forget()
        self._buckets[key] = bucket
        return bucket

    def _forget(self) -> None:
        if len(self._buckets) < REMEMBERED:
            return
        for key in [key for key, bucket in self._buckets.items() if bucket.full()]:
            del self._buckets[key]
        while len(self._buckets) >= REMEMBERED:
            self._buckets.popitem(last=False)


SESSION_BURST, SESSION_RATE = 30, 2.0
"""``/api/session`` asks one address may make at once, then per second. Behind Discord's proxy
many members share an address, so it is generous: it stops a loop, not a crowd. Every ask
counts here, a malformed one too (a loop of them is a loop)."""
ALL_SESSIONS_BURST, ALL_SESSIONS_RATE = 100, 10.0
"""``/api/session`` asks the whole process takes at once, then per second (each costs three
requests to Discord: two with the member's token, one with the bot's). Only a well-formed ask
counts here: a stranger's empty or malformed bodies cost the members nothing."""
REMEMBERED = 10_000
"""Buckets (of addresses, of members) remembered at most (those that refilled are forgotten
first, then the oldest: forgetting only forgives)."""


class SessionLimits:
    """The rate of ``/api/session``: per client address (every ask) and overall (the asks that
    were well formed, so would cost Discord requests)."""

    def __init__(
        self,
        per_address: tuple[float, float] = (SESSION_BURST, SESSION_RATE),
        overall: tuple[float, float] = (ALL_SESSIONS_BURST, ALL_SESSIONS_RATE),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._addresses = Buckets(per_address, clock)
        self._overall = TokenBucket(*overall, clock=clock)

    def address_wait(self, address: str) -> float:
        """0 if ``address`` may ask now (counted), else the seconds until it may."""
        return self._addresses.take(address)

    def overall_wait(self, address: str) -> float:
        """0 if the process takes a well-formed ask of ``address`` now (counted), else the
        seconds until it does (``address`` then keeps the token its ask took)."""
        overall = self._overall.take()
        if overall:
            self._addresses.bucket(address).tokens += 1  # the address's ask was not served
        return overall


def retry_after(seconds: float) -> str:
    """A ``Retry-After`` header's value: whole seconds, at least one."""
    return str(max(1, math.ceil(seconds)))


IPV6_GROUP = 64
"""Leading bits of an IPv6 address that name one client: a /64 is the least a provider hands
one customer, who may use every address of it."""
ADDRESS_LENGTH = 64
"""Characters of an address that are kept (an address a proxy wrote that does not parse)."""


def client_address(peer: str | None, forwarded_for: str | None) -> str:
    """The address a request came from, as the limits count it. The server listens behind a
    reverse proxy on the same machine (``THOLOS_WEB_HOST=127.0.0.1``): when the peer is a
    loopback address, the last entry of ``X-Forwarded-For`` — the one the proxy itself added,
    the address that reached it — is taken; any earlier entries are the client's word and
    ignored. A peer that is not loopback reached the server directly, and its
    ``X-Forwarded-For`` is not believed. An IPv6 address counts as its /64
    (:data:`IPV6_GROUP`), an IPv4 address written as IPv6 as the IPv4 address."""
    peer = peer or "?"
    address = peer
    if forwarded_for and _loopback(peer):
        last = forwarded_for.split(",")[-1].strip()
        address = last or peer
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address[:ADDRESS_LENGTH]
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, IPV6_GROUP), strict=False))
    return str(parsed)


def _loopback(peer: str) -> bool:
    try:
        return ipaddress.ip_address(peer).is_loopback
    except ValueError:
        return False


PAGES_PER_ADDRESS = 500
"""Live-board WebSockets one client address (an IPv6 /64) holds open at once, said hello or
not. Inside Discord every page comes through Discord's proxy, whose few addresses many members
share, so it is a quarter of :data:`PAGES_PER_PROCESS`: one stranger's address gets a share of
the process, not all of it; a crowd behind one proxy address still fits."""
SILENT_SOCKETS = 256
"""Live-board WebSockets waiting for their hello at once; a new one cuts the one that has waited
longest. A page says hello one round trip after it opens, so even a restart's storm of
reconnecting pages (a thousand a second, Discord's proxy adding a fifth of a second) has fewer
waiting at once; a stranger's silent sockets cost the process no more than these, whatever
their number (each is some hundred objects that the garbage collector walks)."""
PAGES_PER_MEMBER = 16
"""Live-board WebSockets one member holds open at once, over all their sessions: two sessions'
share (:data:`PAGES_PER_SESSION`), a computer and a phone. A member may ask for many sessions;
this keeps the sockets of one Discord account, vouched for or not, to a page's worth."""
MEMBER_OPENS = 16, 0.5
"""Pages one member may open (say hello on) at once, then per second, over all their sessions:
a member opens a page or two and a dropped connection reconnects; a page closed and opened again
and again is a loop (each open reads the member's games), refused as a full board (the page tries
again a little later)."""
MEMBER_MESSAGES = 20, 8.0
"""Messages all of one member's pages may send at once, then per second (each page is also held
to its own rate, :data:`bot.web.live.PER_SECOND`): twice what one page may, so a member's
sixteen pages take no more of the process than two."""
SOCKETS_PER_ADDRESS = 200, 20.0
"""Live-board WebSockets one client address may open at once, then per second; more are refused
before their upgrade (HTTP 429, the cheapest answer). Behind Discord's proxy many members share
an address: after a restart every page reconnects within seconds, so a burst of 200; a stranger
opening and closing sockets by the thousand is held to 20 a second from each address, which is
what the process's other limits cost."""
REQUESTS_PER_ADDRESS = 64
"""HTTP requests (not WebSockets) one client address has in flight at once. A page's start is
six requests that each take milliseconds, so 64 at once is a crowd behind Discord's proxy; more
is a client holding requests open (a body that never comes), answered 429."""


@dataclass(eq=False)
class Door:
    """One live-board WebSocket, counted from its accept until it closes."""

    address: str
    refused: str | None = None
    """Why it may not stay (an error code of the page's, ``full``), or ``None``."""
    cut: Callable[[], None] | None = None
    """Ends its wait for a hello at once (set while it waits for one, and only then)."""


class Doors:
    """Counts the open live-board WebSockets: in all and by client address from their accept,
    by member and by session from their hello; and how often a member opens pages and sends
    messages.

    A socket that has not said hello yet is the cheapest to let go: when the process is full
    (or its address is, or :data:`SILENT_SOCKETS` wait for their hello), a new socket takes the
    place of the one that has waited longest for its hello — a page says hello at once, so only
    a socket that stays silent is cut, and silent sockets can never keep a page out."""

    def __init__(
        self,
        per_session: int = PAGES_PER_SESSION,
        per_process: int = PAGES_PER_PROCESS,
        per_address: int = PAGES_PER_ADDRESS,
        per_member: int = PAGES_PER_MEMBER,
        silent: int = SILENT_SOCKETS,
        member_opens: tuple[float, float] = MEMBER_OPENS,
        member_messages: tuple[float, float] = MEMBER_MESSAGES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_session = per_session
        self.per_process = per_process
        self.per_address = per_address
        self.per_member = per_member
        self.silent = silent
        self.open = 0
        self.cut = 0
        """Silent sockets cut to make room, since the start."""
        self._addresses: Counter[str] = Counter()
        self._members: Counter[int] = Counter()
        self._sessions: Counter[str] = Counter()
        self._silent: OrderedDict[Door, None] = OrderedDict()
        """The sockets waiting for their hello, the longest waiting first."""
        self._opens = Buckets(member_opens, clock)
        self._messages = Buckets(member_messages, clock)

    @contextlib.contextmanager
    def socket(self, address: str) -> Iterator[Door]:
        """Count one WebSocket of ``address`` while the block runs; its door is ``refused``
        when neither the process nor the address has room, even after cutting a silent one."""
        door = Door(address)
        self.open += 1
        self._addresses[address] += 1
        try:
            over_address = self._addresses[address] > self.per_address
            if (over_address or self.open > self.per_process) and not self._cut(
                address if over_address else None
            ):
                door.refused = "full"
            else:
                if len(self._silent) >= self.silent:
                    self._cut(None)
                self._silent[door] = None
            yield door
        finally:
            self._silent.pop(door, None)
            self.open -= 1
            _release(self._addresses, address)

    def _cut(self, address: str | None) -> bool:
        """Cut the silent socket (of ``address``, or any) that has waited longest; whether
        there was one."""
        found = next(
            (
                door
                for door in self._silent
                if door.cut is not None and (address is None or door.address == address)
            ),
            None,
        )
        if found is None or found.cut is None:
            return False
        del self._silent[found]
        self.cut += 1
        found.cut()
        return True

    @contextlib.contextmanager
    def member(self, door: Door, user_id: int, session: str) -> Iterator[str | None]:
        """Count a socket that said hello as its member's, of the session ``session``, while
        the block runs; yields why it may not stay (an error code of the page's:
        ``too_many_pages`` past the member's or the session's share, ``full`` when the member
        opens pages too often), or ``None``."""
        self._silent.pop(door, None)
        self._members[user_id] += 1
        self._sessions[session] += 1
        try:
            if (
                self._members[user_id] > self.per_member
                or self._sessions[session] > self.per_session
            ):
                yield "too_many_pages"
            else:
                yield "full" if self._opens.take(user_id) else None
        finally:
            _release(self._members, user_id)
            _release(self._sessions, session)

    def message(self, user_id: int) -> bool:
        """Whether a message of the member ``user_id``'s pages is within the member's rate
        (counted)."""
        return not self._messages.take(user_id)


IDLE_CONNECTIONS = 128
"""Connections beyond the pages the process holds before it closes the one idle longest — a
connection with no request in hand: one that never sent a request (a stranger's raw socket
holds a file descriptor as a page does) or a kept-alive one between requests. A page's start
needs one or two; 128 lets that many start at once."""


class Connections:
    """The open connections of the server, by age: when more than ``most`` are open, the one
    idle longest — no request in hand — is closed to make room (a connection is a file
    descriptor; a page's WebSocket is a request in hand for its whole life)."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.closed = 0
        """Idle connections closed to make room, since the start."""
        self._open: OrderedDict[object, Callable[[], None]] = OrderedDict()
        self._busy: Counter[object] = Counter()

    def opened(self, connection: object, close: Callable[[], None]) -> None:
        """``connection`` opened (``close`` closes it); the one idle longest closed if there
        are too many."""
        self._open[connection] = close
        if len(self._open) > self.most:
            idle = next(
                (c for c in self._open if c not in self._busy and c is not connection), None
            )
            if idle is not None:
                self.closed += 1
                self._open.pop(idle)()

    @property
    def open(self) -> int:
        return len(self._open)

    @property
    def in_hand(self) -> int:
        """Connections with a request in hand."""
        return len(self._busy)

    def lost(self, connection: object) -> None:
        self._open.pop(connection, None)
        self._busy.pop(connection, None)

    @contextlib.contextmanager
    def busy(self, connection: object) -> Iterator[None]:
        """``connection`` has a request in hand while the block runs."""
        self._busy[connection] += 1
        try:
            yield
        finally:
            if connection in self._busy:
                _release(self._busy, connection)


class Requests:
    """Counts the HTTP requests in flight by client address."""

    def __init__(self, per_address: int = REQUESTS_PER_ADDRESS) -> None:
        self.per_address = per_address
        self._addresses: Counter[str] = Counter()

    @contextlib.contextmanager
    def request(self, address: str) -> Iterator[bool]:
        """Count one request of ``address`` while the block runs; yields whether it fits."""
        self._addresses[address] += 1
        try:
            yield self._addresses[address] <= self.per_address
        finally:
            _release(self._addresses, address)


def _release(counter: Counter[Any], key: object) -> None:
    """One less of ``key`` in ``counter`` (forgotten at none)."""
    counter[key] -= 1
    if not counter[key]:
        del counter[key]


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
