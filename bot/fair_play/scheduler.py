"""One worker shared fairly between members: each member has at most one request running and
a few waiting (a newer one pushes out their oldest waiting, whose asker is told), and the members
who wait take turns — the one served longest ago (or never) goes next, so a member flooding the
worker from many pages delays another member by at most the request already running."""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot.base.refusals import Refusal
from engine.vocabulary import N_

T = TypeVar("T")

REPLACED = N_(
    "A newer request of yours to the engine took this one's place (it keeps only your latest "
    "few): ask again if you still need this one."
)
WAITING_PER_MEMBER = 2
"""How many requests of one member wait (beside the one running) before the oldest gives way."""


class Replaced(Refusal):
    """The request waited, and a newer one of the same member pushed it out of the queue."""

    def __init__(self) -> None:
        super().__init__(REPLACED)


class FairScheduler:
    """Starts each request when it is its member's turn: at most :attr:`running` at once, one
    per member; a member's requests in the order asked, :attr:`waiting_per_member` at most
    waiting; among the members waiting, the one served longest ago first (a member not served
    since they last had nothing waiting counts as never served)."""

    def __init__(self, running: int = 1, waiting_per_member: int = WAITING_PER_MEMBER) -> None:
        self.running = running
        self.waiting_per_member = waiting_per_member
        self._waiting: dict[int, deque[asyncio.Future[None]]] = {}
        """Each member's tickets, oldest first (a member with none has no entry)."""
        self._busy: set[int] = set()
        """The members with a request running."""
        self._served: dict[int, int] = {}
        """When each member waiting or running was last let in (a count, not a time)."""
        self._ticks = itertools.count()

    async def run(self, member: int, work: Callable[[], Awaitable[T]]) -> T:
        """``await work()`` when it is ``member``'s turn; raises :class:`Replaced` if a newer
        request of theirs pushes this one out while it waits. Cancelled while waiting, it
        leaves the queue; cancelled while running, it frees its place for the next."""
        ticket = self._enqueue(member)
        try:
            await ticket
        except asyncio.CancelledError:
            if ticket.done() and not ticket.cancelled():  # let in as it was cancelled
                self._finish(member)
            else:
                self._withdraw(member, ticket)
            raise
        try:
            return await work()
        finally:
            self._finish(member)

    def waiting(self, member: int) -> int:
        """How many requests of ``member`` wait (not counting one running)."""
        return len(self._waiting.get(member, ()))

    def _enqueue(self, member: int) -> asyncio.Future[None]:
        ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._waiting.setdefault(member, deque())
        queue.append(ticket)
        while len(queue) > self.waiting_per_member:
            oldest = queue.popleft()
            if not oldest.done():
                oldest.set_exception(Replaced())
        self._dispatch()
        return ticket

    def _withdraw(self, member: int, ticket: asyncio.Future[None]) -> None:
        queue = self._waiting.get(member)
        if queue is not None and ticket in queue:
            queue.remove(ticket)
            if not queue:
                del self._waiting[member]
        self._forget_if_idle(member)

    def _finish(self, member: int) -> None:
        self._busy.discard(member)
        self._forget_if_idle(member)
        self._dispatch()

    def _forget_if_idle(self, member: int) -> None:
        if member not in self._busy and member not in self._waiting:
            self._served.pop(member, None)

    def _dispatch(self) -> None:
        """Let in the next requests while there is room, the members in turn."""
        while len(self._busy) < self.running:
            member = self._next_member()
            if member is None:
                return
            queue = self._waiting[member]
            ticket = queue.popleft()
            if not queue:
                del self._waiting[member]
            if ticket.done():  # cancelled, not yet withdrawn
                self._forget_if_idle(member)
                continue
            ticket.set_result(None)
            self._busy.add(member)
            self._served[member] = next(self._ticks)

    def _next_member(self) -> int | None:
        """The member waiting, with nothing running, served longest ago (first come among
        those never served); ``None`` if there is none."""
        ready = [member for member in self._waiting if member not in self._busy]
        if not ready:
            return None
        return min(ready, key=lambda member: self._served.get(member, -1))
