"""Puzzles from the server's own games: a loop that searches each finished game, in the order
they finished, for a puzzle (the first of its last positions whose side to move has exactly one
best turn, proven by exhaustive search), in a worker process at low priority, and stores what
it finds. Every process runs it; a compare-and-set on the mark of the last game searched hands
each game to one of them (``THOLOS_PUZZLES_FROM_GAMES=off`` turns it off)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from bot.discord.app import App
from bot.features.puzzles.store import PuzzleStore
from bot.loops import work
from bot.loops.loop import Loop
from bot.storage.games.changes import FINISHED_TOPIC
from bot.workers.ai import PuzzleFinder
from engine import parse_turn
from engine.puzzles import LATE

log = logging.getLogger(__name__)

LOOK_AGAIN_SECONDS = 60.0
"""How long the loop rests once every finished game was searched."""


class Harvest:
    """Searches finished games for puzzles, one game at a time."""

    def __init__(
        self, app: App, store: PuzzleStore, finder: PuzzleFinder | None = None, late: int = LATE
    ) -> None:
        self.app = app
        self.store = store
        self.finder = finder or PuzzleFinder()
        self.late = late
        """Positions with at most this many places left are searched."""
        self._wakeup = work.Wakeup()
        self._stop_listening: Callable[[], None] = lambda: None

    def loop(self) -> Loop:
        """Searches the next finished game, and the next; rests when none is left, until a game
        finishes (on any process). Its rounds are not counted as work in flight: a search takes
        seconds at a low priority, beside everything else, and waits for nothing."""
        return Loop(
            "puzzles from games", self.search, LOOK_AGAIN_SECONDS, self._wakeup, counted=False
        )

    async def listen(self) -> None:
        """Wake the loop when a game finishes."""
        self._stop_listening = await self.app.database.listen(
            FINISHED_TOPIC, lambda payload: self._wakeup.set()
        )

    async def search(self) -> float | None:
        """One game searched: the next is due at once; none left: after a rest."""
        return time.time() if await self.search_next() else None

    async def search_next(self) -> bool:
        """Search the next finished game for a puzzle; whether there was one to search."""
        game_id = await self.store.searched.claim_next()
        if game_id is None:
            return False
        game = await self.app.stores.games.game(game_id)
        if game is None:
            return True
        turns = [parse_turn(record.turn) for record in await self.app.stores.games.turns(game_id)]
        found = await self.finder.find(game.start_position, turns, f"game {game_id}", self.late)
        if found is not None and await self.store.add([found], time.time()):
            log.info("a puzzle from game %s: %s", game_id, found.source)
        return True

    def close(self) -> None:
        """Stop listening and the worker (a search under way is abandoned; its game is not
        searched again)."""
        self._stop_listening()
        self.finder.close()
