"""Leases on both backends: one holder at a time, its holder included, until it is released or
expires."""

from __future__ import annotations

from bot.storage.leases import LeaseStore


async def test_one_holder_at_a_time_until_released_or_expired(database):
    """A held lease cannot be taken, not even by its holder; released, or once expired, anyone
    takes it; another name is independent."""
    first, second = LeaseStore(database, "a:1"), LeaseStore(database, "b:2")
    assert await first.acquire("board:1:3", now=100.0, seconds=10)
    assert not await second.acquire("board:1:3", now=105.0, seconds=10)
    assert not await first.acquire("board:1:3", now=105.0, seconds=10)
    assert await first.acquire("board:1:4", now=105.0, seconds=10)
    assert await first.expires_at("board:1:3") == 110.0
    await second.release("board:1:3")  # not its lease: nothing happens
    assert not await second.acquire("board:1:3", now=106.0, seconds=10)
    await first.release("board:1:3")
    assert await first.expires_at("board:1:3") is None
    assert await second.acquire("board:1:3", now=107.0, seconds=10)
    assert await first.acquire("board:1:3", now=117.0, seconds=10)  # expired at 117
