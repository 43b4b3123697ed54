"""Games on the live page: a whole turn from the player to move (``turn``, the path of the steps
the buttons send one at a time), played through the same :class:`~.service.PlayService` call as
a press, with its compare-and-set on the version; and a game against the AI started from the
lobby (``play_ai``). After either, the Discord board is posted as after a press and the AI moves
if it is its turn. And the empty seat of an open challenge made where the bot is not, offered
to the others in the channel's Activity and taken from the page (``seats``, ``take_seat``)."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Literal, Protocol

from bot.base.game import ANSWERS_ONLY, Game
from bot.base.game_options import GameOptions
from bot.base.people import Caller, Person
from bot.base.refusals import Refusal
from bot.discord.app import App
from bot.features.challenges import Challenge, ChallengeStore, NewGames
from bot.features.play.opponent import Opponent
from bot.features.play.service import PlayService, StepShown, TimeUp
from bot.i18n.catalogues import language_of, translator
from bot.loops import work
from bot.storage.db import DatabaseUnavailable
from bot.web.live import JSON, PATH, Page, refuse, refused, send, send_board, stored_int
from bot.web.pages import PagePart
from bot.web.places import with_the_bot
from bot.words.board import LastTurn
from bot.words.phrases import LEVEL_NAMES, pace_name
from engine.vocabulary import N_

log = logging.getLogger(__name__)

TAKE_SEAT = N_("Take the empty seat: {name}'s game, {pace}")
"""A lobby's offer of an open challenge's empty seat."""
MOST_ASKED = 10
"""Participants a page may ask about at once (an Activity's instance holds a few)."""


class PlayPages(PagePart):
    """A page's games: its turns, played as a press would play them, and a game against the
    AI started from its lobby."""

    types = frozenset({"turn", "play_ai"})

    def __init__(
        self, app: App, play: PlayService, opponent: Opponent, new_games: NewGames
    ) -> None:
        self.app = app
        self.play = play
        self.opponent = opponent
        self.new_games = new_games

    async def answer(self, page: Page, data: JSON) -> None:
        """A whole turn in the page's game (``turn``), or a game against the AI (``play_ai``)."""
        if data["type"] == "play_ai":
            await self.play_ai(page, data.get("level"))
            return
        game, version, path = (
            stored_int(data.get("game")),
            stored_int(data.get("version")),
            data.get("path"),
        )
        if game is None or version is None or not isinstance(path, str) or not PATH.fullmatch(path):
            await refuse(page, "malformed")
            return
        if game != page.game_id:
            await refuse(page, "no_game")
            return
        await self.turn(page, game, version, path)

    async def turn(self, page: Page, game_id: int, version: int, path: str) -> None:
        """A whole turn (``path``) in the page's game, at the ``version`` the page showed."""
        session = page.session
        current = await self.app.stores.games.game(game_id)
        if current is None or current.colour_of(session.user_id) is None:
            await refuse(page, "spectator")
            return
        t = translator(page.language)
        try:
            result = await self.play.choose(
                game_id, version, path, Caller(session.user_id, current.channel_id)
            )
        except Refusal as refusal:
            await send(page.socket, refused(t, refusal, current))
            if isinstance(refusal, TimeUp):  # the game ended on time: its final board
                self.after_change(refusal.game, None)
            else:
                await send_board(self.app, current, [page])  # the board as it is now
            return
        if isinstance(result, StepShown):
            await refuse(page, "incomplete")
            return
        self.after_change(result.game, LastTurn(result.turn, session.user_id))

    async def play_ai(self, page: Page, level: object, options: GameOptions | None = None) -> None:
        """Start a game against the AI where the page is open (a channel without a game of a
        server the bot is in: elsewhere its boards could not be posted), with ``options``
        (rated, a clock); the page shows it as it starts."""
        session = page.session
        if not isinstance(level, str) or level not in LEVEL_NAMES:
            await refuse(page, "malformed")
            return
        if page.game_id is not None:
            await refuse(page, "no_game")
            return
        if session.guild_id is None or not with_the_bot(self.app, session):
            await refuse(page, "ai_elsewhere")
            return
        language = language_of(session.locale)
        try:
            game = await self.new_games.start_ai_game(
                guild_id=session.guild_id,
                channel_id=session.channel_id,
                human=Person(session.user_id, session.name),
                ai=self.opponent.person(language, level),
                level=level,
                options=dataclasses.replace(options or GameOptions(), language=language),
            )
        except Refusal as refusal:
            await send(page.socket, refused(translator(page.language), refusal))
            return
        self.after_change(game, None)

    def after_change(self, game: Game, last: LastTurn | None) -> None:
        """A turn played on a page (``last``), a game started there, or one that ended on time
        at a page's late turn: post the Discord board as after a press (a turn's or a flag's
        transaction took the board's lease; a new game's poster takes it), then let the AI
        move if it is its turn. Where the bot can only answer (``game.answers_only``: a DM,
        a group DM, a server without the bot) nothing is posted: the board's lease is given
        back at once, the AI moves at once if it is to, and the next press there shows the
        board as it is then."""
        leased = last is not None or not game.is_active
        if game.answers_only:
            if leased:
                work.start(self.app.poster.background.leave_to_next_press(game))
            if game.is_ai_turn(self.opponent.bot_id):  # (the picker leaves such games alone)
                work.start(self._ai_answers(game))
            return
        self.app.poster.background.post_soon(
            game, last, leased=leased, then=lambda: self.opponent.schedule(game)
        )

    async def _ai_answers(self, game: Game) -> None:
        """The AI's turn after a page's turn where the bot is not: played now (the pages see
        it; the chat's next press shows its board), its board's lease given back."""
        try:
            played = await self.opponent.searches.move_now(game)
        except DatabaseUnavailable as error:  # the chat's next press plays it
            log.warning("game %s: the AI waits: %s", game.id, error)
            return
        if played is not None:
            await self.app.poster.background.leave_to_next_press(played.game)


class Answered(Protocol):
    """A challenge answered: its game, if it started."""

    @property
    def game(self) -> Game | None: ...


class Challenges(Protocol):
    """What the page takes of the challenges' service: their store, and an accept checked as
    a press on Accept is (:meth:`~bot.features.challenges.service.ChallengeService.answer`)."""

    @property
    def challenges(self) -> ChallengeStore: ...

    async def answer(
        self,
        challenge_id: int,
        caller: Caller,
        answer: Literal["accept"],
        thread_id: int | None = None,
        name: str = "",
    ) -> Answered: ...


class SeatPages(PagePart):
    """The empty seat of an open challenge made where the bot is not (a DM, a group DM, a
    server without it: its game is played in the channel itself, where nothing needs posting):
    a lobby asks about the participants of its Activity (``seats``: their ids, as the member's
    Discord client names them — only a search: what is found is the session's channel's, seen
    in Discord by all there) and is offered their open challenges; the member takes one
    (``take_seat``) as Accept would, and the game shows on every page of the channel."""

    types = frozenset({"seats", "take_seat"})

    def __init__(self, challenges: Challenges, clock: Callable[[], float] = time.time) -> None:
        self.challenges = challenges
        self.clock = clock

    async def answer(self, page: Page, data: JSON) -> None:
        if data["type"] == "seats":
            await self.offer(page, data.get("players"))
        else:
            await self.take(page, stored_int(data.get("challenge")))

    async def offer(self, page: Page, players: object) -> None:
        """The open challenges ``players`` (ids, as text) made in the page's channel."""
        if not isinstance(players, list) or len(players) > MOST_ASKED:
            await refuse(page, "malformed")
            return
        asked = {
            user
            for said in players
            if isinstance(said, str)
            and said.isdecimal()
            and len(said) <= 20
            and (user := stored_int(int(said))) is not None
        } - {page.session.user_id}
        found = [await self._open_seat(page, user) for user in sorted(asked)]
        t = translator(page.language)
        seats = [
            {
                "challenge": seat.id,
                "label": t(
                    TAKE_SEAT, name=seat.challenger_name, pace=pace_name(t, seat.time_control)
                ),
            }
            for seat in found
            if seat is not None
        ]
        await send(page.socket, {"type": "seats", "seats": seats})

    async def take(self, page: Page, challenge_id: int | None) -> None:
        """Accept the open challenge ``challenge_id`` of the page's channel."""
        session = page.session
        if challenge_id is None:
            await refuse(page, "malformed")
            return
        seat = await self.challenges.challenges.challenge(challenge_id)
        if seat is None or seat.channel_id != session.channel_id or not _takes_seats(seat):
            await refuse(page, "not_here")
            return
        caller = Caller(session.user_id, session.channel_id)
        try:
            await self.challenges.answer(challenge_id, caller, "accept", None, session.name)
        except Refusal as refusal:
            await send(page.socket, refused(translator(page.language), refusal))

    async def _open_seat(self, page: Page, challenger: int) -> Challenge | None:
        """``challenger``'s open challenge waiting in the page's channel, if any."""
        pending = await self.challenges.challenges.pending(page.session.channel_id, challenger)
        if pending is None or not _takes_seats(pending) or pending.expires_at <= self.clock():
            return None
        return pending


def _takes_seats(challenge: Challenge) -> bool:
    """Whether the page offers ``challenge``'s empty seat: one made open (taken meanwhile, the
    service says so), where the bot is not (in a server with the bot, Accept opens the game's
    thread and posts its board)."""
    return challenge.open_to_all and challenge.venue in ANSWERS_ONLY
