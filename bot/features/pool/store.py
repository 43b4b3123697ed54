"""The pool's tables: the members who opted in, who blocked whom, and who waits for which pace
(one pace at a time) and where their game is to be shown.

Taking a pair out of the queue is a compare-and-set inside the transaction that starts their
game (:meth:`PoolStore.take`): each of the two is removed only if still queued for that pace, so
a member who left, moved to another pace or was paired by another wave is never paired twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.base.seats import Seat
from bot.features.ratings import join_server
from bot.storage.db import Database, Row, Transaction, scalar

POOL_TOPIC = "pool"
"""Announced on each change of the queue: ``joined:<pace>``, ``left:<pace>`` and
``paired:<game>:<user>:<user>`` (the waiting messages and pages listen)."""
_SEAT = "user_id, pace, since, guild_id, channel_id, venue, language, server_name"


class NotInThePoolError(Exception):
    """The member has not opted in to the pool (or opted out)."""


@dataclass(frozen=True, slots=True)
class Queued:
    """A member waiting in the pool: for which pace, since when, and their seat (where their
    game is to be shown)."""

    seat: Seat
    pace: str
    since: float


@dataclass(frozen=True, slots=True)
class Candidate:
    """A member waiting for one pace, as a wave sees them."""

    user_id: int
    since: float
    last_opponent_id: int | None


def _queued(row: Row, name: str) -> Queued:
    """A queue's row as what its member waits for, shown as ``name``."""
    seat = Seat(
        row["user_id"],
        name,
        row["guild_id"],
        row["channel_id"],
        row["venue"],
        row["language"],
        row["server_name"],
    )
    return Queued(seat, row["pace"], row["since"])


class PoolStore:
    """The pool in the database."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def opted_in(self, user_id: int) -> bool:
        """Whether ``user_id`` opted in to the pool."""
        found = await scalar(
            self.database, "SELECT 1 FROM pool_members WHERE user_id = ?", (user_id,)
        )
        return found is not None

    async def opt_in(self, user_id: int, name: str, now: float) -> None:
        """``user_id`` opts in, shown as ``name`` (their global display name)."""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "INSERT INTO pool_members (user_id, name, joined_at) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET name = excluded.name",
                (user_id, name, now),
            )

    async def opt_out(self, user_id: int) -> bool:
        """``user_id`` leaves the pool (and its queue); ``False`` if they were not in it."""
        async with self.database.transaction() as transaction:
            pace = await _dequeue(transaction, user_id)
            left = await transaction.execute(
                "DELETE FROM pool_members WHERE user_id = ?", (user_id,)
            )
        return left == 1 or pace is not None

    async def join(self, seat: Seat, pace: str, now: float) -> float:
        """Queue ``seat``'s member for ``pace`` (queued for another pace: moved; for the same:
        their place is updated, their wait kept), and on the leaderboards of the server they
        queue from; since when they wait. Raises
        :class:`NotInThePoolError` unless they opted in."""
        async with self.database.transaction() as transaction:
            named = await transaction.execute(
                "UPDATE pool_members SET name = ? WHERE user_id = ?", (seat.name, seat.user_id)
            )
            if named != 1:
                raise NotInThePoolError
            before = await scalar(
                transaction, "SELECT pace FROM pool_queue WHERE user_id = ?", (seat.user_id,)
            )
            since = await scalar(
                transaction,
                "INSERT INTO pool_queue (user_id, pace, since, guild_id, channel_id, venue, "
                "language, server_name) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET pace = excluded.pace, "
                "since = CASE WHEN pool_queue.pace = excluded.pace THEN pool_queue.since "
                "ELSE excluded.since END, guild_id = excluded.guild_id, "
                "channel_id = excluded.channel_id, venue = excluded.venue, "
                "language = excluded.language, server_name = excluded.server_name "
                "RETURNING since",
                (
                    seat.user_id,
                    pace,
                    now,
                    seat.guild_id,
                    seat.channel_id,
                    seat.venue,
                    seat.language,
                    seat.server_name,
                ),
            )
            if seat.venue == "server":  # on the server's leaderboards from now
                await join_server(transaction, seat.guild_id, seat.user_id)
            if before is not None and before != pace:
                await transaction.announce(POOL_TOPIC, f"left:{before}")
            await transaction.announce(POOL_TOPIC, f"joined:{pace}")
        return float(since)

    async def leave(self, user_id: int) -> str | None:
        """Take ``user_id`` out of the queue; the pace they waited for (``None``: they did
        not wait)."""
        async with self.database.transaction() as transaction:
            return await _dequeue(transaction, user_id)

    async def queued(self, user_id: int) -> Queued | None:
        """What ``user_id`` waits for (``None``: nothing)."""
        row = await self.database.fetchone(
            "SELECT q.user_id, q.pace, q.since, q.guild_id, q.channel_id, q.venue, q.language, "
            "q.server_name, m.name FROM pool_queue q "
            "JOIN pool_members m ON m.user_id = q.user_id WHERE q.user_id = ?",
            (user_id,),
        )
        return None if row is None else _queued(row, row["name"])

    async def waiting(self, pace: str) -> int:
        """How many wait for ``pace``."""
        return await scalar(
            self.database, "SELECT COUNT(*) FROM pool_queue WHERE pace = ?", (pace,)
        )

    async def paces(self) -> list[str]:
        """The paces someone waits for."""
        rows = await self.database.fetchall("SELECT DISTINCT pace FROM pool_queue ORDER BY pace")
        return [row[0] for row in rows]

    async def candidates(self, pace: str) -> tuple[list[Candidate], list[tuple[int, int]]]:
        """Those waiting for ``pace`` (the longest waiting first), and the blocks between
        them (blocker, blocked)."""
        async with self.database.snapshot() as reader:
            rows = await reader.fetchall(
                "SELECT q.user_id, q.since, m.last_opponent_id FROM pool_queue q "
                "JOIN pool_members m ON m.user_id = q.user_id WHERE q.pace = ? "
                "ORDER BY q.since, q.user_id",
                (pace,),
            )
            blocks = await reader.fetchall(
                "SELECT b.user_id, b.blocked_id FROM blocks b "
                "JOIN pool_queue q ON q.user_id = b.user_id AND q.pace = ? "
                "JOIN pool_queue o ON o.user_id = b.blocked_id AND o.pace = ?",
                (pace, pace),
            )
        return [Candidate(*row) for row in rows], [(row[0], row[1]) for row in blocks]

    async def take(self, transaction: Transaction, user_id: int, pace: str) -> Seat | None:
        """Inside the transaction that pairs them: take ``user_id`` out of the queue if they
        still wait for ``pace`` (a compare-and-set); their seat, or ``None``."""
        row = await transaction.fetchone(
            f"DELETE FROM pool_queue WHERE user_id = ? AND pace = ? RETURNING {_SEAT}",
            (user_id, pace),
        )
        if row is None:
            return None
        name = await scalar(
            transaction, "SELECT name FROM pool_members WHERE user_id = ?", (user_id,)
        )
        return _queued(row, name).seat

    async def met(self, transaction: Transaction, first: int, second: int) -> None:
        """Inside the pairing transaction: each is the other's last opponent."""
        await transaction.executemany(
            "UPDATE pool_members SET last_opponent_id = ? WHERE user_id = ?",
            [(second, first), (first, second)],
        )


async def _dequeue(transaction: Transaction, user_id: int) -> str | None:
    """Take ``user_id`` out of the queue, announced; the pace they waited for."""
    pace = await scalar(
        transaction, "DELETE FROM pool_queue WHERE user_id = ? RETURNING pace", (user_id,)
    )
    if pace is not None:
        await transaction.announce(POOL_TOPIC, f"left:{pace}")
    return pace


class BlockStore:
    """Who blocked whom: never paired, their challenges never shown to the blocker."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def block(self, user_id: int, blocked_id: int, now: float) -> bool:
        """``user_id`` blocks ``blocked_id``; ``False`` if they already had."""
        async with self.database.transaction() as transaction:
            added = await transaction.execute(
                "INSERT INTO blocks (user_id, blocked_id, at) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id, blocked_id) DO NOTHING",
                (user_id, blocked_id, now),
            )
        return added == 1

    async def unblock(self, user_id: int, blocked_id: int) -> bool:
        """``user_id`` unblocks ``blocked_id``; ``False`` if they had not blocked them."""
        async with self.database.transaction() as transaction:
            removed = await transaction.execute(
                "DELETE FROM blocks WHERE user_id = ? AND blocked_id = ?", (user_id, blocked_id)
            )
        return removed == 1

    async def between(self, first: int, second: int) -> bool:
        """Whether either of two members blocked the other."""
        found = await scalar(
            self.database,
            "SELECT 1 FROM blocks WHERE (user_id = ? AND blocked_id = ?) "
            "OR (user_id = ? AND blocked_id = ?)",
            (first, second, second, first),
        )
        return found is not None

    async def blocked_by(self, user_id: int) -> set[int]:
        """The members ``user_id`` blocked."""
        rows = await self.database.fetchall(
            "SELECT blocked_id FROM blocks WHERE user_id = ?", (user_id,)
        )
        return {row[0] for row in rows}
