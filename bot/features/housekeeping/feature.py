"""Boards that a crash or a failed post left unposted are posted (or, if their poster was
killed after posting them, recorded), at start and then by a loop; the AI's picker is woken
after each round (a board now shown may let it move)."""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable

import discord

from bot.base.game import Game
from bot.discord.app import App
from bot.discord.feature import Feature
from bot.discord.opponent import AiOpponent
from bot.discord.places import open_pool_thread, post_pool_line
from bot.discord.poster import board_nonce
from bot.loops import work
from bot.loops.background import Backoff, Retries, discord_call
from bot.loops.loop import Loop
from bot.storage.db import DatabaseUnavailable
from bot.storage.games.changes import PLACES_TOPIC
from bot.storage.games.places import boards_behind
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
        self.unpostable: Retries[tuple[int, int, int]] = Retries("board of game", REPOST_BACKOFF)
        """Boards Discord refused to post (game, version and place): tried again after a
        backoff, given up after a few tries (memory bounded)."""
        self.changed_in_places = work.Wakeup()
        """Set when a pool game changed, on any process: its boards in its places are due."""
        self._stop_hearing: Callable[[], None] | None = None

    async def start(self) -> None:
        """Repair what a crash or restart left behind, before the gateway connects (other
        processes may be at work meanwhile: the leases keep them from doing it twice)."""
        await self.app.renderer.warm_up()
        self._stop_hearing = await self.app.database.listen(
            PLACES_TOPIC, lambda _: self.changed_in_places.set()
        )
        retry = await self.repost_missing(grace=0)
        self._grace = REPAIR_GRACE_SECONDS if retry is None else 0.0

    async def stop(self) -> None:
        """Stop hearing of pool games' changes."""
        if self._stop_hearing is not None:
            self._stop_hearing()

    def loops(self) -> list[Loop]:
        """The repair, woken at once by a pool game's change (its other places' boards)."""
        return [Loop("boards", self.repair, HOUSEKEEPING_SECONDS, self.changed_in_places)]

    async def repair(self) -> float | None:
        """Post the missing boards, wake the AI's picker; when a held lease runs out."""
        retry = await self.repost_missing(grace=self._grace)
        self.opponent.schedule()  # a board now shown may let the AI move
        self._grace = REPAIR_GRACE_SECONDS if retry is None else 0.0
        return retry

    async def _post_or_record(self, game: Game, *, look_first: bool = True) -> None:
        """Post a missing board, or record it if its poster was killed after posting it
        (``look_first``: it may have been; a post repeated within Discord's nonce window is
        answered with the first message anyway)."""
        poster = self.app.poster
        if game.pool and not await self.app.stores.games.place_threads.placed(game):
            game = await self._settle(game)
        found = await poster.posted.find(game) if look_first else None
        if found is not None:
            log.info("game %s: its board was posted before a restart; recording it", game.id)
            await poster.posted.record(game, found)
            return
        channel = self.app.client.get_partial_messageable(game.channel_id)
        send = functools.partial(channel.send, nonce=board_nonce(game))
        await poster.post_now(send, game, await poster.last_turn(game))

    async def _settle(self, game: Game) -> Game:
        """Before a pool game's first board in one of its places: a thread of its own there
        if that server wants one per game (else the channel itself); the line it hangs on is
        remembered first, so that a restart opens the thread on it, never on a second."""
        places = self.app.stores.games.place_threads
        rules = await self.app.rules(game.guild_id)
        if not rules.threads or game.venue != "server":
            return await places.settle(game, None)
        line_id = await places.pending_line(game)
        if line_id is None:
            line_id = await post_pool_line(self.app.client, game)
            if line_id is None:  # no thread can be opened there
                return await places.settle(game, None)
            await places.note_line(game, line_id)
        thread = await open_pool_thread(self.app.client, game, line_id)
        return await places.settle(game, thread)

    async def repost_missing(self, grace: float) -> float | None:
        """Post the boards of changes stored more than ``grace`` seconds ago but never shown
        (the bot died, or Discord failed, between storing and posting) on this process's
        servers, and every board of a pool game still to be shown in one of its places here
        at once (once connected: the first may open a thread); return when to look again for
        a board whose lease another poster holds (``None``: none is held)."""
        app = self.app
        missing = await app.stores.sweeps.games_needing_a_board(changed_before=time.time() - grace)
        keys = {_key(game) for game in missing}
        in_places = await boards_behind(app.database, app.settings.shards)
        missing += [game for game in in_places if _key(game) not in keys]
        if not app.client.is_ready():  # a pool game's place may want a thread: once connected
            missing = [game for game in missing if not game.pool]
        retry: float | None = None
        for stale in missing:
            again = await self._repost(stale)
            if again is not None:
                retry = min(retry or math.inf, again)
        return retry

    async def _repost(self, stale: Game) -> float | None:
        """Post (or record) one missing board under its lease; when to try again, if ever
        soon (its lease is held, or Discord refused it)."""
        app = self.app
        key = _key(stale)
        if not self.unpostable.ready(key, time.time()):  # (this process's servers only)
            return None
        lease = board_lease(stale.id, stale.version, stale.away)
        if not await app.stores.leases.acquire(lease, time.time()):  # being posted, or its
            expiry = await app.stores.leases.expires_at(lease)  # poster died: look again then
            return expiry or time.time()
        try:
            game = await app.stores.games.places.seen_from(stale.id, stale.away)
            if game is None or not game.needs_a_board or game.version != stale.version:
                await app.stores.leases.release(lease)  # posted meanwhile, or changed again
                return None
            changed_at = game.finished_at or game.last_move_at
            look_first = time.time() - changed_at > lease.seconds
            await discord_call(self._post_or_record(game, look_first=look_first))
            self.unpostable.succeeded(key)
        except DatabaseUnavailable:
            raise  # an outage, not this game's fault: the next round tries again
        except Exception as error:  # Discord refused, or hung: back off, then give up
            if not isinstance(error, discord.HTTPException | TimeoutError):
                log.exception("could not post the board of game %s", stale.id)
            await app.stores.leases.release(lease)
            return self.unpostable.failed(key, time.time(), error)
        return None


def _key(game: Game) -> tuple[int, int, int]:
    """A board to post: its game, version and place (0: the game's home)."""
    return game.id, game.version, game.away or 0
