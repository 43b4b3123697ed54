"""The pool's waves: every :data:`WAVE_SECONDS` while anyone waits (at once after a join, never
closer than :data:`WAVE_GAP`), one process at a time (the lease :func:`wave_lease`), each pace's
queue paired by :func:`~bot.features.pool.matching.pair_wave` on the members' ratings in that
pace's pool, then each pair's game started in ONE transaction: both taken out of the queue (a
compare-and-set: still waiting for that pace), each the other's last opponent, the game
inserted, the pairing announced. A pair one of whom left meanwhile is skipped (the other waits
on for the next wave)."""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.base.paces import rating_pool
from bot.base.server_rules import ReminderDefaults
from bot.features.pool.matching import Waiting, WavePairing, pair_wave
from bot.features.pool.service import PoolRatings
from bot.features.pool.store import POOL_TOPIC, PoolStore
from bot.health.metrics import METRICS
from bot.storage.db import Database
from bot.storage.games.places import insert_pool_game
from bot.storage.leases import LeaseStore, wave_lease

log = logging.getLogger(__name__)

WAVE_SECONDS = 3.0
"""Seconds between two waves while anyone waits (Lichess's pools: a few seconds)."""
WAVE_GAP = 0.5
"""The least seconds between two waves (a burst of joins makes one wave, not one each)."""
RENEW_SECONDS = 3.0
"""How often a wave that runs long renews its lease (held 10 s)."""
IDLE_SECONDS = 30.0
"""The longest the waves' loop sleeps while nobody waits (a join, announced to every process,
wakes it at once)."""


@dataclass(frozen=True, slots=True)
class Paired:
    """A game the pool started: its id, and its two players (by id)."""

    game_id: int
    first: int
    second: int
    pace: str


class _Gone(Exception):
    """One of a pair no longer waits for that pace: the pairing is rolled back."""


class Waves:
    """Pairs the pool's queue, wave after wave."""

    def __init__(
        self,
        database: Database,
        leases: LeaseStore,
        ratings: PoolRatings,
        clock: Callable[[], float] = time.time,
        reminders: ReminderDefaults | None = None,
    ) -> None:
        """``reminders``: the bot's defaults, for the first turn's reminder of a correspondence
        game."""
        self.store = PoolStore(database)
        self.database = database
        self.leases = leases
        self.ratings = ratings
        self.reminders = reminders
        self._clock = clock
        self._last_wave = -WAVE_GAP
        self._holding = False
        self._held_at = -math.inf
        """When this process last took or renewed the waves' lease."""

    async def round(self) -> float | None:
        """One wave if anyone waits and this process holds (or takes) the lease: when the
        next is due (``None``: nobody waits); while another process holds it, when it runs
        out."""
        now = self._clock()
        if now - self._last_wave < WAVE_GAP:
            return self._last_wave + WAVE_GAP
        if not await self.store.paces():
            return None
        if not await self._hold(now):
            return await self.leases.expires_at(wave_lease()) or now + WAVE_SECONDS
        self._last_wave = now
        await self.wave(now)
        return now + WAVE_SECONDS

    async def _hold(self, now: float) -> bool:
        """Keep (or take) the waves' lease."""
        lease = wave_lease()
        if self._holding:
            self._holding = await self.leases.renew(lease, now)
        if not self._holding:
            self._holding = await self.leases.acquire(lease, now)
        if self._holding:
            self._held_at = now
        return self._holding

    async def _still_held(self) -> bool:
        """During a long wave (a burst's thousands of games), keep the lease: renewed every
        :data:`RENEW_SECONDS`; ``False`` once lost (the wave stops)."""
        now = self._clock()
        return now - self._held_at < RENEW_SECONDS or await self._hold(now)

    async def wave(self, now: float) -> list[Paired]:
        """Pair every pace's queue at ``now``; the games started."""
        started = []
        for pace in await self.store.paces():
            plan = await self.plan(pace, now)
            for first, second in plan.pairs:
                if not await self._still_held():
                    return started
                paired = await self.pair(first, second, pace, now)
                if paired is not None:
                    started.append(paired)
        return started

    async def plan(self, pace: str, now: float) -> WavePairing:
        """Who would play whom among those waiting for ``pace`` at ``now``."""
        candidates, blocks = await self.store.candidates(pace)
        ids = [candidate.user_id for candidate in candidates]
        ratings = await self.ratings(rating_pool(pace), ids, now)
        members = [Waiting(c.user_id, ratings[c.user_id].rating, c.since) for c in candidates]
        last = {c.user_id: c.last_opponent_id for c in candidates if c.last_opponent_id}
        return pair_wave(members, now, blocks, last)

    async def pair(self, first: int, second: int, pace: str, now: float) -> Paired | None:
        """Start the game of ``first`` and ``second`` in one transaction, if both still wait
        for ``pace`` (colours and the game's seed drawn at random, seeded from the pair and the
        wave); ``None`` if one of them no longer does. Its boards are posted after the commit,
        in both places (the games' places)."""
        rng = random.Random(f"{min(first, second)}:{max(first, second)}:{now}")
        try:
            async with self.database.transaction() as transaction:
                one = await self.store.take(transaction, first, pace)
                other = await self.store.take(transaction, second, pace)
                if one is None or other is None:
                    raise _Gone
                await self.store.met(transaction, first, second)
                white, black = (one, other) if rng.random() < 0.5 else (other, one)
                game_id = await insert_pool_game(
                    transaction,
                    white,
                    black,
                    pace,
                    now,
                    seed=rng.randrange(2**31),
                    reminders=self.reminders,
                )
                await transaction.announce(POOL_TOPIC, f"paired:{game_id}:{first}:{second}")
        except _Gone:
            log.info("pool: %s or %s left before their pairing", first, second)
            return None
        METRICS.games_started.labels("members").inc()
        return Paired(game_id, first, second, pace)
