"""The AI opponent: a player whose user id is the bot's own. Its turns are searched in a
worker process, stored like a human's turn, and posted with the channel's ``send``.

What waits for the AI waits in the database (the games where it is to move), not in memory: a
picker starts one search per free worker, each under a lease taken as the search starts, and
looks again when a search ends, when :meth:`Opponent.schedule` wakes it after a change, or when
a lease another process holds runs out.

Where the bot is not (a game's ``answers_only``: a DM or group DM between members, a server
without the bot) its boards can only answer presses: there the AI plays its turn within the
press that left it to move (:meth:`Opponent.answer`), and its board is that press's answer."""

from __future__ import annotations

import asyncio
import logging
import math
import time

import discord

from bot.base.game import Game
from bot.base.game_options import Level
from bot.base.languages import Language
from bot.base.logs import GAME_ID
from bot.base.people import Person
from bot.discord.answers import Interaction
from bot.discord.poster import BoardPoster, bot_id_of
from bot.features.play.service import PlayService, TurnPlayed
from bot.health.metrics import METRICS
from bot.i18n.catalogues import translator
from bot.loops import work
from bot.loops.background import Backoff, Retries, stop_tasks
from bot.loops.loop import Loop
from bot.storage.db import DatabaseUnavailable
from bot.storage.leases import Lease, LeaseStore, ai_lease
from bot.storage.sweeps import Sweeps
from bot.words.board import LastTurn
from bot.words.phrases import level_name
from bot.workers.ai import AiPlayer

log = logging.getLogger(__name__)

PICK_SECONDS = 30.0
"""The longest the picker sleeps without being woken (a board another process posted)."""
POST_SECONDS = 30.0
"""The longest the AI's board may take to render and post before it is left to the repost."""
AI_BACKOFF = Backoff(first=5.0, tries=5)
"""An AI turn that fails (not for an outage) is tried again 5, 10, 20 and 40 s later, then given
up (logged) until the bot restarts."""


class Opponent:
    """The AI as a player: its name in a game, the games it starts, and its turns — searched
    by :class:`Searches` when it is to move."""

    def __init__(
        self,
        client: discord.Client,
        sweeps: Sweeps,
        leases: LeaseStore,
        play: PlayService,
        poster: BoardPoster,
        *,
        ai: AiPlayer | None = None,
        backoff: Backoff = AI_BACKOFF,
    ) -> None:
        self.client = client
        self.poster = poster
        self.searches = Searches(client, sweeps, leases, play, poster, ai or AiPlayer(), backoff)

    @property
    def bot_id(self) -> int | None:
        """The bot's user id, the AI's (once connected)."""
        return bot_id_of(self.client)

    def loop(self) -> Loop:
        """The picker: starts the AI's searches as workers free up; sleeps until woken, or a
        held lease runs out."""
        return Loop("AI opponent", self.searches.resume, PICK_SECONDS, self.searches.wake)

    async def close(self) -> None:
        """Stop the turns under way and the worker process."""
        await self.searches.close()

    def person(self, language: Language, level: Level) -> Person:
        """The bot as the AI opponent, by the name it plays under in ``language``."""
        user = self.client.user
        assert user is not None  # games start once connected
        t = translator(language)
        return Person(user.id, t("Tholos AI ({level})", level=level_name(t, level)), bot=True)

    async def start(self, interaction: Interaction, game: Game) -> None:
        """Show a new game against the AI; the AI moves if it plays first (where its boards are
        answers, the first board shows its first turn)."""
        await interaction.response.defer()
        if not (game.answers_only and game.is_ai_turn(self.bot_id)):
            await self.poster.post_after_change(interaction, game, None)
        await self.answer(interaction, game)

    async def answer(self, interaction: Interaction, game: Game) -> bool:
        """After a press changed ``game``: if that left the AI to move, let it — in a game whose
        boards are answers, now, its board answering the same press (the search fits the
        press's 15 minutes); elsewhere, by waking the picker. Whether all there is to show was
        shown (false: the AI's board could not be, or another press is playing its turn)."""
        if not (game.answers_only and game.is_ai_turn(self.bot_id)):
            self.schedule(game)
            return True
        played = await self.searches.move_now(game)
        if played is None:
            return False
        last = LastTurn(played.turn, game.to_move)  # (the turn's transaction took its lease)
        return await self.poster.post_after_change(interaction, played.game, last, leased=True)

    def schedule(self, game: Game | None = None) -> None:
        """A change (in ``game``; ``None``: somewhere) may have left the AI to move: wake the
        picker, which finds it in the database once its board is shown. A change that leaves
        the AI nothing to do in its game (a turn between two members, the AI's opponent still
        to move) wakes nothing: it cannot free another game for the AI."""
        if game is not None and not game.is_ai_turn(self.bot_id):
            return
        self.searches.wake.set()


class Searches:
    """The AI's searches, each in a worker under its turn's lease, then stored and shown."""

    def __init__(
        self,
        client: discord.Client,
        sweeps: Sweeps,
        leases: LeaseStore,
        play: PlayService,
        poster: BoardPoster,
        ai: AiPlayer,
        backoff: Backoff,
    ) -> None:
        self.client = client
        self.sweeps = sweeps
        """The games waiting for the AI (this process's servers)."""
        self.leases = leases
        """Keep two processes from playing one AI turn."""
        self.play = play
        self.poster = poster
        self.ai = ai
        self.failing: Retries[tuple[int, int]] = Retries("AI turn (game, version)", backoff)
        """AI turns that failed lately, by game and version."""
        self.wake = work.Wakeup()
        """Wakes the picker: a game may wait for the AI, or a worker is free."""
        self.moves: dict[int, asyncio.Task[None]] = {}
        """The AI's turns under way (search, store, post), by game."""
        self._searching: set[int] = set()
        """The games whose search is running (at most one per worker)."""

    async def close(self) -> None:
        """Stop the turns under way and the worker process."""
        await stop_tasks(list(self.moves.values()))
        self.ai.close()

    async def move_now(self, game: Game) -> TurnPlayed | None:
        """Search and store the AI's turn in ``game`` now, under its lease (``None``: another
        press is playing it, or the game changed)."""
        lease = ai_lease(game.id, game.version)
        if not await self.leases.acquire(lease, time.time()):
            return None
        self._searching.add(game.id)
        return await self._play(game, lease)

    async def resume(self) -> float | None:
        """Start the AI's search in the games waiting for it longest, one per free worker, on
        this process's servers, once the board of the turn before is shown (a board still being
        posted, by the press that stored it or by the repost, comes first, or the boards would
        arrive out of order). Return when to look again for a game whose AI lease another
        process holds (a dead one's runs out then), or ``None``."""
        free = self.ai.workers - len(self._searching)
        if free <= 0:
            return None  # a search that ends wakes the picker
        retry = math.inf
        waiting = sorted(await self.sweeps.ai_games(), key=lambda g: g.last_move_at)
        bot_id = bot_id_of(self.client)
        for game in waiting:
            if free <= 0:
                break
            if game.needs_a_board or not game.is_ai_turn(bot_id) or game.id in self.moves:
                continue
            again_at = self.failing.retry_at((game.id, game.version))
            if again_at is not None and again_at > time.time():  # failed lately: backing off
                retry = min(retry, again_at)
                continue
            lease = ai_lease(game.id, game.version)
            if not await self.leases.acquire(lease, time.time()):
                retry = min(retry, await self.leases.expires_at(lease) or time.time())
                continue
            self._searching.add(game.id)  # the search starts now: the worker is free
            self.moves[game.id] = work.start(self._move(game, lease))
            free -= 1
        return None if retry == math.inf else retry

    async def _move(self, game: Game, lease: Lease) -> None:
        """Search and store the AI's turn, its lease taken (:meth:`resume`); post its board. A
        turn that fails is tried again after a backoff (not for an outage: the picker's next
        look tries again)."""
        GAME_ID.set(game.id)  # this task is about this game alone
        key = (game.id, game.version)
        try:
            try:
                played = await self._play(game, lease)
            except DatabaseUnavailable as error:
                log.warning("the AI waits in game %s: database unavailable: %s", game.id, error)
                return
            except Exception as error:
                log.exception("the AI could not move in game %s", game.id)
                self.failing.failed(key, time.time(), error)
                self.wake.set()  # to look again when its backoff is over
                return
            self.failing.succeeded(key)
            if played is not None:
                await self._show(played, game)
        finally:
            self.moves.pop(game.id, None)

    async def _play(self, game: Game, lease: Lease) -> TurnPlayed | None:
        """Search the AI's turn (the worker free for the next game as soon as it ends) and
        store it; give the lease back. ``None`` if the game changed meanwhile."""
        try:
            seed = game.seed * 1000 + game.plies
            level = game.ai_level or "medium"
            try:
                with METRICS.ai_think.labels(level).time():
                    turn = await self.ai.choose(game.position, level, seed)
            finally:
                self._searching.discard(game.id)
                self.wake.set()
            return await self.play.ai_turn(game, turn)
        finally:
            await self.leases.release(lease)

    async def _show(self, played: TurnPlayed, before: Game) -> None:
        """Post the board after the AI's turn; if that fails, the repost shows it later."""
        last = LastTurn(played.turn, before.to_move)
        await self.poster.background.post_stored(played.game, last, bare=True, seconds=POST_SECONDS)
