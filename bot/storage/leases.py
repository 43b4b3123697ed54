"""Leases: when several processes share the database, one of them, not two, does a piece of
background work (posting a board, playing an AI turn). A lease is held by a name until its
holder releases it or it expires; nobody can take a lease that is held, its holder included."""

from __future__ import annotations

from .db import Database, Transaction, scalar

LEASE_SECONDS = 10.0
"""How long a lease holds unless released: longer than posting a board takes, short enough
that the work of a process killed while holding one is picked up soon."""


class LeaseStore:
    """Named leases in the database."""

    def __init__(self, database: Database, holder: str) -> None:
        self.database = database
        self.holder = holder
        """Who this process is (host, pid and a random part)."""

    async def acquire(self, name: str, now: float, seconds: float = LEASE_SECONDS) -> bool:
        """Take the lease ``name`` for ``seconds``; ``False`` while anyone holds it."""
        async with self.database.transaction() as transaction:
            return await self.take(transaction, name, now, seconds)

    async def take(
        self, transaction: Transaction, name: str, now: float, seconds: float = LEASE_SECONDS
    ) -> bool:
        """:meth:`acquire` inside the caller's transaction (held once it commits)."""
        await transaction.execute("DELETE FROM leases WHERE expires_at <= ?", (now,))
        row = await transaction.fetchone(
            "INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?) "
            "ON CONFLICT (name) DO NOTHING RETURNING holder",
            (name, self.holder, now + seconds),
        )
        return row is not None

    async def renew(self, name: str, now: float, seconds: float = LEASE_SECONDS) -> bool:
        """Hold the lease ``name`` for ``seconds`` more; ``False`` if this process lost it."""
        async with self.database.transaction() as transaction:
            changed = await transaction.execute(
                "UPDATE leases SET expires_at = ? WHERE name = ? AND holder = ?",
                (now + seconds, name, self.holder),
            )
        return changed == 1

    async def release(self, name: str) -> None:
        """Give the lease back (if this process still holds it)."""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "DELETE FROM leases WHERE name = ? AND holder = ?", (name, self.holder)
            )

    async def expires_at(self, name: str) -> float | None:
        """When the lease ``name`` runs out (``None`` when nobody holds it)."""
        return await scalar(self.database, "SELECT expires_at FROM leases WHERE name = ?", (name,))


def board_lease(game_id: int, version: int) -> str:
    """The lease of posting the first board of a game's version."""
    return f"board:{game_id}:{version}"
