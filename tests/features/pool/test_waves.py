"""The pool's waves on SQLite and PostgreSQL: a pair's game started in one transaction (both
out of the queue, each the other's last opponent, the game rated and shown in both places),
windows that widen with the wait, blocks, a member who leaves before their pairing, one process
at a time, and a simulation of members of several servers queueing for several paces."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from bot.base.glicko2 import Rating
from bot.base.paces import RatingPool
from bot.base.seats import Seat
from bot.features.pool.matching import Waiting
from bot.features.pool.service import PoolService
from bot.features.pool.store import POOL_TOPIC, PoolStore
from bot.features.pool.waves import RENEW_SECONDS, WAVE_GAP, WAVE_SECONDS, Waves
from bot.storage import open_database
from bot.storage.db import Database
from bot.storage.games.places import places_of
from bot.storage.games.store import GameStore
from bot.storage.leases import LeaseStore, wave_lease
from tests.databases import Clock
from tests.storage.test_announcements import Heard

PACES = ("correspondence", "3+2", "5+5")


class Ratings:
    """Members' ratings, set by the test (1500 ± 350 unless set), per pool."""

    def __init__(self) -> None:
        self.of: dict[tuple[RatingPool, int], float] = {}

    async def __call__(
        self, pool: RatingPool, user_ids: Sequence[int], now: float
    ) -> dict[int, Rating]:
        return {user: Rating(self.of.get((pool, user), 1500.0), 80) for user in user_ids}


def seat(user_id: int, guild_id: int) -> Seat:
    venue = "server" if guild_id else "bot_dm"
    return Seat(user_id, f"member {user_id}", guild_id, 10 * guild_id + 1, venue, "en")


@pytest.fixture
def ratings() -> Ratings:
    return Ratings()


@pytest.fixture
def pool(database: Database, clock: Clock, ratings: Ratings) -> PoolService:
    return PoolService(PoolStore(database), ratings, clock)


def waves_on(database: Database, clock: Clock, ratings: Ratings, holder: str = "one") -> Waves:
    return Waves(database, LeaseStore(database, holder), ratings, clock)


async def queue(pool: PoolService, clock: Clock, user: int, pace: str, guild: int = 1) -> None:
    await pool.opt_in(user, f"member {user}")
    await pool.join(seat(user, guild), pace, clock.now)


async def test_a_pair_plays_one_game_shown_in_both_places(
    database: Database, pool: PoolService, clock: Clock, ratings: Ratings
):
    await queue(pool, clock, 1, "5+5", guild=100)
    await queue(pool, clock, 2, "5+5", guild=200)
    heard = Heard()
    stop = await database.listen(POOL_TOPIC, heard)
    [paired] = await waves_on(database, clock, ratings).wave(clock.now)
    assert await heard.next() == f"paired:{paired.game_id}:{paired.first}:{paired.second}"
    stop()
    assert {paired.first, paired.second} == {1, 2}
    game = await GameStore(database).game(paired.game_id)
    assert game is not None and game.pool and game.rated and game.time_control == "5+5"
    places = await places_of(database, game.id)
    assert {(p.user_id, p.guild_id) for p in places} == {(1, 100), (2, 200)}
    assert {game.white_name, game.black_name} == {"member 1", "member 2"}
    assert await pool.store.paces() == []
    candidates, _ = await pool.store.candidates("5+5")
    assert candidates == []
    await queue(pool, clock, 1, "5+5")
    await queue(pool, clock, 3, "5+5")
    candidates, _ = await pool.store.candidates("5+5")
    assert [(c.user_id, c.last_opponent_id) for c in candidates] == [(1, 2), (3, None)]


async def test_windows_widen_with_the_wait(
    database: Database, pool: PoolService, clock: Clock, ratings: Ratings
):
    ratings.of[("live", 1)], ratings.of[("live", 2)] = 1500, 1700
    await queue(pool, clock, 1, "5+5")
    await queue(pool, clock, 2, "5+5")
    waves = waves_on(database, clock, ratings)
    assert await waves.wave(clock.now) == [], "200 apart: out of the first windows"
    clock.now += 19
    assert await waves.wave(clock.now) == [], "195 points after 19 s"
    clock.now += 1
    assert len(await waves.wave(clock.now)) == 1, "200 points after 20 s"


async def test_paces_and_pools_are_apart(
    database: Database, pool: PoolService, clock: Clock, ratings: Ratings
):
    ratings.of[("correspondence", 2)] = 2500
    await queue(pool, clock, 1, "5+5")
    await queue(pool, clock, 2, "3+2")
    await queue(pool, clock, 3, "correspondence")
    waves = waves_on(database, clock, ratings)
    assert await waves.wave(clock.now) == [], "one waiting for each pace"
    await queue(pool, clock, 2, "correspondence")  # moves; rated 2500 by correspondence
    assert await waves.wave(clock.now) == [], "1500 against 2500"
    await queue(pool, clock, 4, "correspondence")
    started = await waves.wave(clock.now)
    assert [{p.first, p.second} for p in started] == [{3, 4}]


async def test_blocked_members_are_never_paired(
    database: Database, pool: PoolService, clock: Clock, ratings: Ratings
):
    await queue(pool, clock, 1, "5+5")
    await queue(pool, clock, 2, "5+5")
    await pool.block(2, 1)
    waves = waves_on(database, clock, ratings)
    clock.now += 600
    assert await waves.wave(clock.now) == []
    await pool.unblock(2, 1)
    assert len(await waves.wave(clock.now)) == 1


async def test_a_member_who_left_before_the_pairing_is_not_paired(
    database: Database, pool: PoolService, clock: Clock, ratings: Ratings
):
    await queue(pool, clock, 1, "5+5")
    await queue(pool, clock, 2, "5+5")
    waves = waves_on(database, clock, ratings)
    [(first, second)] = (await waves.plan("5+5", clock.now)).pairs
    await pool.leave(second)
    assert await waves.pair(first, second, "5+5", clock.now) is None
    assert (await pool.state(first, clock.now)).pace == "5+5", "the other waits on"
    assert await GameStore(database).game(1) is None, "no game was started"
    await queue(pool, clock, second, "3+2")
    assert await waves.pair(first, second, "5+5", clock.now) is None, "moved to another pace"


async def test_one_process_runs_the_waves(
    database: Database, database_url: str, pool: PoolService, clock: Clock, ratings: Ratings
):
    other_database = await open_database(database_url)
    try:
        mine = waves_on(database, clock, ratings, "one")
        theirs = waves_on(other_database, clock, ratings, "two")
        assert await mine.round() is None, "nobody waits: no lease taken"
        await queue(pool, clock, 1, "5+5")
        assert await mine.round() == clock.now + WAVE_SECONDS
        held_until = await theirs.round()
        assert held_until is not None and held_until > clock.now, "it waits for the lease"
        await queue(pool, clock, 2, "5+5")
        assert await theirs.round() == held_until and await pool.store.paces() == ["5+5"]
        assert await mine.round() == clock.now + WAVE_GAP, "too soon after its last wave"
        clock.now += WAVE_SECONDS
        assert await mine.round() == clock.now + WAVE_SECONDS
        assert await pool.store.paces() == [], "paired by the holder"
    finally:
        await other_database.close()


async def test_members_of_several_servers_queueing_at_once(
    database: Database, pool: PoolService, clock: Clock, ratings: Ratings, seed: int
):
    """Members of five servers (and DMs) join and leave for three paces, with random ratings
    and blocks, waves every 3 s: every pairing is within both windows of its wave, never
    blocked, each member in at most one game at a time, and nobody paired still waits."""
    rng = random.Random(seed)
    members = range(1, 61)
    for member in members:
        for rating_pool in ("live", "correspondence"):
            ratings.of[(rating_pool, member)] = rng.gauss(1500, 250)
    blocked = {tuple(rng.sample(members, 2)) for _ in range(15)}
    for blocker, blocked_one in blocked:
        await pool.block(blocker, blocked_one)
    waves = waves_on(database, clock, ratings)
    games = GameStore(database)
    playing: set[int] = set()
    for _ in range(40):
        for member in rng.sample(members, 6):
            if member not in playing:
                await queue(pool, clock, member, rng.choice(PACES), guild=rng.randrange(6))
        if rng.random() < 0.3:
            await pool.leave(rng.choice(members))
        waiting = {pace: (await pool.store.candidates(pace))[0] for pace in PACES}
        for started in await waves.wave(clock.now):
            pair = (started.first, started.second)
            assert not playing & set(pair), "nobody plays two pool games at once here"
            assert pair not in blocked and pair[::-1] not in blocked
            since = {c.user_id: c.since for c in waiting[started.pace]}
            pool_name: RatingPool = "correspondence" if started.pace == "correspondence" else "live"
            a, b = (Waiting(u, ratings.of[(pool_name, u)], since[u]) for u in pair)
            difference = abs(round(a.rating) - round(b.rating))
            assert difference <= min(a.window(clock.now), b.window(clock.now))
            game = await games.game(started.game_id)
            assert game is not None and {game.white_id, game.black_id} == set(pair)
            playing.update(pair)
        for pace in PACES:
            assert not set(c.user_id for c in (await pool.store.candidates(pace))[0]) & playing
        clock.now += WAVE_SECONDS
    assert len(playing) >= 10, "the simulation paired people"


async def test_a_long_wave_keeps_its_lease(database: Database, pool: PoolService, ratings):
    """A wave that outlasts its lease's renewal time (a burst's thousands of games; here a clock
    that moves 2 s at every reading) renews the lease as it goes: nobody else takes it."""

    class Ticking:
        def __init__(self) -> None:
            self.now = 1_000_000.0

        def __call__(self) -> float:
            self.now += 2.0
            return self.now

    ticking = Ticking()
    for user in range(1, 9):
        await pool.opt_in(user, f"member {user}")
        await pool.join(seat(user, 1), "5+5", ticking.now)
    leases = LeaseStore(database, "one")
    waves = Waves(database, leases, ratings, ticking)
    began = ticking.now
    await waves.round()
    assert await pool.store.paces() == [], "every pair's game started"
    expires = await leases.expires_at(wave_lease())
    assert expires is not None and expires > began + 2 + 10 + RENEW_SECONDS, "renewed"
    other = LeaseStore(database, "two")
    assert not await other.acquire(wave_lease(), ticking.now), "still held"
