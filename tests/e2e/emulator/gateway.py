"""Discord's gateway over a real WebSocket: HELLO, IDENTIFY/READY, RESUME, heartbeats, dispatch.

Transport compression follows the ``compress`` query parameter the client sends: ``zlib-stream``
(one zlib context per connection, every message ending in a Z_SYNC_FLUSH) or none.

Sharding is Discord's: a session that IDENTIFYs with ``"shard": [shard_id, shard_count]`` owns
the guilds with ``(guild_id >> 22) % shard_count == shard_id`` and gets only their events; events
without a guild (DMs) go to shard 0. A session without ``shard`` gets everything. Thread events
(THREAD_CREATE, THREAD_UPDATE, THREAD_DELETE, THREAD_MEMBERS_UPDATE) are guild events of the
thread's guild.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import zlib
from dataclasses import dataclass, field

from aiohttp import WSMsgType, web

from .interactions import record
from .journal import Violation
from .model import JSON, Guild, check_shard, shard_of
from .state import GUILDS, State

GUILD_PRESENCES = 1 << 8

HELLO, HEARTBEAT, HEARTBEAT_ACK, IDENTIFY, RESUME = 10, 1, 11, 2, 6
DISPATCH, INVALID_SESSION, REQUEST_GUILD_MEMBERS = 0, 9, 8
_IGNORED_OPS = {3, 4}  # presence and voice state updates

GATEWAY_PATH = "/gateway"
RESUME_PATH = "/gateway/resume"


class Codec:
    """Encodes outgoing gateway messages for one connection."""

    def __init__(self, compress: str | None) -> None:
        self.compress = compress
        self._zlib = zlib.compressobj() if compress == "zlib-stream" else None

    def encode(self, payload: JSON) -> str | bytes:
        text = json.dumps(payload, separators=(",", ":"))
        if self._zlib is None:
            return text
        return self._zlib.compress(text.encode()) + self._zlib.flush(zlib.Z_SYNC_FLUSH)


@dataclass(eq=False)
class Session:
    """A gateway session: survives its connection and can be resumed with its id."""

    id: str
    intents: int
    shard: list[int] | None
    seq: int = 0
    sent: list[JSON] = field(default_factory=list)
    connection: Connection | None = None
    ready: bool = False
    resumes: int = 0
    number: int = 0

    @property
    def live(self) -> bool:
        """Whether the session has an open connection."""
        return self.connection is not None and not self.connection.closed

    def owns(self, guild_id: int | None) -> bool:
        """Whether the events of ``guild_id`` (``None``: DMs, shard 0) belong to this session."""
        if self.shard is None:
            return True
        shard_id, count = self.shard
        return shard_id == (0 if guild_id is None else shard_of(guild_id, count))


@dataclass(eq=False)
class Connection:
    """One WebSocket connection and its ordered outgoing queue."""

    ws: web.WebSocketResponse
    request: web.Request
    codec: Codec
    path: str
    session: Session | None = None
    heartbeats: int = 0
    closed: bool = False
    queue: asyncio.Queue[JSON | None] = field(default_factory=asyncio.Queue)

    def send(self, payload: JSON) -> None:
        self.queue.put_nowait(payload)

    async def pump(self) -> None:
        """Send queued messages in order until ``None`` is queued or the socket closes."""
        while (payload := await self.queue.get()) is not None:
            if self.ws.closed:
                return
            data = self.codec.encode(payload)
            with contextlib.suppress(ConnectionError):
                if isinstance(data, bytes):
                    await self.ws.send_bytes(data)
                else:
                    await self.ws.send_str(data)


class Gateway:
    """All sessions and connections of the (single) bot application, possibly sharded."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.sessions: dict[str, Session] = {}
        self.connections: list[Connection] = []
        self.identifies = 0
        self.resumes = 0
        self.member_requests = 0
        state.dispatch = self.dispatch

    def routes(self, app: web.Application) -> None:
        app.router.add_get(GATEWAY_PATH, self.handle)
        app.router.add_get(RESUME_PATH, self.handle)

    def url(self, path: str = GATEWAY_PATH) -> str:
        return self.state.base_url.replace("http://", "ws://", 1) + path

    @property
    def live(self) -> list[Connection]:
        return [c for c in self.connections if not c.closed and c.session is not None]

    def _violate(self, rule: str, message: str) -> None:
        record(self.state, None, Violation(rule, message, 0, 0, "gateway"))

    # Dispatch ---------------------------------------------------------------------------------

    def dispatch(self, event: str, data: JSON, intent: int | None, guild_id: int | None) -> None:
        """Send a DISPATCH to every session owning ``guild_id``'s shard (``None``: shard 0)
        that has every intent bit of ``intent`` (buffered while offline)."""
        for session in self.sessions_for(guild_id, offline=True):
            if intent is None or session.intents & intent == intent:
                self._send_event(session, event, data)

    def sessions_for(self, guild_id: int | None, *, offline: bool = False) -> list[Session]:
        """The ready sessions with a live connection that get ``guild_id``'s events (``None``:
        DM events); with ``offline``, also those waiting for a RESUME, which get them buffered."""
        return [
            s
            for s in self.sessions.values()
            if s.ready and s.owns(guild_id) and (offline or s.live)
        ]

    def announce(self, guild: Guild) -> None:
        """GUILD_CREATE for a guild the bot just joined, to the sessions owning its shard."""
        for session in self.sessions_for(guild.id, offline=True):
            if session.intents & GUILDS:
                self._send_event(session, "GUILD_CREATE", self._guild_create(session, guild))

    def _guild_create(self, session: Session, guild: Guild) -> JSON:
        members = list(guild.members.values())
        if not session.intents & GUILD_PRESENCES:
            members = [guild.members[self.state.world.bot.id]]
        return guild.to_json(members=members, me=self.state.world.bot.id)

    def _send_event(self, session: Session, event: str, data: JSON) -> None:
        session.seq += 1
        payload = {"op": DISPATCH, "t": event, "s": session.seq, "d": data}
        session.sent.append(payload)
        if session.connection is not None and not session.connection.closed:
            session.connection.send(payload)

    # Connections ------------------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        compress = request.query.get("compress")
        conn = Connection(ws, request, Codec(compress), request.path)
        self.connections.append(conn)
        pump = asyncio.create_task(conn.pump())
        try:
            if request.query.get("v") != "10" or request.query.get("encoding", "json") != "json":
                self._violate(
                    "gateway.version", f"unsupported gateway query {request.query_string}"
                )
                await ws.close(code=4012, message=b"Invalid API version")
            elif compress not in (None, "zlib-stream"):
                self._violate("gateway.compression", f"compression {compress!r} is not emulated")
                await ws.close(code=4000, message=b"Unsupported compression")
            else:
                conn.send(
                    {
                        "op": HELLO,
                        "d": {"heartbeat_interval": self.state.config.heartbeat_interval_ms},
                    }
                )
                await self._receive(conn)
        finally:
            conn.closed = True
            if conn.session is not None and conn.session.connection is conn:
                conn.session.connection = None
            conn.queue.put_nowait(None)
            await pump
            self.state.journal.changed()
        return ws

    async def _receive(self, conn: Connection) -> None:
        async for msg in conn.ws:
            if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                break
            try:
                payload = json.loads(msg.data)
                op, data = payload["op"], payload.get("d")
            except (ValueError, KeyError, TypeError):
                await conn.ws.close(code=4002, message=b"Decode error")
                break
            if op == HEARTBEAT:
                conn.heartbeats += 1
                conn.send({"op": HEARTBEAT_ACK, "d": None})
            elif op == IDENTIFY:
                await self._identify(conn, data)
            elif op == RESUME:
                await self._resume(conn, data)
            elif conn.session is None:
                await conn.ws.close(code=4003, message=b"Not authenticated")
            elif op == REQUEST_GUILD_MEMBERS:
                self._members_chunk(conn.session, data)
            elif op not in _IGNORED_OPS:
                self._violate("gateway.opcode", f"unknown opcode {op}")
                await conn.ws.close(code=4001, message=b"Unknown opcode")
            self.state.journal.changed()

    async def _identify(self, conn: Connection, data: JSON) -> None:
        if conn.session is not None:
            await conn.ws.close(code=4005, message=b"Already authenticated")
            return
        if data.get("token") != self.state.config.token:
            self._violate("gateway.auth", "IDENTIFY with a wrong token")
            await conn.ws.close(code=4004, message=b"Authentication failed")
            return
        intents = data.get("intents")
        if not isinstance(intents, int):
            self._violate("gateway.intents", "IDENTIFY without intents")
            await conn.ws.close(code=4013, message=b"Invalid intent(s)")
            return
        shard = data.get("shard")
        if shard is not None:
            try:
                shard = list(check_shard(shard))
            except ValueError as error:
                self._violate("gateway.shard", f"IDENTIFY with an invalid shard: {error}")
                await conn.ws.close(code=4010, message=b"Invalid shard")
                return
        session = Session(id=secrets.token_hex(16), intents=intents, shard=shard)
        self.sessions[session.id] = session
        session.connection = conn
        conn.session = session
        self.identifies += 1
        self.state.session_starts += 1
        session.number = self.identifies
        world = self.state.world
        owned = [g for g in world.guilds if session.owns(g.id)]
        ready: JSON = {
            "v": 10,
            "user": {**world.bot.to_json(), "verified": True, "mfa_enabled": False, "email": None},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in owned],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.url(RESUME_PATH),
            "application": {"id": str(self.state.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
        }
        if session.shard is not None:
            ready["shard"] = session.shard
        self._send_event(session, "READY", ready)
        if intents & GUILDS:
            for guild in owned:
                self._send_event(session, "GUILD_CREATE", self._guild_create(session, guild))
        session.ready = True

    async def _resume(self, conn: Connection, data: JSON) -> None:
        if data.get("token") != self.state.config.token:
            self._violate("gateway.auth", "RESUME with a wrong token")
            await conn.ws.close(code=4004, message=b"Authentication failed")
            return
        session = self.sessions.get(data.get("session_id") or "")
        if session is None:
            conn.send({"op": INVALID_SESSION, "d": False})
            return
        old = session.connection
        if old is not None and old is not conn:
            await old.ws.close(code=4000)
        session.connection = conn
        conn.session = session
        session.resumes += 1
        self.resumes += 1
        last = data.get("seq") or 0
        for payload in session.sent:
            if payload["s"] > last:
                conn.send(payload)
        self._send_event(session, "RESUMED", {})

    def _members_chunk(self, session: Session, data: JSON) -> None:
        self.member_requests += 1
        wanted = str(data.get("guild_id"))
        guild = next((g for g in self.state.world.guilds if str(g.id) == wanted), None)
        if guild is None or not session.owns(guild.id):
            return  # Discord ignores requests for guilds the session does not have
        members = list(guild.members.values())
        chunk: JSON = {"guild_id": str(guild.id), "chunk_index": 0, "chunk_count": 1}
        if data.get("user_ids"):
            wanted = {int(u) for u in data["user_ids"]}
            members = [m for m in members if m.id in wanted]
            chunk["not_found"] = [str(u) for u in wanted - {m.id for m in members}]
        elif data.get("query"):
            query = data["query"].lower()
            members = [m for m in members if m.user.username.lower().startswith(query)]
        if data.get("limit"):
            members = members[: data["limit"]]
        chunk["members"] = [m.to_json() for m in members]
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        self._send_event(session, "GUILD_MEMBERS_CHUNK", chunk)

    # Test controls ----------------------------------------------------------------------------

    def forget_sessions(self) -> None:
        """Make every existing session unresumable (RESUME then gets INVALID_SESSION)."""
        self.sessions.clear()

    async def drop(self, code: int | None = 4000) -> None:
        """Close every live connection with ``code``, or cut the TCP connection when ``None``."""
        for conn in self.live:
            if code is None:
                transport = conn.request.transport
                if transport is not None:
                    transport.abort()
            else:
                await conn.ws.close(code=code)
