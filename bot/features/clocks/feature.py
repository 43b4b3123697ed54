"""Live clocks: the games whose running clock has run out end on time, on this process's
servers, within a moment of the flag — whoever is (or is not) pressing anything."""

from __future__ import annotations

import logging
import time

from bot.discord.app import App
from bot.discord.feature import Feature
from bot.features.play import OutdatedBoardError, PlayService
from bot.loops.loop import Loop

log = logging.getLogger(__name__)

LOOK_AGAIN_SECONDS = 1.0
"""The longest the loop sleeps: a clock another process started is seen within it (a clock
this process starts rings the loop's alarm)."""
SHORTEST_SLEEP = 0.02
"""The shortest the loop sleeps, whatever is due."""


class Clocks(Feature):
    """The loop that ends live games on time."""

    def __init__(self, app: App, play: PlayService) -> None:
        """``play``: ends a game on time."""
        super().__init__(app)
        self.play = play

    def loops(self) -> list[Loop]:
        """Flags, then sleeps until the next clock runs out (or a clock starts here)."""
        return [
            Loop(
                "clocks",
                self.flag_due,
                LOOK_AGAIN_SECONDS,
                alarm=self.app.flag_alarm,
                shortest=SHORTEST_SLEEP,
            )
        ]

    async def flag_due(self) -> float | None:
        """End the games whose clock has run out (a turn, or another process, may end one
        first) and post their final boards beside the loop (a slow Discord never holds up the
        next flag); when the next clock runs out."""
        for game in await self.app.stores.sweeps.flags_due(time.time()):
            try:
                flagged = await self.play.flag(game)
            except OutdatedBoardError:
                continue
            log.info("game %s ended on time", game.id)
            self.app.poster.background.post_soon(flagged)
        return await self.app.stores.sweeps.next_flag()
