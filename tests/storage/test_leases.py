"""Leases on both backends: one holder at a time, its holder included, until it is released or
expires."""

from __future__ import annotations

from bot.storage.leases import (
    ANSWER_KINDS,
    Lease,
    LeaseStore,
    ai_lease,
    answer_lease,
    board_lease,
    reminder_lease,
    review_lease,
)


async def test_one_holder_at_a_time_until_released_or_expired(database):
    """A held lease cannot be taken, not even by its holder; released, or once expired, anyone
    takes it; another name is independent."""
    first, second = LeaseStore(database, "a:1"), LeaseStore(database, "b:2")
    three, four = Lease("board:1:3", 10), Lease("board:1:4", 10)
    assert await first.acquire(three, now=100.0)
    assert not await second.acquire(three, now=105.0)
    assert not await first.acquire(three, now=105.0)
    assert await first.acquire(four, now=105.0)
    assert await first.expires_at(three) == 110.0
    await second.release(three)  # not its lease: nothing happens
    assert not await second.acquire(three, now=106.0)
    await first.release(three)
    assert await first.expires_at(three) is None
    assert await second.acquire(three, now=107.0)
    assert await first.acquire(three, now=117.0)  # expired at 117


def test_every_lease_has_a_name_of_its_own():
    """The leases of different work never share a name: each kind has its prefix, and the
    game and version are part of the name."""
    leases = [
        builder(game, version)
        for builder in (board_lease, ai_lease, reminder_lease)
        for game in (1, 12)
        for version in (2, 3)
    ] + [review_lease(game) for game in (1, 12, 123)]
    leases += [
        answer_lease(kind, game, user)
        for kind in sorted(ANSWER_KINDS)
        for game in (1, 12)
        for user in (2, 3)
    ]
    assert len({lease.name for lease in leases}) == len(leases)
    assert all(lease.seconds > 0 for lease in leases)
