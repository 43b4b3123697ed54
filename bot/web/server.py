"""The live board's web server, in the bot's own process and event loop (off unless
``THOLOS_WEB_PORT`` is set): the Activity's page and its files, the exchange of the page's
authorization code for a session, and the pages' WebSockets.

Discord proxies the Activity's requests to this server (the Developer Portal's URL mapping), so
the page, its files, ``/api/session`` and ``/api/live`` share one origin."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from ..app import App
from ..background import discord_call, stop_tasks
from ..board import LastTurn
from ..i18n import words_for
from ..opponent import Opponent
from ..storage import Game
from .headers import HEADERS
from .identity import DiscordIdentity, NotVouched
from .live import LiveBoards
from .sessions import SESSION_LIFETIME, Session, Sessions, session_key
from .talk import PageTalk
from .words import SESSION_ERRORS

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
MAX_LIVE_MESSAGE = 64 * 1024
"""Bytes of one WebSocket message aiohttp reads at most (longer ones close the connection);
the live boards refuse anything over :data:`~bot.web.live.MESSAGE_LIMIT` with a frame."""


class WebServer:
    """The page, ``/api/session`` and ``/api/live``."""

    def __init__(self, app: App, opponent: Opponent, client_secret: str) -> None:
        self.app = app
        self.opponent = opponent
        self.identity = DiscordIdentity(app.client, client_secret)
        self.live: LiveBoards | None = None
        self.talk: PageTalk | None = None
        self.sessions: Sessions | None = None
        self._posting: set[asyncio.Task[None]] = set()
        web_app = web.Application(middlewares=[_headers])
        web_app.router.add_get("/", self._page)
        web_app.router.add_static("/static", STATIC, append_version=False)
        web_app.router.add_get("/api/config", self._config)
        web_app.router.add_post("/api/session", self._session)
        web_app.router.add_get("/api/live", self._live)
        self._runner = web.AppRunner(web_app, access_log=None, shutdown_timeout=1.0)

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host:port`` (port 0: one the system chooses, which the log line names)."""
        self.sessions = Sessions(await session_key(self.app.database))
        self.live = LiveBoards(self.app, self.sessions, self._after_change)
        self.talk = PageTalk(self.app, self.live, self.opponent)
        await self.live.start()
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        port = self._runner.addresses[0][1]
        log.info("live board on http://%s:%d/", host, port)

    @property
    def port(self) -> int:
        return int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        """Close the pages (they reconnect elsewhere or later), finish posting, stop listening."""
        if self.live is not None:
            await self.live.close()
        await stop_tasks(self._posting)
        await self._runner.cleanup()

    async def _page(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def _config(self, request: web.Request) -> web.Response:
        """What the page needs before it asks Discord anything: the application's id."""
        return web.json_response({"client_id": str(self.app.client.application_id or "")})

    async def _session(self, request: web.Request) -> web.Response:
        """Exchange the page's authorization code for a session: who (Discord's answer to the
        code) and where (Discord's answer about the Activity instance), signed."""
        assert self.sessions is not None
        try:
            body = await request.json()
        except ValueError:
            body = None
        code = body.get("code") if isinstance(body, dict) else None
        instance = body.get("instance_id") if isinstance(body, dict) else None
        if not (isinstance(code, str) and isinstance(instance, str)
                and 0 < len(code) <= 200 and 0 < len(instance) <= 100):  # fmt: skip
            return _refused(request, "bad_request", 400)
        try:
            member = await self.identity.member(code)
            place = await self.identity.place(instance)
        except NotVouched as refusal:
            log.info("live board session refused: %s", refusal)
            return _refused(request, "not_vouched", 403)
        if member.user_id not in place.users:
            log.info("live board session refused: user %s is not in that activity",
                     member.user_id)  # fmt: skip
            return _refused(request, "not_in_activity", 403)
        session = Session(member.user_id, member.name, member.locale, place.channel_id,
                          place.guild_id, instance, time.time() + SESSION_LIFETIME)  # fmt: skip
        return web.json_response({"session": self.sessions.issue(session),
                                  "user": str(member.user_id), "name": member.name})  # fmt: skip

    async def _live(self, request: web.Request) -> web.WebSocketResponse:
        assert self.talk is not None
        socket = web.WebSocketResponse(max_msg_size=MAX_LIVE_MESSAGE, heartbeat=30.0)
        await socket.prepare(request)
        await self.talk.serve(socket)
        return socket

    def _after_change(self, game: Game, last: LastTurn | None) -> None:
        """A turn played on a page (``last``), a game started there, or one that ended on time
        at a page's late turn: post the Discord board as after a press, and let the AI move if
        it is its turn."""
        task = asyncio.get_running_loop().create_task(self._post(game, last))
        self._posting.add(task)
        task.add_done_callback(self._posting.discard)

    async def _post(self, game: Game, last: LastTurn | None) -> None:
        try:  # a turn's or a flag's transaction took the board's lease; a new game's takes it now
            leased = last is not None or not game.is_active
            await discord_call(self.app.poster.post_in_channel(game, last, leased=leased))
        except Exception as error:  # stored: housekeeping posts it later
            log.warning("could not post the board of game %s: %s", game.id,
                        type(error).__name__)  # fmt: skip
        self.opponent.schedule(game)


def _refused(request: web.Request, code: str, status: int) -> web.Response:
    """A refused session, in the language the browser asks for (no member is known yet)."""
    t = words_for(request.headers.get("Accept-Language", "").split(",")[0].strip())
    return web.json_response({"error": code, "message": t(SESSION_ERRORS[code])}, status=status)


@web.middleware
async def _headers(request: web.Request, handler: Any) -> web.StreamResponse:
    response = await handler(request)
    if not isinstance(response, web.WebSocketResponse):
        response.headers.update(HEADERS)
    return response
