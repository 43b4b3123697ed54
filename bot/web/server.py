"""The live board's web server, in the bot's own process and event loop (off unless
``THOLOS_WEB_PORT`` is set): the Activity's page and its files, the exchange of the page's
authorization code for a session, and the pages' WebSockets.

Discord proxies the Activity's requests to this server (the Developer Portal's URL mapping), so
the page, its files, ``/api/session`` and ``/api/live`` share one origin.

The page's files are served under a version, ``/static/<version>/…``: a digest of every file
of ``static/``, so that a release changes every URL the page loads and no cache — the
browser's, Discord's proxy's — can hand out last release's script. Versioned files are cached
for good (``immutable``); the page itself, which names the version, never
(``no-cache``)."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from bot.face.app import App
from bot.face.opponent import Opponent
from bot.storage import Game
from bot.web.headers import FOREVER, HEADERS
from bot.web.identity import DiscordIdentity, NotVouched, RateLimited
from bot.web.limits import (
    PAGES_PER_PROCESS,
    SESSION_CLOSE,
    Doors,
    SessionLimits,
    client_address,
    descriptors_for,
    retry_after,
)
from bot.web.live import LiveBoards, close, error
from bot.web.sessions import (
    SESSION_LIFETIME,
    Session,
    Sessions,
    follow_session_key,
    session_key,
)
from bot.web.talk import PageTalk
from bot.web.words import SESSION_ERRORS, starting_words
from bot.words.board import LastTurn
from bot.words.i18n import LANGUAGES, words

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
MAX_LIVE_MESSAGE = 64 * 1024
"""Bytes of one WebSocket message aiohttp reads at most (longer ones close the connection);
the live boards refuse anything over :data:`~bot.web.live.MESSAGE_LIMIT` with a frame."""
VERSION = r"[0-9a-f]{12}"


class WebServer:
    """The page, ``/api/session`` and ``/api/live``."""

    def __init__(
        self,
        app: App,
        opponent: Opponent,
        client_secret: str,
        *,
        static: Path = STATIC,
        limits: SessionLimits | None = None,
        doors: Doors | None = None,
    ) -> None:
        self.app = app
        self.opponent = opponent
        self.door = SessionDoor(DiscordIdentity(app.client, client_secret), limits)
        self._following_key: asyncio.Task[None] | None = None
        self.live: LiveBoards | None = None
        self.talk: PageTalk | None = None
        self.sessions: Sessions | None = None
        self.doors = doors
        self.files = PageFiles(static)
        self.version = self.files.version
        web_app = web.Application(middlewares=[_headers])
        web_app.router.add_get("/", self.files.page)
        web_app.router.add_get(f"/static/{{version:{VERSION}}}/{{path:.+}}", self.files.versioned)
        web_app.router.add_get("/static/{path:.+}", self.files.unversioned)
        web_app.router.add_get("/api/config", self._config)
        web_app.router.add_post("/api/session", self._session)
        web_app.router.add_get("/api/live", self._live)
        self._runner = web.AppRunner(web_app, access_log=None, shutdown_timeout=1.0)

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host:port`` (port 0: one the system chooses, which the log line names)."""
        database = self.app.database
        self.sessions = Sessions(await session_key(database), self.door.identity.still_there)
        self._following_key = asyncio.create_task(
            follow_session_key(database, self.sessions, self._key_replaced)
        )
        self.live = LiveBoards(self.app, self.sessions, self._after_change)
        doors = self.doors or Doors(per_process=descriptors_for(PAGES_PER_PROCESS))
        self.talk = PageTalk(self.app, self.live, self.opponent, doors)
        await self.live.start()
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        port = self._runner.addresses[0][1]
        log.info("live board on http://%s:%d/", host, port)

    @property
    def port(self) -> int:
        return int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        """Close the pages (they reconnect elsewhere or later), stop listening (the boards
        being posted are the poster's to finish)."""
        if self._following_key is not None:
            self._following_key.cancel()
        if self.live is not None:
            await self.live.close()
        await self._runner.cleanup()

    async def _config(self, request: web.Request) -> web.Response:
        """What the page needs before it asks Discord anything: the application's id, and what
        it may have to say before it has a session, in the browser's language."""
        language = browser_language(request.headers.get("Accept-Language", ""))
        return web.json_response(
            {
                "client_id": str(self.app.client.application_id or ""),
                "language": language,
                "words": starting_words(words(language)),
            }
        )

    async def _session(self, request: web.Request) -> web.Response:
        assert self.sessions is not None
        return await self.door.open(request, self.sessions)

    async def _live(self, request: web.Request) -> web.WebSocketResponse:
        assert self.talk is not None
        socket = web.WebSocketResponse(max_msg_size=MAX_LIVE_MESSAGE, heartbeat=30.0)
        await socket.prepare(request)
        language = browser_language(request.headers.get("Accept-Language", ""))
        await self.talk.serve(socket, language)
        return socket

    async def _key_replaced(self) -> None:
        """The session key was replaced (``tholos-bot rotate-web-key``): every open page's
        session is refused now (its page asks Discord again)."""
        assert self.live is not None
        for page in self.live.every_page():
            await close(page.socket, error(words(page.language), "session"), SESSION_CLOSE)

    def _after_change(self, game: Game, last: LastTurn | None) -> None:
        """A turn played on a page (``last``), a game started there, or one that ended on time
        at a page's late turn: post the Discord board as after a press (a turn's or a flag's
        transaction took the board's lease; a new game's poster takes it), then let the AI
        move if it is its turn."""
        leased = last is not None or not game.is_active
        self.app.poster.background.post_soon(
            game, last, leased=leased, then=lambda: self.opponent.schedule(game)
        )


class PageFiles:
    """The page, naming its files under this release's version, and its files."""

    def __init__(self, static: Path) -> None:
        self.static = static.resolve()
        self.version = static_version(self.static)
        self._page_html = (
            (self.static / "index.html")
            .read_text(encoding="utf-8")
            .replace('="/static/', f'="/static/{self.version}/')
        )

    async def page(self, request: web.Request) -> web.Response:
        """The page, naming its files under this release's version."""
        return web.Response(
            text=self._page_html, content_type="text/html", headers={"Cache-Control": "no-cache"}
        )

    async def versioned(self, request: web.Request) -> web.FileResponse:
        """A file of the page under a version: cached for good if it is this release's; another
        release's (a page of the process before, during a rolling restart) gets this release's
        file, cached by no one."""
        current = request.match_info["version"] == self.version
        return self._file(request.match_info["path"], FOREVER if current else "no-cache")

    async def unversioned(self, request: web.Request) -> web.FileResponse:
        """A file of the page by its plain name (no page names it so): never cached."""
        return self._file(request.match_info["path"], "no-cache")

    def _file(self, path: str, cache: str) -> web.FileResponse:
        found = (self.static / path).resolve()
        if not found.is_relative_to(self.static) or not found.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(found, headers={"Cache-Control": cache})


class SessionDoor:
    """``/api/session``: a page's authorization code exchanged for a session of its own."""

    def __init__(self, identity: DiscordIdentity, limits: SessionLimits | None = None) -> None:
        self.identity = identity
        self.limits = limits or SessionLimits()

    async def open(self, request: web.Request, sessions: Sessions) -> web.Response:
        """Exchange the page's authorization code for a session: who (Discord's answer to the
        code) and where (Discord's answer about the Activity instance), signed. Asked too often
        (per address, or by everyone), or rate limited by Discord for longer than the server
        waits itself: 429 with ``Retry-After``, and the page asks again."""
        address = client_address(request.remote, request.headers.get("X-Forwarded-For"))
        wait = self.limits.wait(address)
        if wait:
            log.info("live board session from %s: too many, asked to wait %.1f s", address, wait)
            return _refused(request, "busy", 429, {"Retry-After": retry_after(wait)})
        try:
            body = await request.json()
        except ValueError:
            body = None
        code = body.get("code") if isinstance(body, dict) else None
        instance = body.get("instance_id") if isinstance(body, dict) else None
        if not (
            isinstance(code, str)
            and isinstance(instance, str)
            and 0 < len(code) <= 200
            and 0 < len(instance) <= 100
        ):
            return _refused(request, "bad_request", 400)
        try:
            member = await self.identity.member(code)
            place = await self.identity.place(instance)
        except RateLimited as limited:
            log.info(
                "live board session: %s rate limited for %.1f s", limited.what, limited.retry_after
            )
            headers = {"Retry-After": retry_after(limited.retry_after)}
            return _refused(request, "busy", 429, headers)
        except NotVouched as refusal:
            log.info("live board session refused: %s", refusal)
            return _refused(request, "not_vouched", 403)
        if member.user_id not in place.users:
            log.info("live board session refused: user %s is not in that activity", member.user_id)
            return _refused(request, "not_in_activity", 403)
        session = Session(
            member.user_id,
            member.name,
            member.locale,
            place.channel_id,
            place.guild_id,
            instance,
            time.time() + SESSION_LIFETIME,
        )
        token = sessions.issue(session)
        return web.json_response(
            {"session": token, "user": str(member.user_id), "name": member.name}
        )


def static_version(folder: Path) -> str:
    """The version of the page's files: a digest of every file's path and bytes (the same on
    every process of one release)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def browser_language(header: str) -> str:
    """The first of our languages an ``Accept-Language`` header asks for (by its weights),
    else English."""
    asked: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")):
        tag, _, weight = part.strip().partition(";q=")
        try:
            quality = float(weight) if weight else 1.0
        except ValueError:
            continue
        asked.append((-quality, index, tag.split("-")[0].strip().lower()))
    for _, _, language in sorted(asked):
        if language in LANGUAGES:
            return language
    return "en"


def _refused(
    request: web.Request, code: str, status: int, headers: dict[str, str] | None = None
) -> web.Response:
    """A refused session, in the language the browser asks for (no member is known yet)."""
    t = words(browser_language(request.headers.get("Accept-Language", "")))
    return web.json_response(
        {"error": code, "message": t(SESSION_ERRORS[code])}, status=status, headers=headers
    )


@web.middleware
async def _headers(request: web.Request, handler: Any) -> web.StreamResponse:
    response = await handler(request)
    if not isinstance(response, web.WebSocketResponse):
        response.headers.update(HEADERS)
    return response
