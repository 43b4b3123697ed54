"""Leases: when several processes share the database, one of them, not two, does a piece of
background work (posting a board, playing an AI turn). A lease is held by a name until it
expires; taking it again while held by someone else fails."""

from __future__ import annotations

from .db import Database

LEASE_SECONDS = 60.0
"""How long a lease holds: longer than posting a board or searching an AI turn takes."""


class LeaseStore:
    """Named leases in the database."""

    def __init__(self, database: Database, holder: str) -> None:
        self.database = database
        self.holder = holder
        """Who this process is (host, pid and a random part)."""

    async def acquire(self, name: str, now: float, seconds: float = LEASE_SECONDS) -> bool:
        """Take (or renew) the lease ``name`` for ``seconds``; ``False`` while another holder
        has it."""
        async with self.database.transaction() as transaction:
            row = await transaction.fetchone(
                "INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, "
                "expires_at = excluded.expires_at "
                "WHERE leases.expires_at <= ? OR leases.holder = excluded.holder "
                "RETURNING holder",
                (name, self.holder, now + seconds, now),
            )
            await transaction.execute("DELETE FROM leases WHERE expires_at < ?", (now - seconds,))
        return row is not None
