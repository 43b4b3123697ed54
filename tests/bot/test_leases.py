"""Leases on both backends: one holder at a time, renewed by its holder, free once expired."""

from __future__ import annotations

from bot.storage.leases import LeaseStore


async def test_one_holder_at_a_time_until_it_expires(database):
    """A second process cannot take a held lease; its holder can renew it; after expiry
    anyone can take it."""
    first, second = LeaseStore(database, "a:1"), LeaseStore(database, "b:2")
    assert await first.acquire("board:1:3", now=100.0, seconds=60)
    assert not await second.acquire("board:1:3", now=110.0, seconds=60)
    assert await first.acquire("board:1:3", now=120.0, seconds=60)  # renewed: till 180
    assert not await second.acquire("board:1:3", now=170.0, seconds=60)
    assert await second.acquire("board:1:3", now=180.0, seconds=60)
    assert not await first.acquire("board:1:3", now=190.0, seconds=60)
    assert await first.acquire("board:1:4", now=190.0, seconds=60)  # another name is free
