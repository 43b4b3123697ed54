"""A raw gateway connection for the emulator's own tests: it IDENTIFYs (or RESUMEs) and keeps
every DISPATCH it reads, with the emulator's side of the session at hand."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import aiohttp

from .emulator import Emulator
from .emulator.gateway import Session

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
