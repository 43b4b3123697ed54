"""What runs on its own: challenges expire on time, boards that a crash or a failed post left
unposted are posted, and the AI resumes the games waiting for it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from ..app import App, Feature
from ..storage import DatabaseUnavailable
from .challenges import Challenges
from .opponent import Opponent

log = logging.getLogger(__name__)

HOUSEKEEPING_SECONDS = 30.0
"""The longest the housekeeping loop sleeps (it wakes earlier for a due challenge)."""
REPAIR_GRACE_SECONDS = 30.0
"""A board missing this long after its change was stored is posted by the housekeeping loop
(at start, at once)."""


class Housekeeping(Feature):
    """Repairs at start, then a loop that keeps repairing."""

    def __init__(self, app: App, challenges: Challenges, opponent: Opponent) -> None:
        super().__init__(app)
        self.challenges = challenges
        self.opponent = opponent
        self._grace = REPAIR_GRACE_SECONDS
        """How old a missing board must be before the loop posts it (0 right after a round
        that found one whose poster holds its lease: that poster may have died)."""

    async def catch_up(self) -> None:
        """Repair what a crash or restart left behind, before the gateway connects (other
        processes may be at work meanwhile: the leases keep them from doing it twice)."""
        await self.app.boards.warm_up()
        await self.challenges.expire()
        retry = await self.app.boards.repost_missing(grace=0)
        self._grace = REPAIR_GRACE_SECONDS if retry is None else 0.0
        await self.opponent.resume()

    async def run(self) -> None:
        """Expire challenges on time, post boards that a failed post left missing, resume the
        AI; sleep until the next challenge is due or a held lease runs out (at most
        :data:`HOUSEKEEPING_SECONDS`)."""
        client = self.app.client
        await client.wait_until_ready()
        posted = self.challenges.posted
        while not client.is_closed():
            try:
                await self.challenges.expire()
                retry = await self.app.boards.repost_missing(grace=self._grace)
                await self.opponent.resume()
                self._grace = REPAIR_GRACE_SECONDS if retry is None else 0.0
                wake_at = await self.app.challenges.next_expiry()
                if retry is not None:  # a lease held elsewhere: look again when it runs out
                    wake_at = retry if wake_at is None else min(wake_at, retry)
            except DatabaseUnavailable as error:  # an outage: try again next round
                log.warning("housekeeping postponed: database unavailable: %s", error)
                wake_at = None
            except Exception:
                log.exception("housekeeping failed")
                wake_at = None
            delay = HOUSEKEEPING_SECONDS
            if wake_at is not None:
                delay = min(delay, max(0.05, wake_at - time.time()))
            log.debug("housekeeping: next round in %.1f s", delay)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(posted.wait(), timeout=delay)
            posted.clear()
