"""A conversation with one live page: its hello (the session it was given), then its messages,
each answered by the feature's part that names its type (:mod:`.pages`) — whole turns, puzzles,
lessons, the analysis board — or here: the games of its channel's threads, listed and opened;
anything else gets an error frame and changes nothing."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from aiohttp import WSMsgType, web

from bot.discord.answers import database_trouble
from bot.discord.app import App
from bot.i18n.catalogues import language_of, translator
from bot.loops import work
from bot.storage.db import DatabaseUnavailable
from bot.web.limits import FULL_CLOSE, SESSION_CLOSE, TOO_MANY_PAGES_CLOSE, Door, Doors
from bot.web.live import (
    FLOOD_LIMIT,
    HELLO_TIMEOUT,
    MESSAGE_LIMIT,
    LiveBoards,
    Page,
    close,
    error,
    parsed,
    refuse,
    send,
)
from bot.web.pages import PageParts
from bot.web.places import Places
from bot.web.sessions import Session, Sessions


class PageTalk:
    """Answers the messages of the pages."""

    def __init__(
        self, app: App, boards: LiveBoards, parts: PageParts, doors: Doors | None = None
    ) -> None:
        self.app = app
        self.boards = boards
        self.parts = parts
        self.doors = doors or Doors()
        self.places = Places(app, boards, parts)

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
            with work.busy():  # what a feature shows as it opens (an ask from Discord), or its game
                await self.places.welcome(page)
                if not await self.parts.opening(page):
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
        elif (part := self.parts.answering(kind)) is not None:
            await part.answer(page, data)
        else:
            await refuse(page, "malformed")


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
