"""Boards that a crash or a failed post left unposted are posted (or, if their poster was
killed after posting them, recorded), at start and then by a loop; the AI's picker is woken
after each round (a board now shown may let it move)."""

from __future__ import annotations

import logging
import math
import time

import discord

from bot.base.game import Game
from bot.discord.app import App
from bot.discord.feature import Feature
from bot.discord.opponent import AiOpponent
from bot.loops.background import Backoff, Retries, discord_call
from bot.loops.loop import Loop
from bot.storage.db import DatabaseUnavailable
from bot.storage.leases import board_lease

log = logging.getLogger(__name__)

HOUSEKEEPING_SECONDS = 30.0
"""The longest the loop sleeps (it wakes earlier when a board's lease runs out)."""
REPOST_BACKOFF = Backoff(first=30.0, tries=6)
"""A board Discord refused to post is tried again after 30 s, 1, 2, 4 and 8 minutes, then
given up (logged) until the next start."""
REPAIR_GRACE_SECONDS = 30.0
"""A board missing this long after its change was stored is posted by the loop (at start, at
once)."""


class Housekeeping(Feature):
    """Repairs at start, then a loop that keeps repairing."""

    def __init__(self, app: App, opponent: AiOpponent) -> None:
        """``opponent``: the AI, woken when a board it waits for is shown."""
        super().__init__(app)
        self.opponent = opponent
        self._grace = REPAIR_GRACE_SECONDS
        """How old a missing board must be before the loop posts it (0 right after a round
        that found one whose poster holds its lease: that poster may have died)."""
        self.unpostable: Retries[tuple[int, int]] = Retries("board of game", REPOST_BACKOFF)
        """Boards Discord refused to post (game and version): tried again after a backoff,
        given up after a few tries (memory bounded)."""

    async def start(self) -> None:
        """Repair what a crash or restart left behind, before the gateway connects (other
        processes may be at work meanwhile: the leases keep them from doing it twice)."""
        await self.app.renderer.warm_up()
        retry = await self.repost_missing(grace=0)
        self._grace = REPAIR_GRACE_SECONDS if retry is None else 0.0

    def loops(self) -> list[Loop]:
        return [Loop("boards", self.repair, HOUSEKEEPING_SECONDS)]

    async def repair(self) -> float | None:
        """Post the missing boards, wake the AI's picker; when a held lease runs out."""
        retry = await self.repost_missing(grace=self._grace)
        self.opponent.schedule()  # a board now shown may let the AI move
        self._grace = REPAIR_GRACE_SECONDS if retry is None else 0.0
        return retry

    async def _post_or_record(self, game: Game) -> None:
        """Post a missing board, or record it if its poster was killed after posting it."""
        poster = self.app.poster
        found = await poster.posted.find(game)
        if found is not None:
            log.info("game %s: its board was posted before a restart; recording it", game.id)
            await poster.posted.record(game, found)
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
        for stale in await app.stores.sweeps.games_needing_a_board(changed_before=cutoff):
            key = (stale.id, stale.version)
            if not self.unpostable.ready(key, time.time()):  # (this process's servers only)
                continue
            lease = board_lease(stale.id, stale.version)
            if not await app.stores.leases.acquire(lease, time.time()):  # being posted, or its
                expiry = await app.stores.leases.expires_at(lease)  # poster died: look again then
                retry = min(retry or math.inf, expiry or time.time())
                continue
            try:
                game = await app.stores.games.game(stale.id)
                if game is None or not game.needs_a_board or game.version != stale.version:
                    await app.stores.leases.release(lease)  # posted meanwhile, or changed again
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
                await app.stores.leases.release(lease)
        return retry
