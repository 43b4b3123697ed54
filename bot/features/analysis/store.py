"""Page requests: the finished game a member asked to analyse from Discord (``/tholos analyse``,
a board's **Analyse**), which the live page they open next in that channel shows. One per member
and channel (a new ask replaces the old); fresh for :data:`PAGE_REQUEST_LIFETIME`, taken —
deleted — once a page shows it. Every ask sweeps the stale ones, so the table holds only the
asks of the last quarter of an hour."""

from __future__ import annotations

from bot.storage.db import Database

PAGE_REQUEST_LIFETIME = 15 * 60.0
"""Seconds an ask waits for its page (Discord launches the Activity within seconds; a member
who opens it much later has moved on)."""
PAGE_REQUESTS_TOPIC = "page_requests"
"""Announced with ``<user>:<channel>`` when a member asks: a page of theirs already open in that
channel shows the game at once."""


class PageRequestStore:
    """Page requests in the database."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def ask(self, user_id: int, channel_id: int, game_id: int, now: float) -> None:
        """``user_id`` asked, in ``channel_id``, to analyse ``game_id`` (replacing an earlier
        ask there); the stale asks of everyone are swept in the same transaction."""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "DELETE FROM page_requests WHERE requested_at < ?", (now - PAGE_REQUEST_LIFETIME,)
            )
            await transaction.execute(
                "INSERT INTO page_requests (user_id, channel_id, game_id, requested_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (user_id, channel_id) DO UPDATE SET "
                "game_id = excluded.game_id, requested_at = excluded.requested_at",
                (user_id, channel_id, game_id, now),
            )
            await transaction.announce(PAGE_REQUESTS_TOPIC, f"{user_id}:{channel_id}")

    async def take(self, user_id: int, channel_id: int, now: float) -> int | None:
        """The game ``user_id`` asked to analyse in ``channel_id``, if the ask is fresh; the ask
        is deleted either way (a page shows it once)."""
        async with self.database.transaction() as transaction:
            row = await transaction.fetchone(
                "DELETE FROM page_requests WHERE user_id = ? AND channel_id = ? "
                "RETURNING game_id, requested_at",
                (user_id, channel_id),
            )
        if row is None or row[1] < now - PAGE_REQUEST_LIFETIME:
            return None
        return int(row[0])
