"""A raw gateway connection for the emulator's own tests: it IDENTIFYs (or RESUMEs) and keeps
every DISPATCH it reads, with the emulator's side of the session at hand; and ``RawApi``, REST
calls with the bot's token plus such sessions."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import aiohttp

from tests.e2e.emulator import Emulator, Interaction
from tests.e2e.emulator.gateway import Session

JSON = dict[str, Any]


class RawSession:
    """One gateway connection that IDENTIFYs (or RESUMEs) and keeps every DISPATCH it reads."""

    def __init__(self, emulator: Emulator, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.emulator = emulator
        self.ws = ws
        self.events: list[JSON] = []
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            payload = json.loads(msg.data)
            if payload["op"] == 0:
                self.events.append(payload)
            self.emulator.state.journal.changed()

    @property
    def ready(self) -> JSON:
        return self.events[0]["d"]

    @property
    def session(self) -> Session:
        """The emulator's side of this session."""
        return self.emulator.gateway.sessions[self.ready["session_id"]]

    def names(self) -> list[str]:
        return [e["t"] for e in self.events]

    def got(self, event: str, **fields: str) -> list[JSON]:
        """The ``d`` of every ``event`` received whose fields have these values."""
        return [
            e["d"]
            for e in self.events
            if e["t"] == event and all(e["d"].get(k) == v for k, v in fields.items())
        ]

    def sent(self, event: str, **fields: str) -> list[JSON]:
        """Like ``got``, from what the emulator dispatched to the session (no waiting needed)."""
        return [
            e["d"]
            for e in self.session.sent
            if e["t"] == event and all(e["d"].get(k) == v for k, v in fields.items())
        ]

    async def close(self) -> None:
        await self.ws.close()
        with contextlib.suppress(asyncio.CancelledError):
            await self.reader


class RawApi:
    """REST calls with the bot's token, raw gateway sessions, and the usual bot steps, for the
    emulator's own tests (``async with RawApi(emulator) as api:``)."""

    INTENTS = (1 << 0) | (1 << 9) | (1 << 12)  # GUILDS, GUILD_MESSAGES, DIRECT_MESSAGES

    def __init__(self, emulator: Emulator) -> None:
        self.emu = emulator
        self.headers = {"Authorization": f"Bot {emulator.token}"}
        self.sessions: list[RawSession] = []
        self._http: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> RawApi:
        self._http = aiohttp.ClientSession()
        return self

    async def __aexit__(self, *exc: object) -> None:
        for raw in self.sessions:
            await raw.close()
        if self._http is not None:
            await self._http.close()

    @property
    def http(self) -> aiohttp.ClientSession:
        assert self._http is not None, "use RawApi in an async with"
        return self._http

    async def call(self, method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
        """``METHOD /api/v10{path}``: the status and the JSON answer (None for 204)."""
        url = self.emu.api_base + path
        async with self.http.request(method, url, headers=self.headers, **kwargs) as response:
            return response.status, (None if response.status == 204 else await response.json())

    async def connect(self, intents: int = INTENTS) -> RawSession:
        """A gateway session (no shard), once READY."""
        ws = await self.http.ws_connect(self.emu.gateway.url() + "?v=10&encoding=json")
        assert (await ws.receive_json())["op"] == 10
        identify: JSON = {"token": self.emu.token, "intents": intents, "properties": {}}
        await ws.send_json({"op": 2, "d": identify})
        raw = RawSession(self.emu, ws)
        self.sessions.append(raw)
        await self.emu.wait_for(lambda: raw.events[:1] and raw.events[0]["t"] == "READY")
        return raw

    async def register(self, commands: list[JSON], guild_id: int | None = None) -> list[JSON]:
        """PUT the commands, globally or in a guild; the registered ones."""
        scope = f"/guilds/{guild_id}" if guild_id is not None else ""
        path = f"/applications/{self.emu.bot_user.id}{scope}/commands"
        status, stored = await self.call("PUT", path, json=commands)
        assert status == 200, stored
        return stored

    async def answer(self, ix: Interaction, body: JSON) -> tuple[int, Any]:
        """POST the callback of ``ix`` with ``body``."""
        return await self.call("POST", f"/interactions/{ix.id}/{ix.token}/callback", json=body)


def rules(emulator: Emulator) -> list[str]:
    """The rules the emulator recorded as broken so far, in order."""
    return [v.rule for v in emulator.violations]
