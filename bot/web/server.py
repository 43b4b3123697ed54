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
import gc
import hashlib
import logging
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from bot.discord.app import App
from bot.i18n.catalogues import LANGUAGES, translator
from bot.web.headers import FOREVER, HEADERS
from bot.web.identity import ActivityInstance, DiscordIdentity, Member, NotVouched, RateLimited
from bot.web.limits import (
    IDLE_CONNECTIONS,
    PAGES_PER_PROCESS,
    SESSION_CLOSE,
    SOCKETS_PER_ADDRESS,
    Buckets,
    Connections,
    Doors,
    Requests,
    SessionLimits,
    client_address,
    descriptors_for,
    retry_after,
)
from bot.web.live import LiveBoards, close, error, parsed
from bot.web.pages import PagePart, PageParts
from bot.web.sessions import (
    SESSION_LIFETIME,
    Session,
    Sessions,
    follow_session_key,
    session_key,
)
from bot.web.strangers import REQUEST_LOG, quiet_accepts, refused_accepts
from bot.web.talk import PageTalk
from bot.web.words import SESSION_ERRORS, starting_words

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
MAX_LIVE_MESSAGE = 64 * 1024
"""Bytes of one WebSocket message aiohttp reads at most (longer ones close the connection);
the live boards refuse anything over :data:`~bot.web.live.MESSAGE_LIMIT` with a frame."""
CLOSE_TIMEOUT = 0.5
"""Seconds a closed WebSocket waits for the client's closing word before its connection is
dropped (aiohttp waits ten). The closing frame, with its code, is sent first, so a page reads
it even if its answer comes later; and a stranger who never answers must not hold a socket — a
file descriptor — after the server is done with it."""
VERSION = r"[0-9a-f]{12}"
SESSION_BODY_LIMIT = 1024
"""Bytes of a ``/api/session`` body read at most: a code (about 30 characters) and an instance id
(about 70) in JSON take a tenth of it; a longer body is not a page's (413)."""
SESSION_BODY_TIMEOUT = 10.0
"""Seconds a ``/api/session`` body has to arrive in full (a page sends it at once); one that
trickles in holds a request open and is refused (400)."""
CODE = re.compile(r"[A-Za-z0-9_-]{1,200}")
"""An OAuth2 authorization code, as Discord writes them (URL-safe letters and digits)."""
INSTANCE_ID = re.compile(r"i-[0-9]{1,20}(?:-[a-z]{1,8}(?:-[0-9]{1,20}){1,3})?")
"""An Activity instance id as Discord writes them: ``i-<launch>-gc-<guild>-<channel>`` in a
server, ``i-<launch>-pc-<channel>`` in a private channel (the location part may grow another
kind, so any short lower-case kind with one to three numbers is taken). It goes into the path of
a request to Discord, so nothing else is."""
FULL_COLLECTIONS_AFTER = 100
"""Collections of the younger generations before Python's collector walks every object (its
third threshold; Python's own is 10). The live board holds up to thousands of connections of
some hundred objects each; when strangers open and close them by the thousand, the full
collections they set off walked them all every second or two, the event loop stalled 200–700 ms
each time (``benchmarks/hostile_sockets.py``). A tenth as often; a connection leaves almost no
cycle for them to free."""


class WebServer:
    """The page, ``/api/session`` and ``/api/live``."""

    def __init__(
        self,
        app: App,
        client_secret: str,
        parts: Sequence[PagePart],
        *,
        static: Path = STATIC,
        limits: SessionLimits | None = None,
        doors: Doors | None = None,
    ) -> None:
        self.app = app
        self.parts = PageParts(parts)
        """What the features plug into the page: the messages they answer."""
        self.door = SessionDoor(DiscordIdentity(app.client, client_secret), limits)
        self._following_key: asyncio.Task[None] | None = None
        self.live: LiveBoards | None = None
        self.talk: PageTalk | None = None
        self.sessions: Sessions | None = None
        self.doors = doors
        self.files = PageFiles(static)
        self.version = self.files.version
        self.requests = Requests()
        self.connections = Connections(PAGES_PER_PROCESS + IDLE_CONNECTIONS)
        self.opening = Buckets(SOCKETS_PER_ADDRESS)
        self.accepts = refused_accepts()
        self._loud_accepts: Callable[[], None] | None = None
        web_app = web.Application(middlewares=[within_share(self.requests, self.connections)])
        web_app.on_response_prepare.append(_decorate)
        web_app.router.add_get("/", self.files.page)
        web_app.router.add_get(f"/static/{{version:{VERSION}}}/{{path:.+}}", self.files.versioned)
        web_app.router.add_get("/static/{path:.+}", self.files.unversioned)
        web_app.router.add_get("/api/config", self._config)
        web_app.router.add_post("/api/session", self._session)
        web_app.router.add_get("/api/live", self._live)
        self._runner = web.AppRunner(
            web_app, access_log=None, shutdown_timeout=1.0, logger=REQUEST_LOG
        )

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host:port`` (port 0: one the system chooses, which the log line names)."""
        database = self.app.database
        self.sessions = Sessions(await session_key(database), self.door.identity.still_there)
        self._following_key = asyncio.create_task(
            follow_session_key(database, self.sessions, self._key_replaced)
        )
        self.live = LiveBoards(self.app, self.sessions)
        doors = self.doors or Doors(per_process=descriptors_for(PAGES_PER_PROCESS))
        self.talk = PageTalk(self.app, self.live, self.parts, doors)
        await self.live.start()
        await self.parts.start(self.live)
        await self._runner.setup()
        self.connections.most = doors.per_process + IDLE_CONNECTIONS
        assert self._runner.server is not None
        watch_connections(self._runner.server, self.connections)
        await web.TCPSite(self._runner, host, port).start()
        port = self._runner.addresses[0][1]
        self._loud_accepts = quiet_accepts(self.port, self.accepts)
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, FULL_COLLECTIONS_AFTER)
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
            await self.parts.stop()
            await self.live.close()
        await self._runner.cleanup()
        if self._loud_accepts is not None:
            self._loud_accepts()

    async def _config(self, request: web.Request) -> web.Response:
        """What the page needs before it asks Discord anything: the application's id, and what
        it may have to say before it has a session, in the browser's language."""
        language = browser_language(request.headers.get("Accept-Language", ""))
        return web.json_response(
            {
                "client_id": str(self.app.client.application_id or ""),
                "language": language,
                "words": starting_words(translator(language)),
            }
        )

    async def _session(self, request: web.Request) -> web.Response:
        assert self.sessions is not None
        return await self.door.open(request, self.sessions)

    async def _live(self, request: web.Request) -> web.StreamResponse:
        """A page's WebSocket, within its address's rate of opening them (refused before the
        upgrade: 429), then the page's talk."""
        assert self.talk is not None
        address = requester(request)
        wait = self.opening.take(address)
        if wait:  # (a browser shows a WebSocket's refusal to no one: no words)
            return web.Response(status=429, headers={"Retry-After": retry_after(wait)})
        socket = web.WebSocketResponse(
            max_msg_size=MAX_LIVE_MESSAGE, heartbeat=30.0, timeout=CLOSE_TIMEOUT
        )
        await socket.prepare(request)
        language = browser_language(request.headers.get("Accept-Language", ""))
        transport = request.transport
        drop = None if transport is None else transport.abort
        await self.talk.serve(socket, language, address, drop)
        return socket

    async def _key_replaced(self) -> None:
        """The session key was replaced (``tholos-bot rotate-web-key``): every open page's
        session is refused now (its page asks Discord again)."""
        assert self.live is not None
        for page in self.live.every_page():
            await close(page.socket, error(translator(page.language), "session"), SESSION_CLOSE)


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
        try:  # (a path the system cannot name, with a NUL or too long, names no file)
            found = (self.static / path).resolve()
            if not found.is_relative_to(self.static) or not found.is_file():
                raise web.HTTPNotFound()
        except (ValueError, OSError):
            raise web.HTTPNotFound() from None
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
        address = requester(request)
        wait = self.limits.address_wait(address)
        if wait:
            log.info("live board session from %s: too many, asked to wait %.1f s", address, wait)
            return _refused(request, "busy", 429, {"Retry-After": retry_after(wait)})
        body = await _body(request, SESSION_BODY_LIMIT)
        if body is None:
            return _refused(request, "bad_request", 413)
        asked = parsed(body, SESSION_BODY_LIMIT)
        code = asked.get("code") if asked is not None else None
        instance = asked.get("instance_id") if asked is not None else None
        if not (
            isinstance(code, str)
            and isinstance(instance, str)
            and CODE.fullmatch(code)
            and INSTANCE_ID.fullmatch(instance)
        ):
            return _refused(request, "bad_request", 400)
        wait = self.limits.overall_wait(address)
        if wait:
            log.info(
                "live board session from %s: too many in all, asked to wait %.1f s", address, wait
            )
            return _refused(request, "busy", 429, {"Retry-After": retry_after(wait)})
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
        return _session_answer(sessions, member, place, instance)


def _session_answer(
    sessions: Sessions, member: Member, place: ActivityInstance, instance: str
) -> web.Response:
    """The page's new session — who (``member``) and where (``place``), as Discord told —
    signed, with the member's access token for their own SDK (never cached)."""
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
        {
            "session": token,
            "user": str(member.user_id),
            "name": member.name,
            "access_token": member.access_token,
        },
        headers={"Cache-Control": "no-store"},
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
    t = translator(browser_language(request.headers.get("Accept-Language", "")))
    return web.json_response(
        {"error": code, "message": t(SESSION_ERRORS[code])}, status=status, headers=headers
    )


def within_share(requests: Requests, connections: Connections) -> Middleware:
    """The middleware that marks a request's connection busy while it is in hand
    (``connections``), and holds an HTTP request within its address's share of requests in
    flight (``requests``; a WebSocket is the doors' to count); over it, 429."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        with connections.busy(request.protocol):
            if request.path == "/api/live":
                return await handler(request)
            with requests.request(requester(request)) as fits:
                if not fits:
                    return _refused(request, "busy", 429, {"Retry-After": "1"})
                return await handler(request)

    return middleware


def watch_connections(server: web.Server, connections: Connections) -> None:
    """Tell ``connections`` of every connection ``server`` opens and loses (it closes the one
    idle longest when there are too many)."""
    made, lost = server.connection_made, server.connection_lost

    def connection_made(handler: Any, transport: asyncio.Transport) -> None:
        made(handler, transport)
        connections.opened(handler, transport.close)

    def connection_lost(handler: Any, exc: BaseException | None = None) -> None:
        connections.lost(handler)
        lost(handler, exc)

    server.connection_made = connection_made
    server.connection_lost = connection_lost


def requester(request: web.BaseRequest) -> str:
    """The client address of ``request``, as the limits count it."""
    return client_address(request.remote, request.headers.get("X-Forwarded-For"))


async def _body(request: web.Request, limit: int) -> str | None:
    """The body of ``request`` as text if it has at most ``limit`` bytes (``None``: longer);
    one that does not arrive in full within :data:`SESSION_BODY_TIMEOUT`, or whose client went,
    reads as empty (malformed)."""
    if request.content_length is not None and request.content_length > limit:
        return None
    body = b""
    try:
        async with asyncio.timeout(SESSION_BODY_TIMEOUT):
            while chunk := await request.content.read(limit + 1 - len(body)):
                body += chunk
                if len(body) > limit:
                    return None
    except (TimeoutError, ConnectionError):  # (a client gone: its answer goes nowhere)
        return ""
    return body.decode("utf-8", errors="replace")


async def _decorate(request: web.BaseRequest, response: web.StreamResponse) -> None:
    """Every response's security headers (an error's too, aiohttp's own 404 and 405 among
    them), as it is prepared; a WebSocket's upgrade has no page to protect."""
    if not isinstance(response, web.WebSocketResponse):
        response.headers.update(HEADERS)
