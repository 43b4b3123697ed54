"""The pool's flow without Discord: opting in and out, joining and leaving the queue, what a
waiting member sees (how many wait, since when, the AI offered after a while), blocks; and
the waves that pair those waiting (:class:`Waves`)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import cast

from bot.base.game_options import Level
from bot.base.glicko2 import Rating
from bot.base.paces import RatingPool, rating_pool
from bot.base.refusals import Refusal
from bot.base.seats import Seat
from bot.features.pool.store import BlockStore, NotInThePoolError, PoolStore
from bot.words.phrases import command
from engine.ai import LEVEL_RATINGS, level_for_rating
from engine.vocabulary import N_

PoolRatings = Callable[[RatingPool, Sequence[int], float], Awaitable[dict[int, Rating]]]
"""``ratings(pool, user_ids, now)``: each member's rating in a pool at ``now`` (a newcomer's
too)."""
AI_OFFER_AFTER = {"live": 45.0, "correspondence": 120.0}
"""Seconds a member waits with nobody before the AI is offered at their level: live paces
are played at once (Lichess's pools pair most within seconds), a correspondence game may wait
a little longer."""
NOT_IN_THE_POOL = N_("Join the pool first: {play} asks you once.")


async def newcomers(pool: RatingPool, user_ids: Sequence[int], now: float) -> dict[int, Rating]:
    """Every member as a newcomer (1500 ± 350): a service's ratings where none are given."""
    return {user_id: Rating() for user_id in user_ids}


@dataclass(frozen=True, slots=True)
class AiOffer:
    """The AI at a member's level: the level nearest their rating, and its rating."""

    level: Level
    rating: int

    @classmethod
    def at(cls, rating: float) -> AiOffer:
        """The offer for a member rated ``rating``."""
        level = cast(Level, level_for_rating(rating))
        return cls(level, LEVEL_RATINGS[level])


@dataclass(frozen=True, slots=True)
class PoolState:
    """What a member sees of the pool: the pace they wait for and since when (``None``: they
    do not wait), how many wait for it (themselves included), and the AI offered once they
    waited :data:`AI_OFFER_AFTER` (``None``: not yet, or not waiting)."""

    pace: str | None = None
    since: float | None = None
    waiting: int = 0
    ai_offer: AiOffer | None = None


class PoolService:
    """The pool as a member uses it, from Discord or the live page."""

    def __init__(
        self,
        store: PoolStore,
        ratings: PoolRatings = newcomers,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.blocks = BlockStore(store.database)
        self.ratings = ratings
        self._clock = clock

    async def opted_in(self, user_id: int) -> bool:
        """Whether ``user_id`` opted in to the pool."""
        return await self.store.opted_in(user_id)

    async def opt_in(self, user_id: int, name: str) -> None:
        """``user_id`` opts in, shown to others as ``name`` (their global display name)."""
        await self.store.opt_in(user_id, name, self._clock())

    async def opt_out(self, user_id: int) -> bool:
        """``user_id`` leaves the pool and its queue; ``False`` if they were not in it."""
        return await self.store.opt_out(user_id)

    async def join(self, seat: Seat, pace: str, now: float) -> PoolState:
        """Queue ``seat``'s member for ``pace`` (from another pace: moved); what they see now.
        Raises :class:`Refusal` unless they opted in."""
        try:
            await self.store.join(seat, pace, now)
        except NotInThePoolError:
            raise Refusal(NOT_IN_THE_POOL, play=command("tholos play")) from None
        return await self.state(seat.user_id, now)

    async def leave(self, user_id: int) -> str | None:
        """Take ``user_id`` out of the queue; the pace they waited for (``None``: none)."""
        return await self.store.leave(user_id)

    async def state(self, user_id: int, now: float) -> PoolState:
        """What ``user_id`` sees of the pool at ``now``."""
        queued = await self.store.queued(user_id)
        if queued is None:
            return PoolState()
        pool = rating_pool(queued.pace)
        waiting = await self.store.waiting(queued.pace)
        offer = None
        if waiting < 2 and now - queued.since >= AI_OFFER_AFTER[pool]:
            offer = await self.ai_offer(user_id, queued.pace, now)
        return PoolState(queued.pace, queued.since, waiting, offer)

    async def ai_offer(self, user_id: int, pace: str, now: float) -> AiOffer:
        """The AI at ``user_id``'s level in the pool of ``pace``."""
        pool = rating_pool(pace)
        rating = (await self.ratings(pool, [user_id], now)).get(user_id, Rating())
        return AiOffer.at(rating.rating)

    async def block(self, user_id: int, blocked_id: int) -> bool:
        """``user_id`` blocks ``blocked_id`` (never paired, their challenges never shown);
        ``False`` if they already had. Raises :class:`Refusal` for oneself."""
        if user_id == blocked_id:
            raise Refusal("You can't block yourself.")
        return await self.blocks.block(user_id, blocked_id, self._clock())

    async def unblock(self, user_id: int, blocked_id: int) -> bool:
        """``user_id`` unblocks ``blocked_id``; ``False`` if they had not blocked them."""
        return await self.blocks.unblock(user_id, blocked_id)
