"""Puzzles from the server's own games: a loop that searches each finished game, in the order
they finished, for a puzzle (the first of its last positions whose side to move has exactly one
best turn, proven by exhaustive search), in a worker process at low priority, and stores what
it finds. Every process runs it; a compare-and-set on the mark of the last game searched hands
each game to one of them (``THOLOS_PUZZLES_FROM_GAMES=off`` turns it off)."""

from __future__ import annotations

import logging
import time

from bot.base import work
from bot.face.app import App
from bot.face.background import wait_for_event
from bot.services.workers import PuzzleFinder
from bot.storage import DatabaseUnavailable
from bot.storage.puzzles import PuzzleStore
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

    async def run(self) -> None:
        """Search the next finished game; rest when none is left."""
        client = self.app.client
        await client.wait_until_ready()
        while not client.is_closed():
            searched = False
            try:
                searched = await self.search_next()
            except DatabaseUnavailable as error:
                log.warning("puzzles from games: database unavailable: %s", error)
            except Exception:
                log.exception("puzzles from games: a search failed")
            if not searched:
                await wait_for_event(self._wakeup, LOOK_AGAIN_SECONDS)

    async def search_next(self) -> bool:
        """Search the next finished game for a puzzle; whether there was one to search."""
        game_id = await self.store.searched.claim_next()
        if game_id is None:
            return False
        game = await self.app.games.game(game_id)
        if game is None:
            return True
        turns = [parse_turn(record.turn) for record in await self.app.games.turns(game_id)]
        found = await self.finder.find(game.start_position, turns, f"game {game_id}", self.late)
        if found is not None and await self.store.add([found], time.time()):
            log.info("a puzzle from game %s: %s", game_id, found.source)
        return True

    def close(self) -> None:
        """Stop the worker (a search under way is abandoned; its game is not searched again)."""
        self.finder.close()
