"""Turn reminders in the database: which are due (oldest first, on this process's shards), when
the next one is, clearing one once sent (a compare-and-set on the game's version); and where
each player wants theirs (``player_settings``).

The due time itself is written with the change that leaves a human to move
(:func:`~bot.storage.games.sql_rules.reminder_due`, in
:func:`~bot.storage.games.changes.record_turn` and
:func:`~bot.storage.games.changes.insert_game`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.base.server_rules import ReminderDefaults
from bot.base.shards import EVERY_SERVER, Shards
from bot.storage.db import Database, scalar
from bot.storage.games.sql_rules import reminder_due
from bot.storage.leases import Lease, end

ReminderChoice = Literal["off", "here", "dm"]
"""Where a player wants their turn reminders: none, in the game's channel, or by DM."""
DEFAULT_CHOICE: ReminderChoice = "here"
"""Where a player who chose nothing gets their reminders: in the game's thread or channel."""
_PENDING = "status = 'active' AND reminder_due_at IS NOT NULL"
"""Matches the partial index ``games_reminders_due`` (keep the two in step)."""


@dataclass(frozen=True, slots=True)
class DueReminder:
    """A reminder whose time has come, as the sweep found it (re-read the game before sending:
    it may have changed since)."""

    game_id: int
    guild_id: int
    version: int
    due_at: float


class ReminderStore:
    """The reminders of games, and the players' choices of where to get them."""

    def __init__(self, database: Database, shards: Shards = EVERY_SERVER) -> None:
        self.database = database
        self.shards = shards
        """The servers whose reminders this process sends (:meth:`due`, :meth:`next_due` read
        only theirs)."""

    async def due(self, now: float, limit: int) -> list[DueReminder]:
        """At most ``limit`` reminders due by ``now``, the oldest first."""
        mine, shards = self.shards.sql()
        rows = await self.database.fetchall(
            f"SELECT id, guild_id, version, reminder_due_at FROM games WHERE {_PENDING} "
            f"AND reminder_due_at <= ? AND {mine} ORDER BY reminder_due_at, id LIMIT ?",
            (now, *shards, limit),
        )
        return [DueReminder(*row) for row in rows]

    async def next_due(self, after: float) -> float | None:
        """When the first reminder due after ``after`` is due (``None``: none is pending)."""
        mine, shards = self.shards.sql()
        return await scalar(
            self.database,
            f"SELECT MIN(reminder_due_at) FROM games WHERE {_PENDING} "
            f"AND reminder_due_at > ? AND {mine}",
            (after, *shards),
        )

    async def clear(self, game_id: int, version: int, lease: Lease | None = None) -> bool:
        """The reminder of the game's ``version`` is sent (or not to be sent): clear it, and end
        its ``lease``; ``False`` when the game changed meanwhile (nothing is cleared: the change
        stored its own reminder)."""
        async with self.database.transaction() as transaction:
            changed = await transaction.execute(
                "UPDATE games SET reminder_due_at = NULL "
                "WHERE id = ? AND version = ? AND reminder_due_at IS NOT NULL",
                (game_id, version),
            )
            if lease is not None:
                await end(transaction, lease)
        return changed == 1

    async def postpone(self, game_id: int, version: int, due_at: float) -> bool:
        """Move the pending reminder of the game's ``version`` to ``due_at`` (the server's
        reminder time grew since it was stored); ``False`` when the game changed meanwhile."""
        async with self.database.transaction() as transaction:
            changed = await transaction.execute(
                "UPDATE games SET reminder_due_at = ? "
                "WHERE id = ? AND version = ? AND reminder_due_at IS NOT NULL",
                (due_at, game_id, version),
            )
        return changed == 1

    async def reschedule_server(self, guild_id: int, defaults: ReminderDefaults) -> float | None:
        """A server's reminder or idle-claim time changed: its pending reminders are due at
        their last move plus the time now in force (cleared when reminders are now off);
        return the first due time (``None``: none is pending)."""
        due, values = reminder_due(defaults, None)
        async with self.database.transaction() as transaction:
            await transaction.execute(
                f"UPDATE games SET reminder_due_at = {due} WHERE guild_id = ? AND {_PENDING}",
                (*values, guild_id),
            )
            return await scalar(
                transaction,
                f"SELECT MIN(reminder_due_at) FROM games WHERE guild_id = ? AND {_PENDING}",
                (guild_id,),
            )

    async def choice(self, user_id: int) -> ReminderChoice:
        """Where ``user_id`` wants their reminders (:data:`DEFAULT_CHOICE` unless they chose)."""
        chosen = await scalar(
            self.database, "SELECT reminders FROM player_settings WHERE user_id = ?", (user_id,)
        )
        return chosen or DEFAULT_CHOICE

    async def choose(self, user_id: int, choice: ReminderChoice, now: float) -> None:
        """Remember where ``user_id`` wants their reminders."""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "INSERT INTO player_settings (user_id, reminders, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET reminders = excluded.reminders, "
                "updated_at = excluded.updated_at",
                (user_id, choice, now),
            )
