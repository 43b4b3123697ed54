"""The live pages: one WebSocket per open page, each watching one game; every change of a game
(a turn by button, page or AI; the end) is sent to every page watching it, on every process
(the storage announces each change, :mod:`bot.storage.announcements`).

A page says who it is with the session the server gave it (:mod:`.sessions`), nothing else; the
game is the one played in the session's channel, or one played in a thread of it
(:mod:`.talk`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from bot.base.game import Game
from bot.base.refusals import Refusal
from bot.discord.app import App
from bot.i18n.catalogues import language_of, translator
from bot.loops import work
from bot.storage.db import DatabaseUnavailable
from bot.storage.games.changes import GAMES_TOPIC
from bot.web.frames import board_frame, geometries
from bot.web.sessions import Session, Sessions
from bot.web.words import ERRORS
from bot.words.board import LastTurn, board_of
from bot.words.phrases import pace_name
from bot.words.steps import turn_steps
from rendering.translator import Translator

log = logging.getLogger(__name__)

MESSAGE_LIMIT = 2048
"""Characters a page's message may have (a turn needs about a hundred)."""
HELLO_TIMEOUT = 10.0
"""Seconds a new connection has to say who it is, from its accept: a deadline, which nothing the
client sends (a ping) moves. A page says hello as soon as it is open; ten seconds allow for a
slow phone on a slow network."""
DEPTH_LIMIT = 8
"""Levels of arrays and objects a page's message may nest (every message is one flat object;
deeper is not ours, and a thousand levels would exhaust the parser's recursion)."""
LARGEST = 2**63 - 1
"""The largest number a page may name: the largest the database stores (a 64-bit signed
integer, SQLite's and PostgreSQL's ``BIGINT``)."""
BURST, PER_SECOND = 10, 4.0
"""Messages a page may send at once, and then per second; more are refused (flood)."""
FLOOD_LIMIT = 50
"""Refused messages after which the connection is closed."""
SEND_TIMEOUT = 5.0
"""Seconds a page may take to take a frame before it is disconnected (a stalled client must not
hold up the others)."""
SLICE = 20
"""Pages sent a board before the event loop is given back: a turn watched by hundreds of pages
comes out in slices of about 2 ms, so that the presses of other games are not held up behind
it."""
PATH = re.compile(r"[TPwbg1-3A-GLq-]{1,8}")
MENTION = re.compile(r"<@!?(\d+)>")
COMMAND_MENTION = re.compile(r"</([\w -]{1,100}):\d+>")
"""A command as Discord mentions it (``</tholos challenge:123>``): a page shows its name."""
JSON = dict[str, Any]


@dataclass(eq=False)
class Page:
    """One open page."""

    socket: web.WebSocketResponse
    session: Session
    game_id: int | None = None
    place: int | None = None
    """The channel or thread its game is played in."""
    tokens: float = BURST
    refill: float = field(default_factory=time.monotonic)
    refused: int = 0
    over: bool = False
    """Its game has ended: a game that starts in its channel (a rematch) replaces it."""

    @property
    def language(self) -> str:
        return language_of(self.session.locale)

    def plays(self, game: Game) -> bool:
        """Whether the page's member plays ``game``."""
        return game.colour_of(self.session.user_id) is not None

    def allowed(self) -> bool:
        """Whether this message is within the page's rate (a token bucket)."""
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.refill) * PER_SECOND)
        self.refill = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class LiveBoards:
    """Every open page of this process, by the game it watches."""

    def __init__(self, app: App, sessions: Sessions) -> None:
        self.app = app
        self.sessions = sessions
        self.pages: dict[int, set[Page]] = {}
        self.elsewhere: set[Page] = set()
        """The pages showing no game (an analysis, a lesson, a puzzle)."""
        self._dirty: set[int] = set()
        self._refreshing: dict[int, asyncio.Task[None]] = {}
        self._stop_listening: Callable[[], None] | None = None
        self.relist: Callable[[Page], Awaitable[None]] | None = None
        """Sends a page its lobby again (a game started in a thread of its channel)."""

    async def start(self) -> None:
        self._stop_listening = await self.app.database.listen(GAMES_TOPIC, self._heard)

    async def close(self) -> None:
        """Stop listening and close every page (they reconnect to another process, or to this
        one once it is back)."""
        if self._stop_listening is not None:
            self._stop_listening()
        for task in list(self._refreshing.values()):
            task.cancel()
        for page in self.every_page():
            await page.socket.close(code=1012, message=b"restarting")

    def every_page(self) -> list[Page]:
        """Every open page of this process."""
        return [*self.elsewhere, *(page for pages in self.pages.values() for page in pages)]

    def watch(self, page: Page, game: Game) -> None:
        self.forget(page)
        page.game_id, page.place, page.over = game.id, game.channel_id, False
        self.pages.setdefault(game.id, set()).add(page)

    def wait(self, page: Page) -> None:
        """``page`` has no game: it watches for one starting in its channel (listed as game 0)."""
        self.forget(page)
        page.game_id, page.place, page.over = None, None, False
        self.pages.setdefault(0, set()).add(page)

    def leave(self, page: Page) -> None:
        """``page`` shows something else than a game (an analysis, a lesson, a puzzle): no
        game's change replaces it."""
        self.forget(page)
        page.game_id, page.place, page.over = None, None, False
        self.elsewhere.add(page)

    def forget(self, page: Page) -> None:
        self.elsewhere.discard(page)
        watching = self.pages.get(page.game_id or 0)
        if watching is not None:
            watching.discard(page)
            if not watching:
                del self.pages[page.game_id or 0]

    def _heard(self, payload: str | None) -> None:
        """A game changed (``None``: maybe several): refresh the pages watching it."""
        if payload is None:
            games = set(self.pages) - {0}
        elif payload.isdigit() and (int(payload) in self.pages or self._anyone_waits()):
            games = {int(payload)}
        else:
            return
        for game_id in games:
            self._dirty.add(game_id)
            if game_id not in self._refreshing:  # counted as work until every page has it
                self._refreshing[game_id] = work.start(self._refresh(game_id))

    async def _refresh(self, game_id: int) -> None:
        """Send the game's board to its pages until no change is left unsent."""
        try:
            while game_id in self._dirty:
                self._dirty.discard(game_id)
                game = await self.app.stores.games.game(game_id)
                if game is None:
                    return
                for page in self._waiting(game):  # a game started where they wait
                    self.watch(page, game)
                if self.relist is not None:
                    for page in self._listing(game):  # a game started in a thread they list
                        await self.relist(page)
                pages = list(self.pages.get(game_id, ()))
                if pages:
                    await send_board(self.app, game, pages)
        except DatabaseUnavailable as error:
            log.warning("live boards of game %s not refreshed: %s", game_id, error)
        finally:
            del self._refreshing[game_id]

    def _anyone_waits(self) -> bool:
        """Whether a page waits for a game to start: none in its channel, or its game over."""
        return 0 in self.pages or any(page.over for pages in self.pages.values() for page in pages)

    def _waiting(self, game: Game) -> list[Page]:
        """The pages that should show ``game`` now that it changed (a new game is active, its
        first board): those waiting in its channel, those whose game there ended (a rematch),
        and those waiting in its thread's parent channel whose member plays it."""
        if not game.is_active or game.plies:
            return []
        return [
            page
            for pages in list(self.pages.values())
            for page in pages
            if page.game_id != game.id
            and (
                (page.game_id is None and page.session.channel_id == game.channel_id)
                or (page.over and page.place == game.channel_id)
                or (
                    page.game_id is None
                    and page.session.channel_id == game.parent_id
                    and page.plays(game)
                )
            )
        ]

    def _listing(self, game: Game) -> list[Page]:
        """The pages listing the games of ``game``'s thread's parent channel, now that it
        started there (its first board) and their member does not play it."""
        if not game.is_active or game.plies or game.parent_id is None:
            return []
        return [
            page
            for page in list(self.pages.get(0, ()))
            if page.session.channel_id == game.parent_id and not page.plays(game)
        ]


async def send_board(app: App, game: Game, pages: list[Page]) -> None:
    """The board of ``game`` to each page, in its language, with the turn's steps for the
    player to move."""
    last = await app.poster.last_turn(game)
    frames: dict[tuple[str, bool], str] = {}
    sends: list[asyncio.Future[None]] = []
    for number, page in enumerate(pages, start=1):
        if number % SLICE == 0:
            await asyncio.sleep(0)  # the slice before is sent meanwhile
        moving = (
            game.is_active
            and page.session.user_id == game.to_move
            and not game.is_ai_turn(app.bot_id)
        )
        key = (page.language, moving)
        if key not in frames:
            frame = _frame(app, game, last, page.language, moving)
            frames[key] = json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
        page.over = not game.is_active
        sends.append(asyncio.ensure_future(_send_text(page.socket, frames[key])))
    await asyncio.gather(*sends)


def _frame(app: App, game: Game, last: LastTurn | None, language: str, moving: bool) -> JSON:
    t = translator(language)
    names = {game.white_id: game.white_name, game.black_id: game.black_name}

    def who(user_id: int) -> str:
        return names.get(user_id, "?")

    board = board_of(game, t, last=last, bot_id=app.bot_id, who=who)
    frame = board_frame(board, t, turn_steps(game, t) if moving else None, time.time())
    frame["geometries"] = geometries(game.position)
    frame["pace"] = pace_name(t, game.time_control)  # for the member's rich presence
    return frame


def parsed(text: object, limit: int = MESSAGE_LIMIT) -> JSON | None:
    """A message's JSON object (at most ``limit`` characters, :data:`DEPTH_LIMIT` levels
    deep, every string of it text that can be sent back), or ``None``."""
    if not isinstance(text, str) or len(text) > limit or nesting(text) > DEPTH_LIMIT:
        return None
    try:
        data = json.loads(text)
        json.dumps(data, ensure_ascii=False).encode()  # no lone surrogate ("\ud800") in it
    except ValueError:  # (UnicodeEncodeError among them)
        return None
    return data if isinstance(data, dict) else None


def nesting(text: str) -> int:
    """How deep the arrays and objects of the JSON ``text`` nest (brackets in strings do not
    count), read without parsing it."""
    if text.count("[") + text.count("{") <= 1:  # a flat object, as every page's message
        return text.count("[") + text.count("{")
    depth = deepest = 0
    quoted = escaped = False
    for character in text:
        if quoted:
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == '"':
                quoted = False
        elif character == '"':
            quoted = True
        elif character in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif character in "]}":
            depth -= 1
    return deepest


def stored_int(value: object) -> int | None:
    """``value`` if the database can hold it as an id (a game's, an attempt's) or a version: a
    whole number (not a boolean) of 64 bits, signed; else ``None`` (the database would overflow
    on it; any other is merely no row's)."""
    if isinstance(value, int) and not isinstance(value, bool) and -LARGEST - 1 <= value <= LARGEST:
        return value
    return None


def error(t: Any, code: str) -> JSON:
    return {"type": "error", "code": code, "message": t(ERRORS[code])}


async def refuse(page: Page, code: str) -> None:
    """Tell ``page`` its message was refused, and why (``code``)."""
    await send(page.socket, error(translator(page.language), code))


def refused(t: Translator, refusal: Refusal, game: Game | None = None) -> JSON:
    """The error frame of a refusal, in ``t``'s language (the players of ``game`` by name)."""
    text = t(refusal.message, **refusal.values) if refusal.values else t(refusal.message)
    text = COMMAND_MENTION.sub(r"/\1", text)
    return {
        "type": "error",
        "code": "refused",
        "message": text if game is None else named(text, game),
    }


def plain(text: str) -> str:
    """Markdown's emphasis and code marks out: the page shows text as it is."""
    return text.replace("**", "").replace("`", "")


def named(text: str, game: Game) -> str:
    """``text`` with mentions of the players replaced by their names (a page shows no
    mentions)."""
    names = {game.white_id: game.white_name, game.black_id: game.black_name}
    return MENTION.sub(lambda match: names.get(int(match.group(1)), "?"), text)


async def close(socket: web.WebSocketResponse, frame: JSON, code: int) -> None:
    """Send ``frame`` (a refusal, in words the page shows), then close with ``code``."""
    await send(socket, frame)
    with contextlib.suppress(Exception):
        await socket.close(code=code, message=frame.get("code", "").encode())


async def send(socket: web.WebSocketResponse, frame: JSON) -> None:
    await _send_text(socket, json.dumps(frame, ensure_ascii=False, separators=(",", ":")))


async def _send_text(socket: web.WebSocketResponse, text: str) -> None:
    """Send one frame; a page that is gone or too slow to take it is closed."""
    if socket.closed:
        return
    try:
        async with asyncio.timeout(SEND_TIMEOUT):
            await socket.send_str(text)
    except (ConnectionError, TimeoutError, RuntimeError):
        with contextlib.suppress(Exception):
            await socket.close(code=1011, message=b"too slow")
