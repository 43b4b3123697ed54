"""The review repository: one review by the AI per finished game, queued until a process runs
it (under a lease), then stored for good; a try that fails is due again later, until the review
is given up as failed, with its reason."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.base.shards import EVERY_SERVER, Shards
from bot.storage.db import Database, Row, UniqueViolation

ReviewStatus = Literal["queued", "running", "done", "failed"]
_COLUMNS = (
    "game_id, guild_id, channel_id, message_id, requested_by, status, done, "
    "total, review, finished_at, attempts, next_attempt_at, failure"
)


@dataclass(frozen=True, slots=True)
class ReviewRecord:
    """A review as stored: where it is shown, how far it got, and (once done) its JSON."""

    game_id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    requested_by: int
    status: ReviewStatus
    done: int
    total: int
    review: str | None
    finished_at: float | None
    attempts: int
    """How many tries failed."""
    next_attempt_at: float
    """When it is due (the request, or the backoff after a failed try)."""
    failure: str | None
    """Why the last try failed."""


def _record(row: Row) -> ReviewRecord:
    return ReviewRecord(*(row[index] for index in range(13)))


REVIEWS_TOPIC = "reviews"
"""Announced with a game's id when its review is queued: the processes that run reviews look."""


class ReviewStore:
    """Reviews in the database."""

    def __init__(self, database: Database, shards: Shards = EVERY_SERVER) -> None:
        self.database = database
        self.shards = shards
        """The servers whose reviews this process runs (:meth:`waiting` reads only theirs)."""

    async def request(
        self, game_id: int, guild_id: int, channel_id: int, user_id: int, now: float, total: int
    ) -> tuple[ReviewRecord, bool]:
        """Queue a review of ``game_id`` (shown in ``channel_id``); the existing one if it
        was asked for before. ``True`` with a new one."""
        try:
            async with self.database.transaction() as transaction:
                row = await transaction.fetchone(
                    f"INSERT INTO reviews (game_id, guild_id, channel_id, requested_by, "
                    f"requested_at, total, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                    f"RETURNING {_COLUMNS}",
                    (game_id, guild_id, channel_id, user_id, now, total, now),
                )
                await transaction.announce(REVIEWS_TOPIC, str(game_id))
        except UniqueViolation:
            existing = await self.review(game_id)
            assert existing is not None  # reviews are never deleted
            return existing, False
        assert row is not None
        return _record(row), True

    async def review(self, game_id: int) -> ReviewRecord | None:
        """The review of a game, if one was asked for."""
        row = await self.database.fetchone(
            f"SELECT {_COLUMNS} FROM reviews WHERE game_id = ?", (game_id,)
        )
        return None if row is None else _record(row)

    async def waiting(self) -> list[ReviewRecord]:
        """This process's servers' reviews not finished yet (queued, or running somewhere), the
        first due first (a review that failed lately waits out its backoff behind the others)."""
        mine, shards = self.shards.sql()
        rows = await self.database.fetchall(
            f"SELECT {_COLUMNS} FROM reviews WHERE status IN ('queued', 'running') AND {mine} "
            "ORDER BY next_attempt_at, requested_at, game_id",
            shards,
        )
        return [_record(row) for row in rows]

    async def set_message(self, game_id: int, message_id: int) -> None:
        """Remember the message that shows the review's progress and result."""
        await self._update(game_id, "message_id = ?", (message_id,))

    async def progress(self, game_id: int, done: int, total: int) -> None:
        """The review is running: ``done`` of ``total`` positions evaluated."""
        await self._update(
            game_id, "status = 'running', done = ?, total = ?", (done, total), waiting=True
        )

    async def finish(self, game_id: int, review: str, now: float) -> None:
        """Store the finished review (JSON)."""
        await self._update(
            game_id, "status = 'done', review = ?, done = total, finished_at = ?", (review, now)
        )

    async def retry(self, game_id: int, attempts: int, at: float, failure: str) -> None:
        """A try failed (``failure``, the ``attempts``-th): the review is due again ``at``."""
        await self._update(
            game_id,
            "status = 'queued', attempts = ?, next_attempt_at = ?, failure = ?",
            (attempts, at, failure),
            waiting=True,
        )

    async def fail(self, game_id: int, now: float, failure: str, attempts: int) -> None:
        """Give up on a review (``failure``: why its last try failed)."""
        await self._update(
            game_id,
            "status = 'failed', finished_at = ?, failure = ?, attempts = ?",
            (now, failure, attempts),
            waiting=True,
        )

    async def _update(
        self, game_id: int, assignments: str, values: tuple[object, ...], *, waiting: bool = False
    ) -> None:
        condition = " AND status IN ('queued', 'running')" if waiting else ""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                f"UPDATE reviews SET {assignments} WHERE game_id = ?{condition}",
                (*values, game_id),
            )
