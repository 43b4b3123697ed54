"""Quick pairing on the live page: the lobby offers the pool's paces where the pool is open to
its member (a server with the bot that opened it; elsewhere the game goes to their DM with the
bot, as ``/tholos play`` does), asks the opt-in's consent once, shows the wait (the pace, how
many wait, for how long), Leave, and the AI at the member's level once nobody came — through
:class:`~bot.features.pool.service.PoolService`. A page whose member is paired shows the game
at once (the pool's ``paired`` announcement, heard in every process)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

import discord

from bot.base.game_options import GameOptions
from bot.base.paces import CORRESPONDENCE, TimeControl, rating_pool
from bot.base.refusals import Refusal
from bot.base.seats import Seat
from bot.base.server_rules import ServerRules
from bot.base.shards import DIRECT_MESSAGES
from bot.discord.app import App
from bot.features.pool.service import AI_OFFER_AFTER, PoolService, PoolState
from bot.features.pool.store import POOL_TOPIC
from bot.features.pool.words import CONSENT
from bot.i18n.catalogues import language_of, translator
from bot.loops import work
from bot.storage.db import DatabaseUnavailable
from bot.web.live import JSON, LiveBoards, Page, refuse, refused, send, send_board
from bot.web.pages import PagePart
from bot.web.places import with_the_bot
from bot.web.sessions import Session
from bot.words.names import plain_name
from bot.words.phrases import command, level_name, pace_name
from engine.vocabulary import N_
from rendering.translator import Translator

log = logging.getLogger(__name__)

PlayAi = Callable[[Page, object, GameOptions], Awaitable[None]]
"""``play_ai(page, level, options)``: a game against the AI where the page is open (the play
feature's part of the page)."""
WORDS = {
    "pool_title": N_("Quick pairing"),
    "pool_about": N_("A rated game against a member of any server, close to your rating."),
    "pool_join": N_("Join the pool"),
    "pool_not_now": N_("Not now"),
    "pool_leave": N_("Leave the queue"),
    "pool_waited": N_("Waiting for {time}"),
}
"""The pool's labels on the page (its texts come with its frames)."""
LOOKING = N_("Looking for an opponent at {pace}.")
IN_OUR_DMS = N_("Your game will be in your direct messages with the bot.")
NOBODY = N_("Nobody else is waiting right now: play the AI at your level meanwhile.")


class PoolPages(PagePart):
    """The lobby's quick pairing."""

    types = frozenset({"quick_pairing", "pool_consent", "pool_leave", "pool_state", "pool_ai"})
    words = WORDS

    def __init__(
        self,
        app: App,
        service: PoolService,
        play_ai: PlayAi,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.app = app
        self.service = service
        self.play_ai = play_ai
        self.waits = Waits(app, service, clock)

    async def start(self, boards: LiveBoards) -> None:
        await super().start(boards)
        await self.waits.start(boards)

    async def stop(self) -> None:
        self.waits.stop()

    async def lobby(self, page: Page) -> JSON:
        """The paces offered where the pool is open to the page's member, and their wait."""
        rules = await rules_here(self.app, page.session)
        if rules is None:
            return {"pool": None}
        t = translator(page.language)
        return {
            "pool": {
                "paces": [
                    {"pace": pace, "label": pace_name(t, pace)}
                    for pace in (CORRESPONDENCE, *rules.clocks)
                ],
                "where": None if with_the_bot(self.app, page.session) else t(IN_OUR_DMS),
                "state": await self.waits.state(page),
            }
        }

    async def answer(self, page: Page, data: JSON) -> None:
        """Queue for a pace (the consent asked first, once), consent, leave, the wait as it
        is now, or the AI offered."""
        kind, rules = data["type"], await rules_here(self.app, page.session)
        if page.game_id is not None or rules is None:
            await refuse(page, "no_game")  # a page with a game, or where the pool is not open
            return
        try:
            if kind in ("quick_pairing", "pool_consent"):
                await self.join(page, rules, data.get("pace"), consented=kind == "pool_consent")
            elif kind == "pool_leave":
                await self.service.leave(page.session.user_id)
                await self.waits.show(page, None)
            elif kind == "pool_state":
                await self.waits.show(page, await self.waits.state(page))
            else:
                await self.ai(page, data.get("rated"))
        except Refusal as refusal:
            await send(page.socket, refused(translator(page.language), refusal))

    async def join(self, page: Page, rules: ServerRules, pace: object, *, consented: bool) -> None:
        """Queue the page's member for ``pace`` (offered by ``rules``); one who has not opted
        in is asked first, and opts in by consenting."""
        if not isinstance(pace, str):
            await refuse(page, "malformed")
            return
        clock = rules.pace(pace)  # a clock not offered here: refused
        chosen = CORRESPONDENCE if clock is None else str(clock)
        session = page.session
        if not await self.service.opted_in(session.user_id):
            if not consented:
                await send(page.socket, consent(page, chosen))
                return
            await self.service.opt_in(session.user_id, session.name)
        seat = await seat_here(self.app, session)
        await self.service.join(seat, chosen, self.waits.clock())
        await self.waits.show(page, await self.waits.state(page))

    async def ai(self, page: Page, rated: object) -> None:
        """Leave the queue for the AI at the member's level, offered once nobody came:
        ``rated`` or not, at the pace waited for."""
        user_id = page.session.user_id
        state = await self.service.state(user_id, self.waits.clock())
        offer = state.ai_offer
        if offer is None or not isinstance(rated, bool) or not with_the_bot(self.app, page.session):
            await refuse(page, "malformed")
            return
        await self.service.leave(user_id)
        options = GameOptions(rated=rated, clock=TimeControl.of(state.pace))
        await self.play_ai(page, offer.level, options)


class Waits:
    """The pages whose member waits in the pool, shown each change of the queue (heard in
    every process); a pair's pages shown their game."""

    def __init__(self, app: App, service: PoolService, clock: Callable[[], float]) -> None:
        self.app = app
        self.service = service
        self.clock = clock
        self.waiting: set[Page] = set()
        self.boards: LiveBoards | None = None
        self._stop_listening: Callable[[], None] | None = None
        self._refresh: asyncio.Task[None] | None = None
        self._paired: list[str] = []
        """The pairs heard of and not shown yet (``paired:<game>:<a>:<b>``)."""
        self._dirty = False

    async def start(self, boards: LiveBoards) -> None:
        self.boards = boards
        self._stop_listening = await self.app.database.listen(POOL_TOPIC, self._heard)

    def stop(self) -> None:
        if self._stop_listening is not None:
            self._stop_listening()

    async def state(self, page: Page) -> JSON | None:
        """What the page shows of its member's wait (``None``: not waiting)."""
        now = self.clock()
        state = await self.service.state(page.session.user_id, now)
        if state.pace is None or state.since is None:
            self.waiting.discard(page)
            return None
        self.waiting.add(page)
        ai_here = with_the_bot(self.app, page.session)
        return waiting_frame(translator(page.language), state, now, ai_here)

    async def show(self, page: Page, state: JSON | None) -> None:
        """``state`` on the page (``None``: no wait)."""
        if state is None:
            self.waiting.discard(page)
        await send(page.socket, {"type": "pool", "state": state, "consent": None})

    def _heard(self, payload: str | None) -> None:
        if payload is not None and payload.startswith("paired:"):
            self._paired.append(payload)
        self._dirty = True
        if self._refresh is None and (self.waiting or self._paired):
            self._refresh = work.start(self._refreshed())

    async def _refreshed(self) -> None:
        """Until no change heard is left unshown: the pairs' games, then the waits."""
        try:
            while self._dirty:
                self._dirty = False
                while self._paired:
                    await self._show_game(self._paired.pop(0))
                for page in list(self.waiting):
                    if page.socket.closed or page.game_id is not None:
                        self.waiting.discard(page)
                    else:
                        await self.show(page, await self.state(page))
        except DatabaseUnavailable as error:
            log.warning("the pool's pages not refreshed: %s", error)
        finally:
            self._refresh = None

    async def _show_game(self, payload: str) -> None:
        """``paired:<game>:<a>:<b>``: the pages of ``a`` and ``b`` showing no game show it."""
        assert self.boards is not None
        game_id, *players = (int(part) for part in payload.split(":")[1:])
        boards = self.boards
        pages = [
            page
            for page in boards.every_page()
            if page.session.user_id in players and page.game_id is None
        ]
        game = await self.app.stores.games.game(game_id) if pages else None
        if game is None:
            return
        for page in pages:
            self.waiting.discard(page)
            boards.watch(page, game)
            await send(page.socket, {"type": "opened", "game": game.id, "listed": False})
        await send_board(self.app, game, pages)


async def rules_here(app: App, session: Session) -> ServerRules | None:
    """The rules where a page's member would queue from it (``None``: a server with the bot
    that did not open the pool); outside servers with the bot, those of the DM with the bot."""
    if not with_the_bot(app, session):
        return await app.rules(DIRECT_MESSAGES)
    rules = await app.rules(session.guild_id or DIRECT_MESSAGES)
    return rules if rules.pool else None


async def seat_here(app: App, session: Session) -> Seat:
    """Where a page's member's game is shown: the page's channel in a server with the bot,
    else their DM with the bot."""
    guild = app.client.get_guild(session.guild_id or DIRECT_MESSAGES)
    if guild is None:
        channel = await app.client.create_dm(discord.Object(session.user_id))
        language = language_of(session.locale)
        return Seat(session.user_id, session.name, DIRECT_MESSAGES, channel.id, "bot_dm", language)
    rules = await app.rules(guild.id)
    shown = plain_name(guild.name) if rules.pool_shows_server else None
    language = language_of(guild.preferred_locale)
    return Seat(
        session.user_id, session.name, guild.id, session.channel_id, "server", language, shown
    )


def consent(page: Page, pace: str) -> JSON:
    """The opt-in's question: what the pool is and what others see."""
    t = translator(page.language)
    text = t(
        CONSENT,
        pace=pace_name(t, pace),
        name=page.session.name,
        leave=command("tholos pool leave", mention=False),
    )
    return {"type": "pool", "consent": {"pace": pace, "text": text}, "state": None}


def waiting_frame(t: Translator, state: PoolState, now: float, ai_here: bool) -> JSON:
    """The wait as the page shows it: the pace, how many wait, the seconds waited (counted on
    by the page), when to ask again for the AI's offer, and the offer once made (``ai_here``:
    the page may start a game against the AI)."""
    assert state.pace is not None and state.since is not None
    waited = max(0.0, now - state.since)
    offer = state.ai_offer if ai_here else None
    due = AI_OFFER_AFTER[rating_pool(state.pace)] - waited
    return {
        "pace": state.pace,
        "text": t(LOOKING, pace=pace_name(t, state.pace)),
        "count": t.plural(
            "{count} member waits for this pace (you included).",
            "{count} members wait for this pace (you included).",
            state.waiting,
        ),
        "waited": waited,
        "offer_in": due if ai_here and offer is None and due > 0 else None,
        "ai": None
        if offer is None
        else {
            "text": t(NOBODY),
            "rated": t("Play the AI, rated: {level}", level=level_name(t, offer.level)),
            "unrated": t("Play the AI, unrated: {level}", level=level_name(t, offer.level)),
        },
    }
