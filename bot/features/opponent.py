"""The AI opponent: a player whose user id is the bot's own. Its turns are searched in a
worker process, stored like a human's turn, and posted with the channel's ``send``."""

from __future__ import annotations

import asyncio
import logging
import math
import time

from ..ai import AiPlayer
from ..answers import Interaction
from ..app import App, Feature
from ..boards import LastTurn
from ..logs import GAME_ID
from ..metrics import METRICS
from ..storage import DatabaseUnavailable, Game
from ..storage.leases import ai_lease

log = logging.getLogger(__name__)

class Opponent(Feature):
    """Starts games against the AI and lets it move when it is its turn."""

    def __init__(self, app: App, ai: AiPlayer | None = None) -> None:
        super().__init__(app)
        self.ai = ai or AiPlayer()
        self._thinking: dict[int, asyncio.Task[None]] = {}

    def close(self) -> None:
        """Stop the worker process."""
        self.ai.close()

    async def start(self, interaction: Interaction, game: Game) -> None:
        """Show a new game against the AI; the AI moves if it plays first."""
        await interaction.response.defer()
        await self.app.boards.post_after_change(interaction, game, None)
        self.schedule(game)

    def schedule(self, game: Game) -> None:
        """Let the AI move in ``game`` if it is its turn and it isn't thinking already."""
        if game.is_active and self.app.boards.is_ai_turn(game) and game.id not in self._thinking:
            self._thinking[game.id] = asyncio.create_task(self._move(game))

    async def _move(self, game: Game) -> None:
        """Search, store and post the AI's turn; one process does it (the version's lease)."""
        GAME_ID.set(game.id)  # this task is about this game alone
        lease = ai_lease(game.id, game.version)
        try:
            if not await self.app.leases.acquire(lease, time.time()):
                return  # another process is playing this turn
            try:
                seed = game.seed * 1000 + game.plies
                level = game.ai_level or "medium"
                with METRICS.ai_think.labels(level).time():
                    turn = await self.ai.choose(game.position, level, seed)
                played = await self.app.play.ai_turn(game, turn)
            finally:
                await self.app.leases.release(lease)
            if played is not None:
                last = LastTurn(turn, game.to_move)
                await self.app.boards.post_in_channel(played.game, last, leased=True, bare=True)
        except DatabaseUnavailable as error:
            log.warning("the AI waits in game %s: database unavailable: %s", game.id, error)
        except Exception:
            log.exception("the AI could not move in game %s", game.id)
        finally:
            self._thinking.pop(game.id, None)

    async def resume(self) -> float | None:
        """Let the AI move in every game waiting for it (after a restart, or a failure) whose
        board shows the newest change: a board still being posted (by the press that stored
        it, or later by ``repost_missing``) comes first, or the boards would arrive out of
        order; the poster schedules the AI itself, or the next round does. Return when to look
        again for a turn whose lease another process holds (a dead one's runs out then), or
        ``None``."""
        retry: float | None = None
        now = time.time()
        for game in await self.app.games.active_ai_games():
            if (
                not self.app.settings.shards.owns(game.guild_id)
                or game.needs_a_board
                or not self.app.boards.is_ai_turn(game)
                or game.id in self._thinking
            ):
                continue
            held_until = await self.app.leases.expires_at(ai_lease(game.id, game.version))
            if held_until is not None and held_until > now:
                retry = min(retry or math.inf, held_until)
                continue
            self.schedule(game)
        return retry
