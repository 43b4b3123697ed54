"""The pool's tables and service on SQLite and PostgreSQL: opting in and out, the queue (one pace
at a time, the compare-and-set that takes a pair), blocks, what a waiting member sees, the AI
offered after a while, and the waves' plans with their windows."""

from __future__ import annotations

import pytest

from bot.base.glicko2 import Rating
from bot.base.refusals import Refusal
from bot.base.seats import Seat
from bot.features.pool import BlockStore
from bot.features.pool.matching import WINDOW_AT_ONCE, WINDOW_PER_SECOND
from bot.features.pool.service import AI_OFFER_AFTER, AiOffer, PoolService
from bot.features.pool.store import POOL_TOPIC, PoolStore
from bot.storage.db import Database
from engine.ai import LEVEL_RATINGS, level_for_rating
from tests.databases import Clock
from tests.storage.test_announcements import Heard

GUILD, OTHER_GUILD = 10, 20


def seat(user_id: int, guild_id: int = GUILD, server_name: str | None = None) -> Seat:
    """``user_id`` queueing from a channel of ``guild_id`` (0: their DM with the bot)."""
    venue = "server" if guild_id else "bot_dm"
    return Seat(user_id, f"member {user_id}", guild_id, 1000 + user_id, venue, "en", server_name)


@pytest.fixture
def pool(database: Database, clock: Clock) -> PoolService:
    return PoolService(PoolStore(database), clock=clock)


async def joined(pool: PoolService, clock: Clock, *users: int, pace: str = "5+5") -> None:
    for user in users:
        await pool.opt_in(user, f"member {user}")
        await pool.join(seat(user), pace, clock.now)


async def test_only_members_who_opted_in_may_queue(pool: PoolService, clock: Clock):
    with pytest.raises(Refusal, match="Join the pool first"):
        await pool.join(seat(1), "5+5", clock.now)
    assert not await pool.opted_in(1)
    await pool.opt_in(1, "Ariadne")
    assert await pool.opted_in(1)
    state = await pool.join(seat(1), "5+5", clock.now)
    assert (state.pace, state.since, state.waiting, state.ai_offer) == ("5+5", clock.now, 1, None)


async def test_opting_out_leaves_the_queue(pool: PoolService, clock: Clock):
    await joined(pool, clock, 1, 2)
    assert await pool.opt_out(1)
    assert not await pool.opted_in(1)
    assert (await pool.state(1, clock.now)).pace is None
    assert (await pool.state(2, clock.now)).waiting == 1
    assert not await pool.opt_out(1)
    with pytest.raises(Refusal):
        await pool.join(seat(1), "5+5", clock.now)


async def test_one_pace_at_a_time_and_the_wait_kept_for_the_same_pace(
    pool: PoolService, clock: Clock
):
    await joined(pool, clock, 1)
    first = clock.now
    clock.now += 10
    again = await pool.join(seat(1, OTHER_GUILD), "5+5", clock.now)
    assert (again.pace, again.since) == ("5+5", first), "the same pace keeps the wait"
    queued = await pool.store.queued(1)
    assert queued is not None and queued.seat.guild_id == OTHER_GUILD, "the place moves"
    moved = await pool.join(seat(1), "correspondence", clock.now)
    assert (moved.pace, moved.since, moved.waiting) == ("correspondence", clock.now, 1)
    assert await pool.store.waiting("5+5") == 0
    assert await pool.leave(1) == "correspondence"
    assert await pool.leave(1) is None


async def test_the_seat_holds_the_global_name_and_the_allowed_server_name(
    database: Database, pool: PoolService, clock: Clock
):
    await pool.opt_in(1, "old name")
    await pool.join(seat(1, server_name="Delphi"), "5+5", clock.now)
    queued = await pool.store.queued(1)
    assert queued is not None
    assert queued.seat == Seat(1, "member 1", GUILD, 1001, "server", "en", "Delphi")
    await pool.join(seat(1, 0), "5+5", clock.now)
    listed = await database.fetchall("SELECT guild_id, user_id FROM server_players")
    assert [tuple(row) for row in listed] == [(GUILD, 1)], "on the leaderboards it queued from"


async def test_the_queue_is_announced(database: Database, pool: PoolService, clock: Clock):
    heard = Heard()
    stop = await database.listen(POOL_TOPIC, heard)
    await joined(pool, clock, 1)
    await pool.join(seat(1), "correspondence", clock.now)
    await pool.leave(1)
    await pool.leave(1)
    told = [await heard.next() for _ in range(4)]
    assert told == ["joined:5+5", "left:5+5", "joined:correspondence", "left:correspondence"]
    await pool.opt_in(2, "member 2")
    await pool.join(seat(2), "3+2", clock.now)
    assert await heard.next() == "joined:3+2", "nothing more was told before it"
    stop()


async def test_the_ai_is_offered_after_a_while_with_nobody(pool: PoolService, clock: Clock):
    await joined(pool, clock, 1, pace="5+5")
    await joined(pool, clock, 2, pace="correspondence")
    clock.now += AI_OFFER_AFTER["live"]
    assert (await pool.state(1, clock.now)).ai_offer == AiOffer.at(1500)
    assert AiOffer.at(1500).level == level_for_rating(1500)
    assert (await pool.state(2, clock.now)).ai_offer is None, "correspondence waits longer"
    clock.now += AI_OFFER_AFTER["correspondence"]
    assert (await pool.state(2, clock.now)).ai_offer is not None
    await joined(pool, clock, 3, pace="5+5")
    assert (await pool.state(1, clock.now)).ai_offer is None, "someone else waits now"


async def test_the_ai_offer_follows_the_rating(database: Database, clock: Clock):
    async def strong(pool, user_ids, now):
        return {user: Rating(1900, 60) for user in user_ids}

    pool = PoolService(PoolStore(database), ratings=strong, clock=clock)
    await joined(pool, clock, 1)
    clock.now += AI_OFFER_AFTER["live"]
    offer = AiOffer.at(1900)
    assert (await pool.state(1, clock.now)).ai_offer == offer
    assert (offer.level, offer.rating) == (
        level_for_rating(1900),
        LEVEL_RATINGS[level_for_rating(1900)],
    )


async def test_blocks(database: Database, pool: PoolService):
    with pytest.raises(Refusal):
        await pool.block(1, 1)
    assert await pool.block(1, 2)
    assert not await pool.block(1, 2)
    blocks = BlockStore(database)
    assert await blocks.between(1, 2) and await blocks.between(2, 1)
    assert not await blocks.between(1, 3)
    assert await blocks.blocked_by(1) == {2} and await blocks.blocked_by(2) == set()
    assert await pool.unblock(1, 2)
    assert not await pool.unblock(1, 2)
    assert not await blocks.between(1, 2)


async def test_taking_a_pair_is_a_compare_and_set(database: Database, pool: PoolService, clock):
    await joined(pool, clock, 1, 2)
    store = pool.store
    async with database.transaction() as transaction:
        taken = await store.take(transaction, 1, "5+5")
        assert taken is not None and taken.user_id == 1
        assert await store.take(transaction, 1, "5+5") is None, "taken once"
        assert await store.take(transaction, 2, "3+2") is None, "waits for another pace"
    assert await store.waiting("5+5") == 1
    await pool.leave(2)
    async with database.transaction() as transaction:
        assert await store.take(transaction, 2, "5+5") is None, "left"


async def test_the_candidates_of_a_wave(database: Database, pool: PoolService, clock: Clock):
    await joined(pool, clock, 1, 2, 3)
    await joined(pool, clock, 4, pace="correspondence")
    await pool.block(1, 3)
    await pool.block(1, 4)
    async with database.transaction() as transaction:
        await pool.store.met(transaction, 1, 2)
    candidates, blocks = await pool.store.candidates("5+5")
    assert [(c.user_id, c.last_opponent_id) for c in candidates] == [(1, 2), (2, 1), (3, None)]
    assert blocks == [(1, 3)], "only blocks between those waiting for the pace"
    assert await pool.store.paces() == ["5+5", "correspondence"]


def test_windows_are_those_of_matching():
    assert (WINDOW_AT_ONCE, WINDOW_PER_SECOND) == (100.0, 5.0)
