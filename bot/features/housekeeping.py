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
"""A board missing this long after its change was stored is posted by the housekeeping loop."""


class Housekeeping(Feature):
    """Repairs at start, then a loop that keeps repairing."""

    def __init__(self, app: App, challenges: Challenges, opponent: Opponent) -> None:
        super().__init__(app)
        self.challenges = challenges
        self.opponent = opponent

    async def catch_up(self) -> None:
        """Repair what a crash or restart left behind. Run before the gateway connects: no
        interaction can run meanwhile, so nothing races with these repairs."""
        await self.app.boards.warm_up()
        await self.challenges.expire()
        await self.app.boards.repost_missing(grace=0)
        await self.opponent.resume()

    async def run(self) -> None:
        """Expire challenges on time, post boards that a failed post left missing, resume the
        AI; sleep until the next challenge is due (at most :data:`HOUSEKEEPING_SECONDS`)."""
        client = self.app.client
        await client.wait_until_ready()
        posted = self.challenges.posted
        while not client.is_closed():
            try:
                await self.challenges.expire()
                await self.app.boards.repost_missing(grace=REPAIR_GRACE_SECONDS)
                await self.opponent.resume()
                next_expiry = await self.app.challenges.next_expiry()
            except DatabaseUnavailable as error:  # an outage: try again next round
                log.warning("housekeeping postponed: database unavailable: %s", error)
                next_expiry = None
            except Exception:
                log.exception("housekeeping failed")
                next_expiry = None
            delay = HOUSEKEEPING_SECONDS
            if next_expiry is not None:
                delay = min(delay, max(0.05, next_expiry - time.time()))
            log.debug("housekeeping: next round in %.1f s", delay)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(posted.wait(), timeout=delay)
            posted.clear()
