"""What runs on its own: challenges expire on time, boards that a crash or a failed post left
unposted are posted, the AI's picker is woken (a board now shown may let it move), and turn
reminders are sent."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import discord

from bot.base import work
from bot.face.app import App, Feature
from bot.face.background import Backoff, Retries, discord_call, stop_tasks
from bot.face.opponent import Opponent
from bot.storage import DatabaseUnavailable, Game
from bot.storage.leases import board_lease

log = logging.getLogger(__name__)

HOUSEKEEPING_SECONDS = 30.0
"""The longest the housekeeping loop sleeps (it wakes earlier for a due challenge or
reminder)."""
REPOST_BACKOFF = Backoff(first=30.0, tries=6)
"""A board Discord refused to post is tried again after 30 s, 1, 2, 4 and 8 minutes, then
given up (logged) until the next start."""
REPAIR_GRACE_SECONDS = 30.0
"""A board missing this long after its change was stored is posted by the housekeeping loop
(at start, at once)."""


@dataclass(frozen=True, slots=True)
class Chores:
    """What other features give the loop to do (the client wires them, so that no feature
    imports another)."""

    expire_challenges: Callable[[], Awaitable[None]]
    """Close the challenges whose time is up, and say so on their messages."""
    challenge_posted: asyncio.Event
    """Set when a challenge is posted (the loop wakes to time its expiry)."""
    send_reminders: Callable[[], Awaitable[float | None]]
    """Send the turn reminders that are due; when to look again."""


class Housekeeping(Feature):
    """Repairs at start, then a loop that keeps repairing."""

    def __init__(self, app: App, opponent: Opponent, chores: Chores) -> None:
        super().__init__(app)
        self.opponent = opponent
        self.chores = chores
        self._grace = REPAIR_GRACE_SECONDS
        """How old a missing board must be before the loop posts it (0 right after a round
        that found one whose poster holds its lease: that poster may have died)."""
        self.unpostable: Retries[tuple[int, int]] = Retries("board of game", REPOST_BACKOFF)
        """Boards Discord refused to post (game and version): tried again after a backoff,
        given up after a few tries (memory bounded)."""

    async def catch_up(self) -> None:
        """Repair what a crash or restart left behind, before the gateway connects (other
        processes may be at work meanwhile: the leases keep them from doing it twice)."""
        await self.app.renderer.warm_up()
        await self.chores.expire_challenges()
        retry = await self.repost_missing(grace=0)
        self._grace = REPAIR_GRACE_SECONDS if retry is None else 0.0

    async def run(self) -> None:
        """Expire challenges on time, post boards that a failed post left missing, wake the
        AI's picker, send the reminders that are due; sleep until the next challenge or
        reminder is due or a held lease runs out (at most :data:`HOUSEKEEPING_SECONDS`)."""
        client = self.app.client
        await client.wait_until_ready()
        while not client.is_closed():
            try:
                with work.busy():
                    await self.chores.expire_challenges()
                    retry = await self.repost_missing(grace=self._grace)
                    self.opponent.schedule()  # a board now shown may let the AI move
                    self._grace = REPAIR_GRACE_SECONDS if retry is None else 0.0
                    remind_at = await self.chores.send_reminders()
                    expiry = await self.app.sweeps.next_expiry()
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
        posted, alarm = self.chores.challenge_posted, self.app.alarm
        alarm.sleeping_until(time.time() + delay)
        waits = [asyncio.create_task(event.wait()) for event in (posted, alarm.rung)]
        try:
            await asyncio.wait(waits, timeout=delay, return_when=asyncio.FIRST_COMPLETED)
        finally:
            await stop_tasks(waits)
        posted.clear()
        alarm.awake()

    async def _post_or_record(self, game: Game) -> None:
        """Post a missing board, or record it if its poster was killed after posting it."""
        poster = self.app.poster
        found = await poster.find_posted(game)
        if found is not None:
            log.info("game %s: its board was posted before a restart; recording it", game.id)
            await poster.record(game, found)
            return
        channel = self.app.client.get_partial_messageable(game.channel_id)
        await poster.post_now(channel.send, game, await poster.last_turn(game))

    async def repost_missing(self, grace: float) -> float | None:
        """Post the boards of changes stored more than ``grace`` seconds ago but never shown
        (the bot died, or Discord failed, between storing and posting) on this process's
        servers; return when to look again for a board whose lease another poster holds
        (``None``: none is held)."""
        retry: float | None = None
        cutoff = time.time() - grace
        app = self.app
        for stale in await app.sweeps.games_needing_a_board(changed_before=cutoff):
            key = (stale.id, stale.version)
            if not self.unpostable.ready(key, time.time()):  # (this process's servers only)
                continue
            lease = board_lease(stale.id, stale.version)
            if not await app.leases.acquire(lease, time.time()):  # being posted, or its
                expiry = await app.leases.expires_at(lease)  # poster died: look again then
                retry = min(retry or math.inf, expiry or time.time())
                continue
            try:
                game = await app.games.game(stale.id)
                if game is None or not game.needs_a_board or game.version != stale.version:
                    await app.leases.release(lease)  # posted meanwhile, or changed again
                    continue
                await discord_call(self._post_or_record(game))
                self.unpostable.succeeded(key)
            except DatabaseUnavailable:
                raise  # an outage, not this game's fault: the next round tries again
            except Exception as error:  # Discord refused, or hung: back off, then give up
                if not isinstance(error, discord.HTTPException | TimeoutError):
                    log.exception("could not post the board of game %s", stale.id)
                again = self.unpostable.failed(key, time.time(), error)
                if again is not None:
                    retry = min(retry or math.inf, again)
                await app.leases.release(lease)
        return retry
