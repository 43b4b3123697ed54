"""The waiting messages this process answered, kept up to date while their interaction's token
lives (best effort: Refresh always shows the queue as it is): the count when someone joins or
leaves that pace, the AI offered once the member waited long enough with nobody, and who they
were paired with."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

import discord

from bot.base.game import ANSWERS_ONLY
from bot.base.paces import rating_pool
from bot.discord.answers import Interaction
from bot.discord.app import App
from bot.discord.venues import venue_of
from bot.features.pool.service import AI_OFFER_AFTER, PoolService, PoolState
from bot.features.pool.views import paired_text, waiting_text, waiting_view
from bot.i18n.locales import reader
from bot.loops import work
from bot.loops.background import discord_call
from bot.storage.games.places import place_of

log = logging.getLogger(__name__)

TOKEN_SECONDS = 14 * 60.0
"""How long after an interaction its message is still edited (Discord's tokens live 15
minutes)."""


@dataclass(frozen=True, slots=True)
class Waiter:
    """A member's waiting message: the interaction that answered it last, and the pace."""

    interaction: Interaction
    pace: str

    @property
    def in_dm(self) -> bool:
        """Whether the message is where the bot is not: the game goes to the member's DM with
        the bot (a server with the bot that did not open the pool refuses)."""
        return venue_of(self.interaction) in ANSWERS_ONLY

    @property
    def rated_ai(self) -> bool:
        """Whether the AI may be played rated where the message is (where the bot is)."""
        return not self.in_dm


class Waiters:
    """The waiting messages of this process, by member."""

    def __init__(self, app: App, service: PoolService) -> None:
        self.app = app
        self.service = service
        self._by_user: dict[int, Waiter] = {}
        self._timers: dict[int, asyncio.TimerHandle] = {}
        self._stale: set[str] = set()
        """Paces whose waiting messages show an old count."""
        self._refreshing: asyncio.Task[None] | None = None
        self._joining: dict[int, int | None] = {}
        """Members whose join is being answered, and the game a wave paired them in meanwhile
        (before their message could be followed)."""

    def expect(self, user_id: int) -> None:
        """``user_id`` is about to join: a pairing heard before their message is answered is
        kept for it."""
        self.forget(user_id)
        self._joining[user_id] = None

    async def answer(self, interaction: Interaction, state: PoolState, *, edit: bool) -> None:
        """Answer ``interaction`` with the waiting message (``edit``: in place of the message
        pressed; else a new one), and keep it up to date."""
        waiter = Waiter(interaction, state.pace or "")
        t = reader(interaction)
        text = waiting_text(t, state, waiter.in_dm)
        view = waiting_view(t, state, waiter.rated_ai)
        if edit:
            await interaction.response.edit_message(content=text, view=view)
        else:
            await interaction.response.send_message(text, view=view, ephemeral=True)
        game_id = self._joining.pop(interaction.user.id, None)
        if game_id is not None:  # paired while the answer was on its way
            work.start(self._paired(waiter, game_id))
        elif state.pace is None:
            self.forget(interaction.user.id)
        else:
            self._watch(waiter, state)

    async def refresh(self, interaction: Interaction) -> None:
        """Refresh: the waiting message as the queue is now (in place of the one pressed)."""
        state = await self.service.state(interaction.user.id, time.time())
        await self.answer(interaction, state, edit=True)

    def forget(self, user_id: int) -> None:
        """Stop following ``user_id``'s waiting message."""
        self._by_user.pop(user_id, None)
        self._joining.pop(user_id, None)
        timer = self._timers.pop(user_id, None)
        if timer is not None:
            timer.cancel()

    def close(self) -> None:
        """Stop following every waiting message."""
        for user_id in list(self._by_user):
            self.forget(user_id)

    def heard(self, payload: str | None) -> None:
        """A change of the queue (``None``: changes may have been missed)."""
        if payload is None:
            self._stale.update(waiter.pace for waiter in self._by_user.values())
        else:
            kind, _, rest = payload.partition(":")
            if kind == "paired":
                game_id, first, second = (int(part) for part in rest.split(":"))
                for user_id in (first, second):
                    if user_id in self._joining:
                        self._joining[user_id] = game_id
                    waiter = self._by_user.get(user_id)
                    if waiter is not None:
                        self.forget(user_id)
                        work.start(self._paired(waiter, game_id))
                return
            self._stale.add(rest)
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = work.start(self._refresh_stale())

    def _watch(self, waiter: Waiter, state: PoolState) -> None:
        """Follow ``waiter``'s message; edit it when the AI offer falls due (if nobody else
        waits then)."""
        user_id = waiter.interaction.user.id
        self.forget(user_id)
        self._by_user[user_id] = waiter
        if state.ai_offer is not None or state.since is None:
            return
        due = state.since + AI_OFFER_AFTER[rating_pool(waiter.pace)] - time.time()
        if due > 0:  # else the offer waits for the others waiting to go (their "left" is heard)
            self._timers[user_id] = asyncio.get_running_loop().call_later(
                due + 0.1, self._offer_due, user_id
            )

    def _offer_due(self, user_id: int) -> None:
        self._timers.pop(user_id, None)
        if user_id in self._by_user:
            work.start(self._edit(user_id))

    async def _refresh_stale(self) -> None:
        """Edit the messages of those waiting for the paces whose count changed (the changes
        heard meanwhile too)."""
        while self._stale:
            paces, self._stale = self._stale, set()
            for user_id, waiter in list(self._by_user.items()):
                if waiter.pace in paces:
                    await self._edit(user_id)

    async def _edit(self, user_id: int) -> None:
        """Show ``user_id``'s state on their waiting message."""
        waiter = self._by_user.get(user_id)
        if waiter is None:
            return
        state = await self.service.state(user_id, time.time())
        if state.pace is None or self._by_user.get(user_id) is not waiter:
            return  # paired (its announcement says so), left elsewhere, or answered anew
        if state.pace != waiter.pace or user_id not in self._timers:
            waiter = Waiter(waiter.interaction, state.pace)
            self._watch(waiter, state)
        t = reader(waiter.interaction)
        text = waiting_text(t, state, waiter.in_dm)
        await self._show(waiter, text, waiting_view(t, state, waiter.rated_ai))

    async def _paired(self, waiter: Waiter, game_id: int) -> None:
        """Say who the member was paired with, and where their game is."""
        user_id = waiter.interaction.user.id
        game = await self.app.stores.games.game(game_id)
        place = await place_of(self.app.database, game_id, user_id)
        if game is None or place is None:
            return
        opponent = game.black_name if game.white_id == user_id else game.white_name
        channel = place.home_id if place.venue == "server" else None
        t = reader(waiter.interaction)
        await self._show(waiter, paired_text(t, game_id, opponent, channel), None)

    async def _show(self, waiter: Waiter, text: str, view: discord.ui.View | None) -> None:
        """Edit the waiting message, while its token lives (a failure is only logged)."""
        interaction = waiter.interaction
        if time.time() - interaction.created_at.timestamp() > TOKEN_SECONDS:
            self.forget(interaction.user.id)
            return
        try:
            await discord_call(interaction.edit_original_response(content=text, view=view))
        except (discord.HTTPException, TimeoutError) as error:
            log.info("could not update the waiting message of %s: %r", interaction.user.id, error)
