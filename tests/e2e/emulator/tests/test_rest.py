"""Self-tests of REST routes the tiny bot does not use, with a plain HTTP client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest_asyncio

from tests.e2e.emulator import Emulator
from tests.e2e.emulator.tests.raw import rules


class Client:
    """A minimal REST client with the bot's token."""

    def __init__(self, emulator: Emulator, session: aiohttp.ClientSession) -> None:
        self.base = emulator.api_base
        self.session = session
        self.headers = {"Authorization": f"Bot {emulator.token}"}

    async def call(self, method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
        async with self.session.request(
            method, self.base + path, headers=self.headers, **kwargs
        ) as response:
            if response.status == 204:
                return 204, None
            assert response.headers["Content-Type"] == "application/json"
            return response.status, await response.json()


@pytest_asyncio.fixture
async def client(emulator: Emulator) -> AsyncIterator[Client]:
    async with aiohttp.ClientSession() as session:
        yield Client(emulator, session)


async def test_unknown_routes_and_bad_tokens(emulator: Emulator, client: Client) -> None:
    assert await client.call("GET", "/channels/1/pins") == (
        404,
        {"message": "404: Not Found", "code": 0},
    )
    async with client.session.get(emulator.api_base.replace("/api/v10", "/cdn/x.png")) as response:
        assert response.status == 404
    client.headers["Authorization"] = "Bot nope"
    assert await client.call("GET", "/users/@me") == (
        401,
        {"message": "401: Unauthorized", "code": 0},
    )
    assert rules(emulator) == ["http.unknown-route", "http.unknown-route", "http.unauthorized"]
    assert "GET /api/v10/channels/1/pins is not emulated" in emulator.violations[0].message


async def test_channel_messages(emulator: Emulator, client: Client) -> None:
    channel = emulator.channel("general")
    path = f"/channels/{channel.id}/messages"
    form = aiohttp.FormData(quote_fields=False)
    form.add_field("payload_json", '{"content": "one"}')
    form.add_field("files[0]", b"\x89PNG-ish", filename="a.png")
    status, first = await client.call("POST", path, data=form)
    assert status == 200 and first["attachments"][0]["filename"] == "a.png"
    async with client.session.get(first["attachments"][0]["url"]) as response:
        assert await response.read() == b"\x89PNG-ish"
    _, second = await client.call("POST", path, json={"content": "two"})
    status, listed = await client.call("GET", path, params={"limit": "10"})
    assert [m["content"] for m in listed] == ["two", "one"]
    status, edited = await client.call("PATCH", f"{path}/{second['id']}", json={"content": "2"})
    assert edited["content"] == "2" and edited["edited_timestamp"] is not None
    assert (await client.call("GET", f"{path}/{second['id']}"))[1]["content"] == "2"
    assert await client.call("DELETE", f"{path}/{second['id']}") == (204, None)
    status, error = await client.call("GET", f"{path}/{second['id']}")
    assert (status, error["code"]) == (404, 10008)
    assert await client.call("POST", f"/channels/{channel.id}/typing") == (204, None)
    status, error = await client.call("POST", path, json={"content": ""})
    assert (status, error["code"]) == (400, 50006)
    status, error = await client.call("POST", path, data="{not json")
    assert (status, error["code"]) == (400, 50109)
    assert rules(emulator) == ["http.unknown-resource", "message.empty", "http.invalid-json"]
    assert [m.content for m in emulator.messages(channel)] == ["one"]


async def test_guild_users_and_dms(emulator: Emulator, client: Client) -> None:
    guild, bob = emulator.guild, emulator.member("bob")
    status, data = await client.call("GET", f"/guilds/{guild.id}")
    assert status == 200 and data["name"] == guild.name and len(data["roles"]) == 2
    _, channels = await client.call("GET", f"/guilds/{guild.id}/channels")
    assert {c["name"] for c in channels} == {"general", "games", "no-embeds", "read-only"}
    _, roles = await client.call("GET", f"/guilds/{guild.id}/roles")
    assert roles[0]["name"] == "@everyone"
    _, members = await client.call("GET", f"/guilds/{guild.id}/members", params={"limit": "10"})
    assert len(members) == 4
    _, member = await client.call("GET", f"/guilds/{guild.id}/members/{bob.id}")
    assert member["user"]["username"] == "bob"
    assert (await client.call("GET", f"/guilds/{guild.id}/members/1"))[1]["code"] == 10007
    assert (await client.call("GET", "/guilds/1"))[1]["code"] == 10004
    assert (await client.call("GET", f"/users/{bob.id}"))[1]["global_name"] == "Bob"
    _, dm = await client.call("POST", "/users/@me/channels", json={"recipient_id": str(bob.id)})
    assert dm["type"] == 1 and dm["recipients"][0]["id"] == str(bob.id)
    status, error = await client.call("POST", "/users/@me/channels", json={})
    assert (status, error["code"]) == (400, 50007)
    status, error = await client.call("POST", "/users/@me/channels", json={"recipient_id": "x"})
    assert (status, error["code"]) == (400, 50035)
    assert rules(emulator)[-1] == "http.malformed"


async def test_single_command_routes(emulator: Emulator, client: Client) -> None:
    path = f"/applications/{emulator.bot_user.id}/guilds/{emulator.guild.id}/commands"
    status, created = await client.call("POST", path, json={"name": "one", "description": "1"})
    assert status == 201 and created["guild_id"] == str(emulator.guild.id)
    command = f"{path}/{created['id']}"
    assert (await client.call("GET", command))[1]["name"] == "one"
    _, patched = await client.call("PATCH", command, json={"description": "first"})
    assert patched["id"] == created["id"] and patched["description"] == "first"
    assert await client.call("DELETE", command) == (204, None)
    assert (await client.call("GET", command))[1]["code"] == 10063
    status, error = await client.call("PUT", path, json=[{"name": "Bad Name", "description": ""}])
    assert status == 400 and set(error["errors"]["0"]) == {"name", "description"}
    assert emulator.commands() == []
