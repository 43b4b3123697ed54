"""A conversation with one live page: its hello (the session it was given), then its messages
— whole turns from the player to move, as the paths of the steps the buttons send one at a time
— each played through the same :class:`~bot.services.PlayService` call as a press, with its
compare-and-set on the version; the games of its channel's threads, listed and opened; anything
else gets an error frame and changes nothing."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from aiohttp import WSMsgType, web

from bot.base.game_options import GameOptions
from bot.base.people import Caller, Person
from bot.base.refusals import Refusal
from bot.discord.answers import database_trouble
from bot.discord.app import App
from bot.discord.opponent import Opponent
from bot.features.analysis.web import ANALYSIS_TYPES, PageAnalysis
from bot.features.lessons.service import LessonService
from bot.features.lessons.web import PageLessons
from bot.features.play.service import StepShown, TimeUp
from bot.features.puzzles.service import AnswerShown, PuzzleService
from bot.features.puzzles.store import Answered
from bot.features.puzzles.words import verdict
from bot.i18n.catalogues import language_of, translator
from bot.loops import work
from bot.storage.db import DatabaseUnavailable
from bot.web.frames import puzzle_frame
from bot.web.limits import FULL_CLOSE, SESSION_CLOSE, TOO_MANY_PAGES_CLOSE, Door, Doors
from bot.web.live import (
    FLOOD_LIMIT,
    HELLO_TIMEOUT,
    JSON,
    MESSAGE_LIMIT,
    PATH,
    LiveBoards,
    Page,
    close,
    error,
    parsed,
    plain,
    refused,
    send,
    send_board,
    stored_int,
)
from bot.web.places import Places
from bot.web.sessions import Session, Sessions
from bot.words.board import LastTurn
from bot.words.phrases import LEVEL_NAMES


class PageTalk:
    """Answers the messages of the pages."""

    def __init__(
        self, app: App, boards: LiveBoards, opponent: Opponent, doors: Doors | None = None
    ) -> None:
        self.app = app
        self.boards = boards
        self.doors = doors or Doors()
        self.places = Places(app, boards)
        self.games = PageGames(app, boards, opponent)
        self.puzzles = PagePuzzles(PuzzleService(app.puzzles), boards)
        self.lessons = PageLessons(LessonService(app.lessons), boards)
        self.analysis = PageAnalysis(app, boards)

    async def serve(
        self,
        socket: web.WebSocketResponse,
        language: str = "en",
        address: str = "?",
        drop: Callable[[], None] | None = None,
    ) -> None:
        """Talk with one page until it goes: its hello, then its turns. ``language``: the
        browser's, for a refusal before the page has said who it is; ``address``: the client's
        (:func:`~bot.web.limits.client_address`); ``drop``: drops its connection at once (a
        socket that said nothing in time is not waited for). The socket is counted from now:
        over the process's share or its address's it is told so and closed (a silent socket
        may be cut to make room for it); after its hello, over its member's or session's share
        too, or opened again too often by its member."""
        with self.doors.socket(address) as door:
            if door.refused is not None:
                await close(socket, error(translator(language), door.refused), FULL_CLOSE)
                return
            session = await hello(socket, self.boards.sessions, language, door, drop)
            if session is None:
                return
            t = translator(language_of(session.locale))
            key = f"{session.user_id}:{session.instance_id}:{session.expires_at}"
            with self.doors.member(door, session.user_id, key) as refusal:
                if refusal is not None:
                    code = TOO_MANY_PAGES_CLOSE if refusal == "too_many_pages" else FULL_CLOSE
                    await close(socket, error(t, refusal), code)
                    return
                await self._talk(Page(socket, session))

    async def _talk(self, page: Page) -> None:
        socket = page.socket
        try:
            with work.busy():  # the game its member asked to analyse from Discord, or its own
                await self.places.welcome(page)
                if not await self.analysis.asked(page):
                    await self.places.home(page)
            async for message in socket:
                if message.type != WSMsgType.TEXT:
                    if message.type == WSMsgType.BINARY:
                        await refuse(page, "malformed")
                    continue
                if not (page.allowed() and self.doors.message(page.session.user_id)):
                    page.refused += 1
                    if page.refused >= FLOOD_LIMIT:
                        await socket.close(code=1008, message=b"flood")
                        break
                    await refuse(page, "slow_down")
                    continue
                with work.busy():
                    try:
                        await self._handle(page, message.data)
                    except DatabaseUnavailable as trouble:  # nothing done; the page stays
                        await tell_database(page, trouble)
        finally:
            self.boards.forget(page)

    async def _handle(self, page: Page, text: str) -> None:
        """One message of a page, by its ``type``; anything malformed is refused."""
        if len(text) > MESSAGE_LIMIT:
            await refuse(page, "too_big")
            return
        data = parsed(text)
        kind = None if data is None else data.get("type")
        if data is None or not isinstance(kind, str):
            await refuse(page, "malformed")
        elif kind == "open":
            if not await self.places.open(page, data.get("game")):
                await refuse(page, "not_here")
        elif kind in ("lobby", "home"):
            await (self.places.lobby(page) if kind == "lobby" else self.places.home(page))
        elif kind == "play_ai":
            await self.games.play_ai(page, data.get("level"))
        elif kind in ("puzzle", "puzzle_answer", "puzzle_reveal"):
            await self.puzzles.answer(page, data)
        elif kind in ("lesson", "lesson_answer"):
            await self.lessons.answer(page, data)
        elif kind in ANALYSIS_TYPES:
            await self.analysis.answer(page, data)
        elif kind == "turn":
            await self._turn(page, data)
        else:
            await refuse(page, "malformed")

    async def _turn(self, page: Page, data: JSON) -> None:
        """A whole turn in the page's game."""
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
        await self.games.play(page, game, version, path)


class PageGames:
    """A page's games: its turns, played as a press would play them, and a game against the
    AI started from its lobby."""

    def __init__(self, app: App, boards: LiveBoards, opponent: Opponent) -> None:
        self.app = app
        self.boards = boards
        self.opponent = opponent

    async def play(self, page: Page, game_id: int, version: int, path: str) -> None:
        """A whole turn (``path``) in the page's game, at the ``version`` the page showed."""
        session = page.session
        current = await self.app.games.game(game_id)
        if current is None or current.colour_of(session.user_id) is None:
            await refuse(page, "spectator")
            return
        t = translator(page.language)
        try:
            result = await self.app.play.choose(
                game_id, version, path, Caller(session.user_id, current.channel_id)
            )
        except Refusal as refusal:
            await send(page.socket, refused(t, refusal, current))
            if isinstance(refusal, TimeUp):  # the game ended on time: its final board
                self.boards.after_change(refusal.game, None)
            else:
                await send_board(self.app, current, [page])  # the board as it is now
            return
        if isinstance(result, StepShown):
            await refuse(page, "incomplete")
            return
        self.boards.after_change(result.game, LastTurn(result.turn, session.user_id))

    async def play_ai(self, page: Page, level: object) -> None:
        """Start a game against the AI where the page is open (a server channel without a
        game); the page shows it as it starts."""
        session = page.session
        if not isinstance(level, str) or level not in LEVEL_NAMES:
            await refuse(page, "malformed")
            return
        if page.game_id is not None or session.guild_id is None:
            await refuse(page, "no_game")
            return
        language = language_of(session.locale)
        try:
            game = await self.app.matchmaking.new_games.start_ai_game(
                guild_id=session.guild_id,
                channel_id=session.channel_id,
                human=Person(session.user_id, session.name),
                ai=self.opponent.person(language, level),  # type: ignore[arg-type]
                level=level,  # type: ignore[arg-type]
                options=GameOptions(language=language),
            )
        except Refusal as refusal:
            await send(page.socket, refused(translator(page.language), refusal))
            return
        self.boards.after_change(game, None)


class PagePuzzles:
    """A page's puzzles: the same service as ``/tholos puzzle`` and its buttons."""

    def __init__(self, puzzles: PuzzleService, boards: LiveBoards) -> None:
        self.puzzles = puzzles
        self.boards = boards

    async def answer(self, page: Page, data: JSON) -> None:
        """A puzzle for the member (``puzzle``), their answer to one (``puzzle_answer``, a
        whole turn's path) or their wish to see its answer (``puzzle_reveal``, a miss)."""
        session, t, kind = page.session, translator(page.language), data["type"]
        attempt, path = stored_int(data.get("attempt")), data.get("path", "")
        malformed = (
            attempt is None
            or not isinstance(path, str)
            or (kind == "puzzle_answer" and not PATH.fullmatch(path))
        )
        if kind != "puzzle" and malformed:
            await refuse(page, "malformed")
            return
        try:
            if kind == "puzzle":
                shown = await self.puzzles.serve(session.user_id)
                self.boards.leave(page)
                await send(page.socket, puzzle_frame(shown, t, session.name))
                return
            assert isinstance(attempt, int) and isinstance(path, str)
            if kind == "puzzle_reveal":
                result: AnswerShown | Answered = await self.puzzles.give_up(
                    attempt, session.user_id
                )
            else:
                result = await self.puzzles.choose(attempt, session.user_id, path)
        except Refusal as refusal:
            await send(page.socket, refused(t, refusal))
            return
        if isinstance(result, AnswerShown):
            await refuse(page, "incomplete")
            return
        said = plain(verdict(t, result))
        correct = bool(result.attempt.correct)
        await send(page.socket, {"type": "verdict", "text": said, "correct": correct})


async def refuse(page: Page, code: str) -> None:
    """Tell ``page`` its message was refused, and why (``code``)."""
    await send(page.socket, error(translator(page.language), code))


async def tell_database(page: Page, trouble: DatabaseUnavailable) -> None:
    """Tell ``page`` that the database did not do what it asked, and why (nothing changed)."""
    _, sentence = database_trouble(trouble)
    message = translator(page.language)(sentence)
    await send(page.socket, {"type": "error", "code": "database", "message": message})


async def hello(
    socket: web.WebSocketResponse,
    sessions: Sessions,
    language: str,
    door: Door | None = None,
    drop: Callable[[], None] | None = None,
) -> Session | None:
    """A page's first message: its session (``None``: it has none, and is closed, told why in
    ``language``). It comes within :data:`~bot.web.live.HELLO_TIMEOUT` of now, whatever the
    client sends meanwhile (pings), or sooner if ``door`` is cut to make room for another;
    a socket silent until then is dropped (``drop``, else closed), its descriptor free at
    once."""
    try:
        async with asyncio.timeout(HELLO_TIMEOUT) as deadline:
            if door is not None:

                def cut() -> None:
                    if not deadline.expired():
                        deadline.reschedule(-1.0)  # a moment past: at once

                door.cut = cut
            message = await socket.receive()
    except TimeoutError:
        if drop is not None:
            drop()
        else:
            with contextlib.suppress(Exception):
                await socket.close(code=1008, message=b"no hello")
        return None
    finally:
        if door is not None:
            door.cut = None
    data = parsed(message.data) if message.type == WSMsgType.TEXT else None
    session = None
    if data is not None and data.get("type") == "hello":
        session = await sessions.admit(data.get("session"), time.time())
    if session is None:
        await close(socket, error(translator(language), "session"), SESSION_CLOSE)
    return session
