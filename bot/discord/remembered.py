"""Discord's answers remembered a while: by key, for some seconds, at most so many (the oldest
forgotten first), each asked once however many ask for it at the same moment. An ask that
fails is not remembered."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

MOST = 4096
"""Answers remembered at most by one :class:`Remembered` (the oldest forgotten first)."""


class Remembered(Generic[K, V]):
    """Answers kept ``seconds`` by key (at most ``most``): a miss asks, and everyone who asks
    for the same key meanwhile waits for that one answer; :meth:`put` tells one asked
    elsewhere."""

    def __init__(self, seconds: float, most: int = MOST) -> None:
        self.seconds = seconds
        self.most = most
        self._answers: OrderedDict[K, tuple[float, asyncio.Future[V]]] = OrderedDict()

    async def get(
        self,
        key: K,
        ask: Callable[[], Awaitable[V]],
        before_asking: Callable[[], object] | None = None,
    ) -> V:
        """The answer kept for ``key``, else ``ask()``'s (kept from when it was asked).
        ``before_asking``: called before a question is asked, not for an answer kept (it may
        raise to say the question may not be asked)."""
        found = self._answers.get(key)
        if found is not None and found[0] > time.monotonic():
            answer = found[1]
        else:
            if before_asking is not None:
                before_asking()
            answer = asyncio.ensure_future(ask())
            self._keep(key, answer)
            answer.add_done_callback(lambda done: self._forget_failed(key, done))
        return await asyncio.shield(answer)

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` as the answer for ``key`` from now on (one asked elsewhere)."""
        answer: asyncio.Future[V] = asyncio.get_running_loop().create_future()
        answer.set_result(value)
        self._keep(key, answer)

    def _keep(self, key: K, answer: asyncio.Future[V]) -> None:
        self._answers[key] = (time.monotonic() + self.seconds, answer)
        self._answers.move_to_end(key)
        while len(self._answers) > self.most:
            self._answers.popitem(last=False)

    def _forget_failed(self, key: K, answer: asyncio.Future[V]) -> None:
        if answer.cancelled() or answer.exception() is not None:
            kept = self._answers.get(key)
            if kept is not None and kept[1] is answer:
                del self._answers[key]
