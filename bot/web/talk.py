"""A conversation with one live page: its hello (the session it was given), then its messages
— whole turns from the player to move, as the paths of the steps the buttons send one at a time
— each played through the same :class:`~bot.services.PlayService` call as a press, with its
compare-and-set on the version; anything else gets an error frame and changes nothing."""

from __future__ import annotations

import time

from aiohttp import WSMsgType, web

from ..app import App
from ..board import LastTurn
from ..domain import Caller, GameOptions, Person, Refusal
from ..i18n import language_of, words
from ..opponent import Opponent
from ..phrases import LEVEL_NAMES, board_url
from ..puzzle_board import verdict
from ..services import StepShown, TimeUp
from ..services.puzzles import AnswerShown, PuzzleService
from ..storage import DatabaseUnavailable
from ..storage.puzzles import Answered, PuzzleStore
from .frames import palette, puzzle_frame
from .live import (
    FLOOD_LIMIT,
    HELLO_TIMEOUT,
    JSON,
    MESSAGE_LIMIT,
    PATH,
    LiveBoards,
    Page,
    error,
    named,
    parsed,
    send,
)
from .words import PLAY_THE_AI, page_words


class PageTalk:
    """Answers the messages of the pages."""

    def __init__(self, app: App, boards: LiveBoards, opponent: Opponent) -> None:
        self.app = app
        self.boards = boards
        self.opponent = opponent
        self.puzzles = PuzzleService(PuzzleStore(app.database))

    async def serve(self, socket: web.WebSocketResponse) -> None:
        """Talk with one page until it goes: its hello, then its turns."""
        page = await self._hello(socket)
        if page is None:
            return
        try:
            async for message in socket:
                if message.type != WSMsgType.TEXT:
                    if message.type == WSMsgType.BINARY:
                        await self._refuse(page, "malformed")
                    continue
                if not page.allowed():
                    page.refused += 1
                    if page.refused >= FLOOD_LIMIT:
                        await socket.close(code=1008, message=b"flood")
                        break
                    await self._refuse(page, "slow_down")
                    continue
                await self._handle(page, message.data)
        finally:
            self.boards.forget(page)

    async def _hello(self, socket: web.WebSocketResponse) -> Page | None:
        """The page's first message: its session; then the game of its channel."""
        try:
            message = await socket.receive(timeout=HELLO_TIMEOUT)
        except TimeoutError:
            await socket.close(code=1008, message=b"no hello")
            return None
        data = parsed(message.data) if message.type == WSMsgType.TEXT else None
        session = None
        if data is not None and data.get("type") == "hello":
            session = self.boards.sessions.read(data.get("session"), time.time())
        if session is None:
            await send(socket, error(words("en"), "session"))
            await socket.close(code=4001, message=b"session")
            return None
        page = Page(socket, session)
        t = words(page.language)
        await send(socket, {"type": "welcome", "user": str(session.user_id),
                             "name": session.name, "language": page.language,
                             "words": page_words(t), "palette": palette()})  # fmt: skip
        game = await self.app.games.active_game(session.channel_id)
        if game is None:
            await self._lobby(page)
            return page
        self.boards.watch(page, game.id)
        await self.boards.send_board(game, [page])
        return page

    async def _lobby(self, page: Page) -> None:
        """No game here: the member's games on the server, with links."""
        guild = page.session.guild_id
        games = []
        if guild is not None:
            listed = await self.app.listings.playing_page(guild, page.session.user_id, 0, 10)
            games = [game for game in listed if game.colour_of(page.session.user_id) is not None]
        t = words(page.language)
        await send(page.socket, {"type": "lobby", "games": [
            {"id": game.id, "white": game.white_name, "black": game.black_name,
             "your_turn": game.to_move == page.session.user_id, "url": board_url(game)}
            for game in games
        ], "levels": [] if guild is None else [
            {"level": level, "label": t(PLAY_THE_AI, level=t(name))}
            for level, name in LEVEL_NAMES.items()
        ]})  # fmt: skip
        self.boards.wait(page)

    async def _handle(self, page: Page, text: str) -> None:
        """One message of a page: a turn (anything else is refused)."""
        if len(text) > MESSAGE_LIMIT:
            await self._refuse(page, "too_big")
            return
        data = parsed(text)
        if data is not None and data.get("type") == "play_ai":
            await self._play_ai(page, data.get("level"))
            return
        if data is not None and data.get("type") in ("puzzle", "puzzle_answer", "puzzle_reveal"):
            await self._puzzle(page, data)
            return
        game, version, path = (data or {}).get("game"), (data or {}).get("version"), (
            data or {}).get("path")  # fmt: skip
        if (data is None or data.get("type") != "turn" or not isinstance(game, int)
                or not isinstance(version, int) or not isinstance(path, str)
                or not PATH.fullmatch(path)):  # fmt: skip
            await self._refuse(page, "malformed")
            return
        if game != page.game_id:
            await self._refuse(page, "no_game")
            return
        await self._play(page, game, version, path)

    async def _play(self, page: Page, game_id: int, version: int, path: str) -> None:
        session = page.session
        current = await self.app.games.game(game_id)
        if current is None or current.colour_of(session.user_id) is None:
            await self._refuse(page, "spectator")
            return
        t = words(page.language)
        try:
            result = await self.app.play.choose(
                game_id, version, path, Caller(session.user_id, current.channel_id)
            )
        except Refusal as refusal:
            text = t(refusal.message, **refusal.values) if refusal.values else t(refusal.message)
            await send(page.socket, {"type": "error", "code": "refused",
                                      "message": named(text, current)})  # fmt: skip
            if isinstance(refusal, TimeUp):  # the game ended on time: its final board
                self.boards.after_change(refusal.game, None)
            else:
                await self.boards.send_board(current, [page])  # the board as it is now
            return
        except DatabaseUnavailable:
            await send(page.socket, {"type": "error", "code": "database",
                                      "message": t("I can't reach my database right now, so "
                                                   "nothing was changed. Please try again in a "
                                                   "minute.")})  # fmt: skip
            return
        if isinstance(result, StepShown):
            await self._refuse(page, "incomplete")
            return
        self.boards.after_change(result.game, LastTurn(result.turn, session.user_id))

    async def _play_ai(self, page: Page, level: object) -> None:
        """Start a game against the AI where the page is open (a server channel without a
        game); the page shows it as it starts."""
        session = page.session
        if level not in LEVEL_NAMES or not isinstance(level, str):
            await self._refuse(page, "malformed")
            return
        if page.game_id is not None or session.guild_id is None:
            await self._refuse(page, "no_game")
            return
        language = language_of(session.locale)
        try:
            game = await self.app.lobby.start_ai_game(
                guild_id=session.guild_id, channel_id=session.channel_id,
                human=Person(session.user_id, session.name),
                ai=self.opponent.person(language, level),  # type: ignore[arg-type]
                level=level, options=GameOptions(language=language),  # type: ignore[arg-type]
            )  # fmt: skip
        except Refusal as refusal:
            t = words(page.language)
            text = t(refusal.message, **refusal.values) if refusal.values else t(refusal.message)
            await send(page.socket, {"type": "error", "code": "refused", "message": text})
            return
        self.boards.after_change(game, None)

    async def _puzzle(self, page: Page, data: JSON) -> None:
        """A puzzle for the member (``puzzle``), their answer to one (``puzzle_answer``, a
        whole turn's path) or their wish to see its answer (``puzzle_reveal``, a miss): the same
        service as ``/tholos puzzle`` and its buttons."""
        session, t, kind = page.session, words(page.language), data["type"]
        attempt, path = data.get("attempt"), data.get("path", "")
        malformed = not isinstance(attempt, int) or not isinstance(path, str) or (
            kind == "puzzle_answer" and not PATH.fullmatch(path))  # fmt: skip
        if kind != "puzzle" and malformed:
            await self._refuse(page, "malformed")
            return
        try:
            if kind == "puzzle":
                shown = await self.puzzles.serve(session.user_id)
                await send(page.socket, puzzle_frame(shown, t, session.name))
                return
            assert isinstance(attempt, int) and isinstance(path, str)
            if kind == "puzzle_reveal":
                result: AnswerShown | Answered = await self.puzzles.give_up(attempt,
                                                                            session.user_id)
            else:
                result = await self.puzzles.choose(attempt, session.user_id, path)
        except Refusal as refusal:
            text = t(refusal.message, **refusal.values) if refusal.values else t(refusal.message)
            await send(page.socket, {"type": "error", "code": "refused", "message": text})
            return
        if isinstance(result, AnswerShown):
            await self._refuse(page, "incomplete")
            return
        said = verdict(t, result).replace("**", "").replace("`", "")
        await send(page.socket, {"type": "verdict", "text": said,
                                  "correct": bool(result.attempt.correct)})  # fmt: skip

    async def _refuse(self, page: Page, code: str) -> None:
        await send(page.socket, error(words(page.language), code))
