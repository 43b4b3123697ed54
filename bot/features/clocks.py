"""Live clocks: the games whose running clock has run out end on time, on this process's
servers, within a moment of the flag — whoever is (or is not) pressing anything."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from bot.base import work
from bot.face.app import App, Feature
from bot.face.background import discord_call, stop_tasks
from bot.services import OutdatedBoardError
from bot.storage import DatabaseUnavailable, Game

log = logging.getLogger(__name__)

LOOK_AGAIN_SECONDS = 1.0
"""The longest the loop sleeps: a clock another process started is seen within it (a clock
this process starts rings the loop's alarm)."""
SHORTEST_SLEEP = 0.02
"""The shortest the loop sleeps, whatever is due."""


class Clocks(Feature):
    """The loop that ends live games on time."""

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self._posting: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        """End the games whose clock ran out and post their final boards; sleep until the next
        clock runs out (at most :data:`LOOK_AGAIN_SECONDS`, or until a clock starts here)."""
        client = self.app.client
        await client.wait_until_ready()
        try:
            while not client.is_closed():
                next_flag = None
                try:
                    with work.busy():
                        await self._flag_due()
                        next_flag = await self.app.sweeps.next_flag()
                except DatabaseUnavailable as error:  # an outage: look again shortly
                    log.warning("clocks: database unavailable: %s", error)
                except Exception:
                    log.exception("clocks: the sweep failed")
                delay = LOOK_AGAIN_SECONDS
                if next_flag is not None:  # (never a busy loop, even if a flag keeps failing)
                    delay = min(delay, max(SHORTEST_SLEEP, next_flag - time.time()))
                await self._sleep(delay)
        finally:
            await stop_tasks(list(self._posting))

    async def _flag_due(self) -> None:
        """End the games whose clock has run out (a turn, or another process, may end one
        first) and post their final boards."""
        for game in await self.app.sweeps.flags_due(time.time()):
            try:
                flagged = await self.app.play.flag(game)
            except OutdatedBoardError:
                continue
            self._post_soon(flagged)

    def _post_soon(self, game: Game) -> None:
        """Post the final board of a game that ended on time, beside the loop (a slow
        Discord never holds up the next flag)."""
        log.info("game %s ended on time", game.id)
        task = work.start(self._post(game))  # counted: the shutdown and the tests wait for it
        self._posting.add(task)
        task.add_done_callback(self._posting.discard)

    async def _post(self, game: Game) -> None:
        poster = self.app.poster
        try:
            last = await poster.last_turn(game)
            await discord_call(poster.post_in_channel(game, last, leased=True))
        except Exception as error:  # stored: the housekeeping loop posts it later
            log.warning("could not post the board of game %s after its flag: %s", game.id, error)

    async def _sleep(self, delay: float) -> None:
        """Sleep ``delay`` seconds, or until a clock that runs out sooner starts here."""
        alarm = self.app.flag_alarm
        alarm.sleeping_until(time.time() + delay)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(alarm.rung.wait(), timeout=delay)
        alarm.awake()
