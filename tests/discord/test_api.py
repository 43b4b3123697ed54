"""bot.discord.api.use_api_base: validation, and discord.py really pointed at the emulator."""

from __future__ import annotations

import asyncio
import socket

import discord.gateway
import discord.http
import pytest

from bot.discord.api import use_api_base
from tests.e2e.emulator import Emulator


@pytest.fixture
def restore_discord(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)
    websocket = discord.gateway.DiscordWebSocket
    monkeypatch.setattr(websocket, "DEFAULT_GATEWAY", websocket.DEFAULT_GATEWAY)


@pytest.mark.parametrize(
    "base",
    [
        "",
        "127.0.0.1:8080/api/v10",
        "ftp://127.0.0.1/api/v10",
        "ws://127.0.0.1/api/v10",
        "http:///api/v10",
        "http://127.0.0.1/api/v10?x=1",
    ],
)
def test_rejects_what_is_not_an_http_url(base: str) -> None:
    with pytest.raises(ValueError, match="DISCORD_API_BASE"):
        use_api_base(base)


@pytest.mark.usefixtures("restore_discord")
async def test_points_rest_and_gateway_at_the_base(emulator: Emulator) -> None:
    await asyncio.to_thread(use_api_base, emulator.api_base + "/")
    assert emulator.api_base == discord.http.Route.BASE
    assert discord.http.Route("GET", "/users/@me").url == f"{emulator.api_base}/users/@me"
    assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == emulator.gateway.url()


@pytest.mark.usefixtures("restore_discord")
def test_unreachable_base_fails_loudly() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(OSError):
        use_api_base(f"http://127.0.0.1:{port}/api/v10")
    assert discord.http.Route.BASE == "https://discord.com/api/v10"
