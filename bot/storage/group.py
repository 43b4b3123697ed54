"""Writes committed together (a group commit): the records of several games posted at the same
moment in one transaction, each caller answered once the transaction holding its write has
committed."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from .db import Database, DatabaseUnavailable, Transaction

T = TypeVar("T")
Write = Callable[[Transaction], Awaitable[T]]


class GroupCommit:
    """Runs each write in one transaction with the writes that came while the previous group
    committed: under load, one transaction for many; alone, a write starts at once (nothing
    waits for a group to fill).

    Only for writes independent of one another that may run again after a rollback: if a
    group's transaction fails, each of its writes is tried alone, so that one write's failure
    is its caller's only — unless the database is unavailable or busy, which every caller of
    the group hears at once (tried alone, each would wait as long again). A caller that stops
    waiting does not take its write back (it is committed with its group)."""

    def __init__(self, database: Database, *, ordered: bool = False) -> None:
        self.database = database
        self.ordered = ordered
        self._waiting: list[tuple[Write[Any], asyncio.Future[Any]]] = []
        self._committing: asyncio.Task[None] | None = None

    async def run(self, write: Write[T]) -> T:
        """``write(transaction)``'s result, once committed."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        future.add_done_callback(_retrieved)
        self._waiting.append((write, future))
        if self._committing is None or self._committing.done():
            self._committing = asyncio.create_task(self._commit_waiting(), name="group commit")
        return await asyncio.shield(future)

    async def _commit_waiting(self) -> None:
        group: list[tuple[Write[Any], asyncio.Future[Any]]] = []
        try:
            while self._waiting:
                group, self._waiting = self._waiting, []
                try:
                    results = await self._commit([write for write, _ in group])
                except Exception as error:
                    if len(group) == 1 or isinstance(error, DatabaseUnavailable):
                        for _, future in group:  # (no write's own fault: none tried again)
                            future.set_exception(error)
                    else:
                        await self._commit_each(group)
                    continue
                for (_, future), result in zip(group, results, strict=True):
                    future.set_result(result)
        finally:  # cancelled (the loop closing): nobody is left waiting for ever
            for _, future in group + self._waiting:
                future.cancel()  # (nothing, if it has its result)

    async def _commit(self, writes: list[Write[Any]]) -> list[Any]:
        async with self.database.transaction(ordered=self.ordered) as transaction:
            return [await write(transaction) for write in writes]

    async def _commit_each(self, group: list[tuple[Write[Any], asyncio.Future[Any]]]) -> None:
        for write, future in group:
            try:
                [result] = await self._commit([write])
            except Exception as error:
                future.set_exception(error)
            else:
                future.set_result(result)


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Mark a write's failure as seen: its caller may have stopped waiting."""
    if not future.cancelled():
        future.exception()
