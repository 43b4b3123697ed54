"""How long a member waits from ``/tholos play`` to a game, under simulated arrivals: members
arrive at random (a Poisson process of ``--rates`` arrivals a second, in total), each for one
pace — correspondence 30%, 3+2 30%, 5+5 40% —, rated normally around 1500 (sd 300), and join the
pool through the real :class:`~bot.features.pool.service.PoolService` on a real database (a
SQLite file, or ``--database`` the URL of an empty PostgreSQL database). The waves run as the
bot's loop runs them: at once after a join (never closer than ``WAVE_GAP``), and every
``WAVE_SECONDS`` while anyone waits, through the real :class:`~bot.features.pool.waves.Waves`
(pairing, one transaction per game, the game inserted in both places). Time is simulated (the
arrivals, the waves' schedule), and each game's wait adds the real time its wave took up to its
commit. A member who waited ``PATIENCE`` seconds (300) with nobody leaves. Prints, for each
rate: joins, games, the wait to a game p50 / p95 / max, the share offered the AI (waited past
``AI_OFFER_AFTER`` with nobody), those who left unpaired, and the real time of a wave that
started games (p50 / max: the database's part of the wait). With ``--burst N``, instead: N
members waiting for one pace at once, one wave timed — its plan, and its games.

    .venv/bin/python -m benchmarks.pool_arrivals [--rates 0.05,0.5,5] [--minutes 20] [--seed 1]
        [--database postgresql://…]
    .venv/bin/python -m benchmarks.pool_arrivals --burst 10000 [--database postgresql://…]
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bot.base.glicko2 import Rating
from bot.base.paces import RatingPool, rating_pool
from bot.base.seats import Seat
from bot.features.pool.service import AI_OFFER_AFTER, PoolService
from bot.features.pool.store import PoolStore
from bot.features.pool.waves import WAVE_GAP, WAVE_SECONDS, Paired, Waves
from bot.storage import open_database
from bot.storage.db import Database
from bot.storage.leases import LeaseStore

PACES = (("correspondence", 0.3), ("3+2", 0.3), ("5+5", 0.4))
START = 1_000_000.0
PATIENCE = 300.0
"""Seconds a member waits with nobody before they leave (for the AI)."""


class TimedWaves(Waves):
    """The real waves, noting when (in real time) each game's transaction committed."""

    def __init__(self, database: Database, ratings: dict[int, float]) -> None:
        async def rated(pool: RatingPool, ids: Sequence[int], now: float) -> dict[int, Rating]:
            return {user: Rating(ratings[user], 80) for user in ids}

        super().__init__(database, LeaseStore(database, "benchmark"), rated)
        self.committed: dict[int, float] = {}

    async def pair(self, first: int, second: int, pace: str, now: float) -> Paired | None:
        paired = await super().pair(first, second, pace, now)
        if paired is not None:
            self.committed[first] = self.committed[second] = time.perf_counter()
        return paired


async def simulate(database: Database, rate: float, minutes: float, rng: random.Random) -> dict:
    """One run at ``rate`` arrivals a second for ``minutes`` of simulated time."""
    ratings: dict[int, float] = {}
    waves = TimedWaves(database, ratings)
    pool = PoolService(PoolStore(database), clock=lambda: START)
    events: list[tuple[float, int, str]] = []  # (when, order, what)
    now, order, member = START, 0, 0
    while (now := now + rng.expovariate(rate)) < START + 60 * minutes:
        member += 1
        heapq.heappush(events, (now, order := order + 1, f"join:{member}"))
    joined: dict[int, tuple[float, str]] = {}
    waits, wave_ms, offered, left = [], [], 0, 0
    next_wave, last_wave = None, -WAVE_GAP
    while events or next_wave is not None:
        if next_wave is not None and (not events or next_wave <= events[0][0]):
            at, next_wave, last_wave = next_wave, None, next_wave
            began = time.perf_counter()
            waves.committed.clear()
            started = await waves.wave(at)
            if started:
                wave_ms.append(1000 * (time.perf_counter() - began))
            for paired in started:
                for user in (paired.first, paired.second):
                    since, pace = joined.pop(user)
                    waits.append(at - since + waves.committed[user] - began)
                    if at - since >= AI_OFFER_AFTER[rating_pool(pace)]:
                        offered += 1
            if joined:
                next_wave = at + WAVE_SECONDS
            continue
        at, _, what = heapq.heappop(events)
        kind, _, who = what.partition(":")
        user = int(who)
        if kind == "join":
            pace = rng.choices([p for p, _ in PACES], [w for _, w in PACES])[0]
            ratings[user] = rng.gauss(1500, 300)
            await pool.opt_in(user, f"member {user}")
            await pool.join(Seat(user, f"m{user}", 1 + user % 7, user, "server", "en"), pace, at)
            joined[user] = (at, pace)
            heapq.heappush(events, (at + PATIENCE, order := order + 1, f"give_up:{user}"))
            soonest = max(at, last_wave + WAVE_GAP)
            next_wave = soonest if next_wave is None else min(next_wave, soonest)
        elif user in joined:  # waited too long with nobody: leaves (for the AI)
            await pool.leave(user)
            del joined[user]
            offered, left = offered + 1, left + 1
    return {"joins": member, "waits": waits, "waves": wave_ms, "offered": offered, "left": left}


def summary(rate: float, minutes: float, run: dict) -> str:
    waits = sorted(run["waits"])
    games = len(waits) // 2
    if not waits:
        return f"{rate:g}/s for {minutes:g} min: {run['joins']} joins, no game"
    p95 = waits[min(len(waits) - 1, int(0.95 * len(waits)))]
    return (
        f"{rate:g}/s ({60 * rate:g} a minute) for {minutes:g} min: {run['joins']} joins, "
        f"{games} games; /tholos play → game p50 {statistics.median(waits):.1f} s, "
        f"p95 {p95:.1f} s, max {waits[-1]:.1f} s; offered the AI {run['offered']} "
        f"({100 * run['offered'] / run['joins']:.0f}%), left unpaired {run['left']}; a wave "
        f"with games p50 {statistics.median(run['waves']):.1f} ms, max {max(run['waves']):.1f} ms"
    )


async def burst(database: Database, size: int, rng: random.Random) -> str:
    """``size`` members waiting for one pace at once (stored in one transaction, waits of
    0–120 s): one wave, its plan (the queue read, the ratings, ``pair_wave``) and its games
    (one transaction each) timed."""
    ratings = {user: rng.gauss(1500, 300) for user in range(1, size + 1)}
    async with database.transaction() as transaction:
        await transaction.executemany(
            "INSERT INTO pool_members (user_id, name, joined_at) VALUES (?, ?, ?)",
            [(user, f"m{user}", START) for user in ratings],
        )
        await transaction.executemany(
            "INSERT INTO pool_queue (user_id, pace, since, guild_id, channel_id, venue, "
            "language) VALUES (?, '5+5', ?, ?, ?, 'server', 'en')",
            [(user, START - rng.uniform(0, 120), 1 + user % 7, user) for user in ratings],
        )
    waves = TimedWaves(database, ratings)
    began = time.perf_counter()
    plan = await waves.plan("5+5", START)
    planned = time.perf_counter()
    games = [await waves.pair(first, second, "5+5", START) for first, second in plan.pairs]
    ended = time.perf_counter()
    started = sum(game is not None for game in games)
    return (
        f"a burst of {size:,} waiting: the wave's plan {1000 * (planned - began):.0f} ms, its "
        f"{started:,} games {ended - planned:.1f} s ({1000 * (ended - planned) / started:.2f} "
        "ms a game)"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pool_arrivals")
    parser.add_argument("--rates", default="0.05,0.5,5", help="arrivals a second, in total")
    parser.add_argument("--minutes", type=float, default=20.0, help="simulated")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database", default=None, help="a PostgreSQL URL (default: SQLite)")
    parser.add_argument("--burst", type=int, default=0, help="instead: this many at once")
    args = parser.parse_args()
    if args.burst:
        with tempfile.TemporaryDirectory() as directory:
            database = await open_database(args.database or str(Path(directory) / "pool.db"))
            try:
                print(await burst(database, args.burst, random.Random(args.seed)))
            finally:
                await database.close()
        return
    print(f"paces {PACES}, ratings N(1500, 300), patience {PATIENCE:g} s, seed {args.seed}")
    for rate in (float(r) for r in args.rates.split(",")):
        with tempfile.TemporaryDirectory() as directory:
            url = args.database or str(Path(directory) / "pool.db")
            database = await open_database(url)
            try:
                run = await simulate(database, rate, args.minutes, random.Random(args.seed))
            finally:
                await database.close()
        print(summary(rate, args.minutes, run))


if __name__ == "__main__":
    asyncio.run(main())
