"""What runs on its own: challenges expire on time, boards that a crash or a failed post left
unposted are posted, the AI's picker is woken (a board now shown may let it move), and turn
reminders are sent."""

from __future__ import annotations

import asyncio
import logging
import time

from ..app import App, Feature
from ..background import stop_tasks
from ..storage import DatabaseUnavailable
from .challenges import Challenges
from .opponent import Opponent
from .reminders import Reminders

log = logging.getLogger(__name__)

HOUSEKEEPING_SECONDS = 30.0
"""The longest the housekeeping loop sleeps (it wakes earlier for a due challenge or
reminder)."""
REPAIR_GRACE_SECONDS = 30.0
"""A board missing this long after its change was stored is posted by the housekeeping loop
(at start, at once)."""


class Housekeeping(Feature):
    """Repairs at start, then a loop that keeps repairing."""

    def __init__(
        self, app: App, challenges: Challenges, opponent: Opponent, reminders: Reminders
    ) -> None:
        super().__init__(app)
        self.challenges = challenges
        self.opponent = opponent
        self.reminders = reminders
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

    async def run(self) -> None:
        """Expire challenges on time, post boards that a failed post left missing, wake the
        AI's picker, send the reminders that are due; sleep until the next challenge or
        reminder is due or a held lease runs out (at most :data:`HOUSEKEEPING_SECONDS`)."""
        client = self.app.client
        await client.wait_until_ready()
        while not client.is_closed():
            try:
                await self.challenges.expire()
                retry = await self.app.boards.repost_missing(grace=self._grace)
                self.opponent.schedule()  # a board now shown may let the AI move
                self._grace = REPAIR_GRACE_SECONDS if retry is None else 0.0
                remind_at = await self.reminders.sweep()
                expiry = await self.app.challenges.next_expiry()
                # a lease held elsewhere: look again when it runs out
                times = [at for at in (expiry, retry, remind_at) if at is not None]
                wake_at = min(times) if times else None
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
            await self._sleep(delay)

    async def _sleep(self, delay: float) -> None:
        """Sleep ``delay`` seconds, or until a challenge is posted or a change stores a
        reminder due sooner."""
        posted, alarm = self.challenges.posted, self.app.alarm
        alarm.sleeping_until(time.time() + delay)
        waits = [asyncio.create_task(event.wait()) for event in (posted, alarm.rung)]
        try:
            await asyncio.wait(waits, timeout=delay, return_when=asyncio.FIRST_COMPLETED)
        finally:
            await stop_tasks(waits)
        posted.clear()
        alarm.awake()
