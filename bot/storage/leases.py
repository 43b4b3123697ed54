"""Leases: when several processes share the database, one of them, not two, does a piece of
background work. A lease is held by a name until its holder releases it or it expires; nobody
can take a lease that is held, its holder included.

Every lease the bot takes is built here, with how long it holds:

========================  ===========  =======================================================
name                      held for     the work
========================  ===========  =======================================================
``board:<game>:<ver>``    10 s         posting the board of a game's version (taken by the
                                       transaction that stores the change; recording the board
                                       ends it); ``board:<game>:<ver>:<user>`` in the place
                                       ``user`` asked for a pool game, besides its home
``ai:<game>:<ver>``       10 s         searching, storing and posting the AI's turn
``review:<game>``         10 s,        running a game's review (renewed with its progress)
                          renewed
``reminder:<game>:<ver>`` 15 s         sending the turn reminder of a game's version
``taking:<challenge>``    15 s         taking an open challenge: opening its game's thread and
                                       starting the game (the first to press holds it; the
                                       others are told someone was faster)
``pool:wave``             10 s,        pairing the pool's queue, wave after wave (renewed by
                          renewed      each wave; another process takes over once it runs out)
``<kind>:<game>:<user>``  60 s         answering a member's press of a finished game's Replay,
                                       Record or Analyse (``kind``: ``replay``, ``record``,
                                       ``analyse``) until the answer is posted: a double press
                                       answers once
========================  ===========  =======================================================
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.db import Database, Transaction, scalar


@dataclass(frozen=True, slots=True)
class Lease:
    """One piece of background work: its name, and how long a lease on it holds unless released
    (or renewed) — long enough for the work, short enough that the work of a process killed
    while holding it is picked up soon."""

    name: str
    seconds: float


def board_lease(game_id: int, version: int, away: int | None = None) -> Lease:
    """Posting the first board of a game's version (``away``: in the place that player asked
    for a pool game, not at its home): longer than posting a board takes."""
    place = "" if away is None else f":{away}"
    return Lease(f"board:{game_id}:{version}{place}", 10.0)


def ai_lease(game_id: int, version: int) -> Lease:
    """Playing the AI's turn in a game's version: longer than the strongest level's search
    (2.5 s at most) on a busy machine; after a crash mid-search the AI plays on when it runs out
    (the version's compare-and-set keeps a turn from being stored twice should a slow search
    outlive it)."""
    return Lease(f"ai:{game_id}:{version}", 10.0)


def review_lease(game_id: int) -> Lease:
    """Running a game's review, renewed with its progress (every few seconds): the review of a
    process that died runs again this long after its last sign of life."""
    return Lease(f"review:{game_id}", 10.0)


def reminder_lease(game_id: int, version: int) -> Lease:
    """Sending the turn reminder of a game's version: longer than sending one takes; a process
    killed meanwhile leaves it to another (or to itself restarted) once it runs out, and the
    reminder's nonce keeps Discord from showing it twice."""
    return Lease(f"reminder:{game_id}:{version}", 15.0)


def taking_lease(challenge_id: int) -> Lease:
    """Taking an open challenge: longer than opening a thread and starting a game takes; a
    process killed meanwhile leaves the challenge open to the next press once it runs out."""
    return Lease(f"taking:{challenge_id}", 15.0)


def wave_lease() -> Lease:
    """Pairing the pool's queue: one process at a time runs the waves, renewing it with each
    (every few seconds); another takes over this long after the last."""
    return Lease("pool:wave", 10.0)


class LeaseStore:
    """Leases in the database, held by this process."""

    def __init__(self, database: Database, holder: str) -> None:
        self.database = database
        self.holder = holder
        """Who this process is (host, pid and a random part)."""

    async def acquire(self, lease: Lease, now: float) -> bool:
        """Take ``lease`` for its seconds; ``False`` while anyone holds it."""
        async with self.database.transaction() as transaction:
            return await self.take(transaction, lease, now)

    async def take(self, transaction: Transaction, lease: Lease, now: float) -> bool:
        """:meth:`acquire` inside the caller's transaction (held once it commits)."""
        await transaction.execute("DELETE FROM leases WHERE expires_at <= ?", (now,))
        row = await transaction.fetchone(
            "INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?) "
            "ON CONFLICT (name) DO NOTHING RETURNING holder",
            (lease.name, self.holder, now + lease.seconds),
        )
        return row is not None

    async def renew(self, lease: Lease, now: float) -> bool:
        """Hold ``lease`` for its seconds more; ``False`` if this process lost it."""
        async with self.database.transaction() as transaction:
            changed = await transaction.execute(
                "UPDATE leases SET expires_at = ? WHERE name = ? AND holder = ?",
                (now + lease.seconds, lease.name, self.holder),
            )
        return changed == 1

    async def release(self, lease: Lease) -> None:
        """Give ``lease`` back (if this process still holds it)."""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "DELETE FROM leases WHERE name = ? AND holder = ?", (lease.name, self.holder)
            )

    async def expires_at(self, lease: Lease) -> float | None:
        """When ``lease`` runs out (``None`` when nobody holds it)."""
        return await scalar(
            self.database, "SELECT expires_at FROM leases WHERE name = ?", (lease.name,)
        )


async def end(transaction: Transaction, lease: Lease) -> None:
    """End ``lease`` whoever holds it, in the caller's transaction (the work it guarded is
    recorded as done by the same transaction)."""
    await transaction.execute("DELETE FROM leases WHERE name = ?", (lease.name,))


ANSWER_KINDS = frozenset({"replay", "record", "analyse"})
"""The presses of a finished game answered once at a time (:func:`answer_lease`)."""


def answer_lease(kind: str, game_id: int, user_id: int) -> Lease:
    """Answering ``user_id``'s press of ``kind`` (one of :data:`ANSWER_KINDS`) for a finished
    game, from the press until the answer is posted: a second press meanwhile (a double click)
    is told it is on its way. Longer than drawing the longest replay takes; a process killed
    meanwhile leaves the next press free once it runs out."""
    assert kind in ANSWER_KINDS, kind
    return Lease(f"{kind}:{game_id}:{user_id}", 60.0)
