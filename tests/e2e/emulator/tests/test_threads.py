"""Self-tests of public threads: raw REST calls with the bot's token, raw gateway sessions, and the
tiny bot (discord.py) answering in threads.

Each test checks the exact list of rules it breaks on purpose (none, mostly).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from tests.e2e.bots import TINYBOT, SpawnBot
from tests.e2e.emulator import Channel, Emulator, Interaction, RandomPlayer
from tests.e2e.emulator import threads as thread_ops
from tests.e2e.emulator.model import (
    ATTACH_FILES,
    CREATE_PUBLIC_THREADS,
    EMBED_LINKS,
    EVERYONE_DEFAULT,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    default_world,
)
from tests.e2e.emulator.state import DIRECT_MESSAGES, GUILD_MEMBERS, GUILD_MESSAGES, GUILDS
from tests.e2e.emulator.tests.raw import RawSession, rules
from tests.e2e.table import Table

JSON = dict[str, Any]
INTENTS = GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES
QUERY = "?v=10&encoding=json"
GO = {"type": 2, "style": 1, "label": "Go", "custom_id": "go"}
HAS_THREAD = 1 << 5
# ThreadResponse's required fields in Discord's OpenAPI schema.
THREAD_FIELDS = {
    "id",
    "type",
    "flags",
    "guild_id",
    "name",
    "owner_id",
    "thread_metadata",
    "message_count",
    "member_count",
    "total_message_sent",
}
METADATA_FIELDS = {"archived", "archive_timestamp", "auto_archive_duration", "locked"}


class Api:
    """REST calls with the bot's token, and raw gateway sessions."""

    def __init__(self, emulator: Emulator, http: aiohttp.ClientSession) -> None:
        self.emu = emulator
        self.http = http
        self.headers = {"Authorization": f"Bot {emulator.token}"}
        self.sessions: list[RawSession] = []

    async def call(self, method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
        url = self.emu.api_base + path
        async with self.http.request(method, url, headers=self.headers, **kwargs) as response:
            return response.status, (None if response.status == 204 else await response.json())

    async def post(self, channel: Channel, content: str, **data: Any) -> JSON:
        status, message = await self.call(
            "POST", f"/channels/{channel.id}/messages", json={"content": content, **data}
        )
        assert status == 200, message
        return message

    async def thread(self, channel: Channel, name: str = "game", **body: Any) -> Channel:
        """A thread started by the bot on a new message of ``channel``."""
        message = await self.post(channel, f"about {name}")
        path = f"/channels/{channel.id}/messages/{message['id']}/threads"
        status, data = await self.call("POST", path, json={"name": name, **body})
        assert status == 201, data
        found = self.emu.world.find_channel(int(data["id"]))
        assert found is not None
        return found

    async def open(self, channel: Channel, name: str = "lobby") -> Channel:
        """A thread started by the bot in ``channel`` without a message."""
        body = {"name": name, "type": 11}
        status, data = await self.call("POST", f"/channels/{channel.id}/threads", json=body)
        assert status == 201, data
        found = self.emu.world.find_channel(int(data["id"]))
        assert found is not None
        return found

    async def connect(self, shard: list[int] | None = None, intents: int = INTENTS) -> RawSession:
        ws = await self.http.ws_connect(self.emu.gateway.url() + QUERY)
        assert (await ws.receive_json())["op"] == 10
        identify: JSON = {"token": self.emu.token, "intents": intents, "properties": {}}
        if shard is not None:
            identify["shard"] = shard
        await ws.send_json({"op": 2, "d": identify})
        raw = RawSession(self.emu, ws)
        self.sessions.append(raw)
        await self.emu.wait_for(lambda: raw.events[:1] and raw.events[0]["t"] == "READY")
        return raw

    async def register(self, *names: str) -> None:
        commands = [{"name": name, "description": name.title()} for name in names]
        path = f"/applications/{self.emu.bot_user.id}/commands"
        assert (await self.call("PUT", path, json=commands))[0] == 200

    async def answer(self, ix: Interaction, content: str, *, kind: int = 4, **data: Any) -> int:
        """Answer ``ix`` as a bot would; the HTTP status."""
        body = {"type": kind, "data": {"content": content, **data}}
        status, _ = await self.call("POST", f"/interactions/{ix.id}/{ix.token}/callback", json=body)
        return status


@pytest_asyncio.fixture
async def api(emulator: Emulator) -> AsyncIterator[Api]:
    async with aiohttp.ClientSession() as http:
        client = Api(emulator, http)
        yield client
        for raw in client.sessions:
            await raw.close()


def error(answer: tuple[int, Any]) -> tuple[int, int]:
    status, body = answer
    return status, body["code"]


# Creating threads ------------------------------------------------------------------------------


async def test_a_thread_from_a_message(emulator: Emulator, api: Api) -> None:
    raw = await api.connect()
    general, bot = emulator.channel("general"), emulator.bot_user
    message = await api.post(general, "let's play")
    path = f"/channels/{general.id}/messages/{message['id']}/threads"
    body = {"name": "alice vs bob", "auto_archive_duration": 60, "rate_limit_per_user": None}
    status, thread = await api.call("POST", path, json=body)
    assert status == 201 and set(thread) >= THREAD_FIELDS
    assert thread["id"] == message["id"] and thread["type"] == 11 and thread["name"] == body["name"]
    assert thread["parent_id"] == str(general.id) and thread["guild_id"] == str(emulator.guild.id)
    assert thread["owner_id"] == str(bot.id)
    meta = thread["thread_metadata"]
    assert set(meta) >= METADATA_FIELDS and meta["create_timestamp"] == meta["archive_timestamp"]
    assert meta["auto_archive_duration"] == 60 and not meta["archived"] and not meta["locked"]
    counts = ("member_count", "message_count", "total_message_sent")
    assert [thread[key] for key in counts] == [1, 0, 0]
    assert thread["member"]["user_id"] == str(bot.id) and thread["member"]["id"] == thread["id"]

    (channel,) = emulator.threads(general)
    assert channel.id == int(thread["id"]) and emulator.threads() == [channel]
    assert emulator.threads(archived=True) == []
    assert emulator.threads(emulator.channel("games")) == []
    assert emulator.thread_members(channel) == {bot.id}
    starter = emulator.messages(general)[-1]
    assert emulator.thread_of(starter) is channel and starter.flags & HAS_THREAD
    status, fetched = await api.call("GET", f"/channels/{general.id}/messages/{message['id']}")
    assert fetched["thread"]["id"] == thread["id"] and fetched["flags"] & HAS_THREAD
    status, again = await api.call("GET", f"/channels/{channel.id}")
    assert status == 200 and again == thread

    (created,) = raw.sent("THREAD_CREATE")
    assert created["newly_created"] is True and created["id"] == thread["id"]
    assert created["member"]["user_id"] == str(bot.id)
    (updated,) = raw.sent("MESSAGE_UPDATE", id=message["id"])
    assert updated["thread"]["id"] == thread["id"] and updated["flags"] & HAS_THREAD
    await emulator.wait_for(lambda: raw.got("THREAD_CREATE", id=thread["id"]))

    assert error(await api.call("POST", path, json={"name": "again"})) == (400, 160004)
    assert rules(emulator) == ["threads.already-created"]


async def test_a_thread_without_a_message(emulator: Emulator, api: Api) -> None:
    raw = await api.connect()
    games = emulator.channel("games")
    path = f"/channels/{games.id}/threads"
    body = {"name": "lobby", "type": 11, "auto_archive_duration": 1440, "invitable": True}
    status, thread = await api.call("POST", path, json=body)
    assert status == 201 and thread["type"] == 11 and thread["parent_id"] == str(games.id)
    assert set(thread) >= THREAD_FIELDS and thread["member_count"] == 1
    notice = emulator.last_message(games)
    assert notice.type == 18 and notice.content == "lobby" and notice.thread is None
    assert notice.reference == {"channel_id": thread["id"], "guild_id": str(emulator.guild.id)}
    assert raw.sent("THREAD_CREATE", id=thread["id"])[0]["newly_created"] is True
    (announced,) = raw.sent("MESSAGE_CREATE", id=str(notice.id))
    assert announced["message_reference"]["channel_id"] == thread["id"]

    missing_type = await api.call("POST", path, json={"name": "x"})
    assert error(missing_type) == (400, 50035) and "type" in missing_type[1]["errors"]
    assert error(await api.call("POST", path, json={"name": "x", "type": 10})) == (400, 50024)
    assert rules(emulator) == ["thread.type", "threads.channel-type"]
    before = len(emulator.messages(games))
    status, private = await api.call("POST", path, json={"name": "quiet", "type": 12})
    assert status == 201 and private["type"] == 12 and private["member"]["user_id"]
    assert private["thread_metadata"]["invitable"] is True
    assert len(emulator.messages(games)) == before, "a private thread posts no notice"
    assert raw.sent("THREAD_CREATE", id=private["id"])[0]["newly_created"] is True


async def test_thread_bodies_follow_discords_limits(emulator: Emulator, api: Api) -> None:
    general = emulator.channel("general")
    message = await api.post(general, "x")
    path = f"/channels/{general.id}/messages/{message['id']}/threads"
    for body, field in (
        ({"name": "n" * 101}, "name"),
        ({"name": ""}, "name"),
        ({}, "name"),
        ({"name": "ok", "auto_archive_duration": 30}, "auto_archive_duration"),
        ({"name": "ok", "rate_limit_per_user": 21601}, "rate_limit_per_user"),
    ):
        status, answer = await api.call("POST", path, json=body)
        assert (status, answer["code"]) == (400, 50035) and list(answer["errors"]) == [field]
    assert emulator.threads() == []
    status, thread = await api.call("POST", path, json={"name": "n" * 100})
    assert status == 201 and thread["thread_metadata"]["auto_archive_duration"] == 1440
    assert rules(emulator) == [
        "thread.name",
        "thread.name",
        "thread.name",
        "thread.auto-archive-duration",
        "thread.rate-limit",
    ]


async def test_permission_refusals(emulator: Emulator, api: Api) -> None:
    raw = await api.connect()
    games, read_only = emulator.channel("games"), emulator.channel("read-only")
    emulator.deny(games, CREATE_PUBLIC_THREADS)
    (update,) = raw.sent("CHANNEL_UPDATE", id=str(games.id))
    (overwrite,) = update["permission_overwrites"]
    assert int(overwrite["deny"]) == CREATE_PUBLIC_THREADS
    message = await api.post(games, "no threads here")
    path = f"/channels/{games.id}/messages/{message['id']}/threads"
    assert error(await api.call("POST", path, json={"name": "x"})) == (403, 50013)
    assert "Create Public Threads" in emulator.violations[-1].message

    # Send Messages denied in the channel: threads still work (Send Messages in Threads).
    thread = await api.open(read_only, "allowed")
    in_channel = f"/channels/{read_only.id}/messages"
    assert error(await api.call("POST", in_channel, json={"content": "x"})) == (403, 50013)
    embed = {"content": "in the thread", "embeds": [{"title": "board"}]}
    assert (await api.call("POST", f"/channels/{thread.id}/messages", json=embed))[0] == 200

    # Send Messages in Threads denied on the parent: no posting in its threads.
    emulator.deny(read_only, SEND_MESSAGES_IN_THREADS)
    posted = await api.call("POST", f"/channels/{thread.id}/messages", json={"content": "x"})
    assert error(posted) == (403, 50013)
    bob = emulator.member("bob")
    put = await api.call("PUT", f"/channels/{thread.id}/thread-members/{bob.id}")
    assert error(put) == (403, 50013)

    # Not a text channel: a thread, a DM.
    inner = f"/channels/{thread.id}/threads"
    assert error(await api.call("POST", inner, json={"name": "x", "type": 11})) == (400, 50024)
    general_thread = await api.thread(emulator.channel("general"), "outer")
    inside = await api.post(general_thread, "a message in a thread")
    from_inside = f"/channels/{general_thread.id}/messages/{inside['id']}/threads"
    assert error(await api.call("POST", from_inside, json={"name": "x"})) == (400, 50024)
    dm = emulator.dm_channel(bob)
    dm_path = f"/channels/{dm.id}/threads"
    assert error(await api.call("POST", dm_path, json={"name": "x", "type": 11})) == (400, 50024)

    # View Channel denied on the parent: the thread is out of sight.
    emulator.deny(emulator.channel("general"), VIEW_CHANNEL)
    assert error(await api.call("GET", f"/channels/{general_thread.id}")) == (403, 50001)
    assert rules(emulator) == [
        "permissions.missing",
        "permissions.missing",
        "permissions.missing",
        "permissions.missing",
        "threads.channel-type",
        "threads.channel-type",
        "threads.channel-type",
        "permissions.missing-access",
    ]
    with pytest.raises(ValueError, match="no permission overwrites"):
        emulator.deny(thread, SEND_MESSAGES)


async def test_the_active_thread_limit(emulator: Emulator, api: Api) -> None:
    emulator.config.max_active_threads = 2
    general = emulator.channel("general")
    first, second = await api.thread(general, "one"), await api.thread(general, "two")
    message = await api.post(general, "a third")
    path = f"/channels/{general.id}/messages/{message['id']}/threads"
    assert error(await api.call("POST", path, json={"name": "three"})) == (400, 160006)
    without = await api.call(
        "POST", f"/channels/{general.id}/threads", json={"name": "t", "type": 11}
    )
    assert error(without) == (400, 160006)
    other = emulator.add_guild()  # the limit is per guild
    await api.thread(emulator.channel("general", other), "elsewhere")
    emulator.archive(first)
    assert emulator.threads(general, archived=False) == [second]
    assert (await api.call("POST", path, json={"name": "three"}))[0] == 201
    assert len(emulator.threads(general)) == 3
    assert rules(emulator) == ["threads.active-limit", "threads.active-limit"]


# Messages in threads -----------------------------------------------------------------------------


async def test_messages_in_a_thread(emulator: Emulator, api: Api) -> None:
    raw = await api.connect()
    thread = await api.thread(emulator.channel("general"))
    bot = emulator.bot_user
    first = await api.post(thread, "one")
    second = await api.post(thread, "two")
    assert first["channel_id"] == str(thread.id)
    assert raw.sent("MESSAGE_CREATE", id=second["id"])[0]["guild_id"] == str(emulator.guild.id)
    assert [m.content for m in emulator.messages(thread)] == ["one", "two"]
    assert thread.message_count == 2 and thread.last_message_id == int(second["id"])
    path = f"/channels/{thread.id}/messages"
    status, listed = await api.call("GET", path)
    assert status == 200 and [m["content"] for m in listed] == ["two", "one"]
    status, edited = await api.call("PATCH", f"{path}/{first['id']}", json={"content": "1"})
    assert status == 200 and edited["content"] == "1" and edited["edited_timestamp"]
    assert await api.call("DELETE", f"{path}/{second['id']}") == (204, None)
    assert thread.message_count == 1 and thread.total_message_sent == 2
    assert await api.call("POST", f"/channels/{thread.id}/typing") == (204, None)
    status, data = await api.call("GET", f"/channels/{thread.id}")
    assert data["message_count"] == 1 and data["total_message_sent"] == 2
    # Leaving, then posting: posting joins the thread again.
    assert await api.call("DELETE", f"/channels/{thread.id}/thread-members/@me") == (204, None)
    assert emulator.thread_members(thread) == set()
    await api.post(thread, "back")
    assert emulator.thread_members(thread) == {bot.id}
    added = raw.sent("THREAD_MEMBERS_UPDATE", id=str(thread.id))[-1]["added_members"]
    assert [m["user_id"] for m in added] == [str(bot.id)]
    assert emulator.violations == []


async def test_archived_and_locked_threads(emulator: Emulator, api: Api) -> None:
    raw = await api.connect()
    general = emulator.channel("general")
    thread = await api.thread(general)
    message = await api.post(thread, "before")
    emulator.archive(thread)
    assert thread.archived and emulator.threads(general, archived=True) == [thread]
    assert raw.sent("THREAD_UPDATE")[-1]["thread_metadata"]["archived"] is True
    path = f"/channels/{thread.id}/messages/{message['id']}"
    assert error(await api.call("PATCH", path, json={"content": "x"})) == (400, 50083)
    assert error(await api.call("DELETE", path)) == (400, 50083)
    bob = emulator.member("bob")
    member_path = f"/channels/{thread.id}/thread-members/{bob.id}"
    assert error(await api.call("PUT", member_path)) == (400, 50083)
    status, listed = await api.call("GET", f"/channels/{general.id}/threads/archived/public")
    assert status == 200 and [t["id"] for t in listed["threads"]] == [str(thread.id)]
    assert listed["has_more"] is False
    assert listed["members"][0]["user_id"] == str(emulator.bot_user.id)

    await api.post(thread, "a message unarchives it")
    assert not thread.archived
    assert raw.sent("THREAD_UPDATE")[-1]["thread_metadata"]["archived"] is False
    names = [e["t"] for e in raw.session.sent][-2:]
    assert names == ["THREAD_UPDATE", "MESSAGE_CREATE"]

    emulator.archive(thread, locked=True)
    posted = await api.call("POST", f"/channels/{thread.id}/messages", json={"content": "x"})
    assert posted == (400, {"message": "Thread is archived", "code": 50083})
    unarchive = await api.call("PATCH", f"/channels/{thread.id}", json={"archived": False})
    assert error(unarchive) == (403, 50013)
    assert thread.archived and thread.locked
    status, active = await api.call("GET", f"/guilds/{emulator.guild.id}/threads/active")
    assert status == 200 and active == {"threads": [], "members": []}
    assert rules(emulator) == [
        "threads.archived",
        "threads.archived",
        "threads.archived",
        "threads.archived",
        "permissions.missing",
    ]


async def test_editing_a_thread(emulator: Emulator, api: Api) -> None:
    raw = await api.connect()
    general = emulator.channel("general")
    thread = await api.thread(general)
    path = f"/channels/{thread.id}"
    status, renamed = await api.call("PATCH", path, json={"name": "renamed"})
    assert status == 200 and renamed["name"] == "renamed" and thread.name == "renamed"
    assert raw.sent("THREAD_UPDATE")[-1]["name"] == "renamed"
    status, archived = await api.call("PATCH", path, json={"archived": True})
    assert status == 200 and archived["thread_metadata"]["archived"] is True
    assert error(await api.call("PATCH", path, json={"name": "x"})) == (400, 50083)
    status, _ = await api.call("PATCH", path, json={"archived": False, "name": "back"})
    assert status == 200 and not thread.archived and thread.name == "back"
    assert error(await api.call("PATCH", path, json={"locked": True})) == (403, 50013)
    bad = await api.call("PATCH", path, json={"auto_archive_duration": 30})
    assert error(bad) == (400, 50035)
    assert (await api.call("PATCH", f"/channels/{general.id}", json={"name": "x"}))[0] == 404

    # A thread someone else owns: the bot (without Manage Threads) may only unarchive it.
    alice = emulator.member("alice")
    theirs = thread_ops.create(emulator.state, general, name="alice's", owner=alice.user)
    assert (await api.call("PATCH", f"/channels/{theirs.id}", json={"name": "x"}))[0] == 403
    emulator.archive(theirs)
    assert (await api.call("PATCH", f"/channels/{theirs.id}", json={"archived": False}))[0] == 200
    assert error(await api.call("DELETE", f"/channels/{theirs.id}")) == (403, 50013)
    assert error(await api.call("DELETE", f"/channels/{general.id}")) == (403, 50013)
    assert rules(emulator) == [
        "threads.archived",
        "permissions.missing",
        "thread.auto-archive-duration",
        "http.unknown-route",
        "permissions.missing",
        "permissions.missing",
        "permissions.missing",
    ]


async def test_a_deleted_thread_is_unknown(emulator: Emulator, api: Api) -> None:
    raw = await api.connect()
    await api.register("play")
    general, games = emulator.channel("general"), emulator.channel("games")
    alice = emulator.member("alice")
    thread = await api.thread(general)
    board = await api.post(thread, "board", components=[{"type": 1, "components": [GO]}])
    pending = await emulator.slash(alice, "play", channel=thread, wait=False)
    status, gone = await api.call("DELETE", f"/channels/{thread.id}")
    assert status == 200 and gone["id"] == str(thread.id) and thread.deleted
    (deleted,) = raw.sent("THREAD_DELETE")
    assert deleted == {
        "id": str(thread.id),
        "guild_id": str(emulator.guild.id),
        "parent_id": str(general.id),
        "type": 11,
    }
    assert emulator.threads() == [] and emulator.messages(thread) == []
    for method, path in (
        ("GET", f"/channels/{thread.id}"),
        ("PATCH", f"/channels/{thread.id}"),
        ("DELETE", f"/channels/{thread.id}"),
        ("POST", f"/channels/{thread.id}/messages"),
        ("GET", f"/channels/{thread.id}/messages/{board['id']}"),
        ("PUT", f"/channels/{thread.id}/thread-members/@me"),
    ):
        assert error(await api.call(method, path, json={"content": "x"})) == (404, 10003)
    assert await api.answer(pending, "too late") == 404
    assert pending.violations[-1].code == 10003 and pending.callbacks == [(4, 404)]
    assert await api.answer(pending, "only you see this", flags=1 << 6) == 204
    with pytest.raises(ValueError, match="deleted"):
        await emulator.slash(alice, "play", channel=thread)
    starter = next(m for m in emulator.messages(general) if m.id == thread.id)
    with pytest.raises(ValueError, match="cannot see"):  # its messages went with it
        await emulator.click(alice, emulator.state.messages[int(board["id"])], "go")
    assert emulator.thread_of(starter) is None and not starter.flags & HAS_THREAD
    # The message may have a thread again.
    again = f"/channels/{general.id}/messages/{starter.id}/threads"
    assert (await api.call("POST", again, json={"name": "again"}))[0] == 201

    # A moderator deletes a text channel: its threads go with it.
    inner = await api.thread(games, "inner")
    emulator.delete_channel(games)
    assert raw.sent("CHANNEL_DELETE")[0]["id"] == str(games.id) and inner.deleted
    assert error(await api.call("GET", f"/channels/{inner.id}")) == (404, 10003)
    assert error(await api.call("GET", f"/channels/{games.id}/messages")) == (404, 10003)
    with pytest.raises(KeyError):
        emulator.channel("games")
    assert rules(emulator) == ["http.unknown-resource"] * 9


async def test_thread_members(emulator: Emulator, api: Api) -> None:
    plain = await api.connect()
    members = await api.connect(intents=INTENTS | GUILD_MEMBERS)
    thread = await api.thread(emulator.channel("general"))
    bot, bob = emulator.bot_user, emulator.member("bob")
    path = f"/channels/{thread.id}/thread-members"
    assert await api.call("PUT", f"{path}/{bob.id}") == (204, None)
    assert await api.call("PUT", f"{path}/{bob.id}") == (204, None)  # already one: no event
    assert emulator.thread_members(thread) == {bot.id, bob.id}
    (update,) = members.sent("THREAD_MEMBERS_UPDATE")
    assert update["member_count"] == 2 and update["guild_id"] == str(emulator.guild.id)
    (added,) = update["added_members"]
    assert added["user_id"] == str(bob.id) and added["id"] == str(thread.id)
    assert added["member"]["user"]["id"] == str(bob.id)
    assert plain.sent("THREAD_MEMBERS_UPDATE") == []  # others' changes need GUILD_MEMBERS
    status, member = await api.call("GET", f"{path}/{bob.id}")
    assert status == 200 and member["user_id"] == str(bob.id) and member["join_timestamp"]
    status, listed = await api.call("GET", path)
    assert {m["user_id"] for m in listed} == {str(bot.id), str(bob.id)}
    assert error(await api.call("PUT", f"{path}/12345")) == (404, 10013)
    assert error(await api.call("DELETE", f"{path}/{bob.id}")) == (403, 50013)
    assert await api.call("DELETE", f"{path}/@me") == (204, None)
    (left,) = plain.sent("THREAD_MEMBERS_UPDATE")
    assert left["removed_member_ids"] == [str(bot.id)] and left["member_count"] == 1
    assert error(await api.call("GET", f"{path}/@me")) == (404, 10007)
    assert await api.call("PUT", f"{path}/@me") == (204, None)
    assert emulator.thread_members(thread) == {bot.id, bob.id}
    general = emulator.channel("general")
    not_a_thread = await api.call("PUT", f"/channels/{general.id}/thread-members/@me")
    assert error(not_a_thread) == (400, 50024)
    assert rules(emulator) == [
        "http.unknown-resource",
        "permissions.missing",
        "http.unknown-resource",
        "threads.channel-type",
    ]


# Interactions in threads -------------------------------------------------------------------------


async def test_interactions_in_a_thread(emulator: Emulator, api: Api) -> None:
    raw = await api.connect()
    await api.register("play")
    read_only, bot = emulator.channel("read-only"), emulator.bot_user
    guild = emulator.guild
    thread = await api.open(read_only)
    alice, bob = emulator.member("alice"), emulator.member("bob")
    ix = await emulator.slash(alice, "play", channel=thread, wait=False)
    (payload,) = raw.sent("INTERACTION_CREATE", id=str(ix.id))
    assert payload["channel_id"] == str(thread.id) and payload["guild_id"] == str(guild.id)
    channel = payload["channel"]
    assert channel["type"] == 11 and channel["parent_id"] == str(read_only.id)
    assert channel["thread_metadata"]["archived"] is False
    assert int(channel["permissions"]) == guild.permissions_in(thread, alice.id)
    app = int(payload["app_permissions"])
    assert app == guild.permissions_in(thread, bot.id)
    assert app & (SEND_MESSAGES_IN_THREADS | EMBED_LINKS | ATTACH_FILES) and not app & SEND_MESSAGES
    assert await api.answer(ix, "board", components=[{"type": 1, "components": [GO]}]) == 204
    assert ix.original is not None and ix.original.channel_id == thread.id
    assert emulator.messages(thread) == [ix.original]

    click = await emulator.click(bob, ix.original, "go", wait=False)
    (clicked,) = raw.sent("INTERACTION_CREATE", id=str(click.id))
    assert clicked["channel"]["id"] == str(thread.id)
    assert clicked["message"]["id"] == str(ix.original.id)
    assert await api.answer(click, "clicked", kind=7) == 204

    emulator.deny(read_only, SEND_MESSAGES_IN_THREADS)
    denied = await emulator.slash(alice, "play", channel=thread, wait=False)
    (payload,) = raw.sent("INTERACTION_CREATE", id=str(denied.id))
    app = int(payload["app_permissions"])
    assert not app & (SEND_MESSAGES_IN_THREADS | EMBED_LINKS | ATTACH_FILES)
    assert await api.answer(denied, "ephemeral only", flags=1 << 6) == 204
    assert emulator.violations == []


async def test_answers_unarchive_a_thread_unless_locked(emulator: Emulator, api: Api) -> None:
    raw = await api.connect()
    await api.register("play")
    thread = await api.thread(emulator.channel("general"))
    alice, bob = emulator.member("alice"), emulator.member("bob")
    emulator.archive(thread)
    ix = await emulator.slash(bob, "play", channel=thread, wait=False)
    (payload,) = raw.sent("INTERACTION_CREATE", id=str(ix.id))
    assert payload["channel"]["thread_metadata"]["archived"] is True
    assert await api.answer(ix, "board", components=[{"type": 1, "components": [GO]}]) == 204
    assert not thread.archived and ix.original is not None
    names = [e["t"] for e in raw.session.sent][-2:]
    assert names == ["THREAD_UPDATE", "MESSAGE_CREATE"]

    emulator.archive(thread)
    click = await emulator.click(bob, ix.original, "go", wait=False)
    assert await api.answer(click, "updated", kind=7) == 204 and not thread.archived

    emulator.archive(thread)
    deferred = await emulator.slash(bob, "play", channel=thread, wait=False)
    body = {"type": 5}
    url = f"/interactions/{deferred.id}/{deferred.token}/callback"
    assert (await api.call("POST", url, json=body))[0] == 204 and not thread.archived

    emulator.archive(thread, locked=True)
    with pytest.raises(ValueError, match="locked"):
        await emulator.slash(bob, "play", channel=thread)
    owner = await emulator.slash(alice, "play", channel=thread, wait=False)  # Manage Threads
    assert await api.answer(owner, "refused") == 400
    assert await api.answer(owner, "only you see this", flags=1 << 6) == 204
    assert owner.acknowledged and thread.archived
    late = await emulator.click(bob, ix.original, "go", wait=False)
    assert await api.answer(late, "", kind=6) == 204  # a deferred update shows nothing
    assert rules(emulator) == ["threads.archived"]
    assert emulator.violations[0].interaction_id == owner.id


# Gateway ------------------------------------------------------------------------------------------


@pytest_asyncio.fixture
async def sharded() -> AsyncIterator[Emulator]:
    async with Emulator(world=default_world(shard=(0, 2))) as emulator:
        emulator.add_guild(shard=(1, 2))
        yield emulator


async def test_thread_events_follow_the_shard_of_their_guild(sharded: Emulator) -> None:
    emulator = sharded
    a, b = emulator.guilds
    async with aiohttp.ClientSession() as http:
        api = Api(emulator, http)
        s0, s1 = await api.connect([0, 2]), await api.connect([1, 2])
        thread = await api.thread(emulator.channel("general", b))
        key = {"id": str(thread.id), "guild_id": str(b.id)}
        await emulator.wait_for(lambda: s1.got("THREAD_CREATE", **key))
        assert s1.got("THREAD_CREATE", **key)[0]["newly_created"] is True
        archived = await api.call("PATCH", f"/channels/{thread.id}", json={"archived": True})
        assert archived[0] == 200
        await api.post(thread, "unarchived")
        assert await api.call("DELETE", f"/channels/{thread.id}/thread-members/@me") == (204, None)
        assert await api.call("PUT", f"/channels/{thread.id}/thread-members/@me") == (204, None)
        assert await api.call("DELETE", f"/channels/{thread.id}") == (200, thread.to_json())
        events = ["THREAD_CREATE", "THREAD_UPDATE", "THREAD_MEMBERS_UPDATE", "THREAD_DELETE"]
        await emulator.wait_for(lambda: s1.got("THREAD_DELETE", **key))
        for event in events:
            assert s1.got(event, **key) and not s0.sent(event)
        assert len(s1.got("THREAD_UPDATE", **key)) == 2
        assert len(s1.got("THREAD_MEMBERS_UPDATE", **key)) == 2

        # GUILD_CREATE lists a guild's active threads, with the bot's membership.
        active = await api.thread(emulator.channel("general", a), "active")
        emulator.archive(await api.thread(emulator.channel("games", a), "archived"))
        later = await api.connect([0, 2])
        await emulator.wait_for(lambda: later.got("GUILD_CREATE"))
        (created,) = later.got("GUILD_CREATE")
        assert [t["id"] for t in created["threads"]] == [str(active.id)]
        assert created["threads"][0]["member"]["user_id"] == str(emulator.bot_user.id)
        assert str(active.id) not in {c["id"] for c in created["channels"]}
        for raw in api.sessions:
            await raw.close()
    assert emulator.violations == []


# The model and the test API -------------------------------------------------------------------


def test_thread_permissions_are_the_parents() -> None:
    emulator = Emulator()
    guild, bot = emulator.guild, emulator.bot_user
    assert EVERYONE_DEFAULT & (CREATE_PUBLIC_THREADS | SEND_MESSAGES_IN_THREADS)
    owner = bot
    read_only = emulator.channel("read-only")
    thread = thread_ops.create(emulator.state, read_only, name="t", owner=owner)
    in_thread = guild.permissions_in(thread, bot.id)
    assert in_thread & (SEND_MESSAGES_IN_THREADS | EMBED_LINKS) and not in_thread & SEND_MESSAGES
    assert not guild.permissions_in(read_only, bot.id) & EMBED_LINKS
    no_embeds = thread_ops.create(
        emulator.state, emulator.channel("no-embeds"), name="n", owner=owner
    )
    assert not guild.permissions_in(no_embeds, bot.id) & (EMBED_LINKS | ATTACH_FILES)
    assert emulator.world.find_channel(thread.id) is thread
    assert emulator.world.guild_of(thread) is guild
    assert [c["name"] for c in guild.to_json(members=[])["channels"]] == [
        "general",
        "games",
        "no-embeds",
        "read-only",
    ]
    table = Table(emulator)
    here = table.in_thread(thread)
    assert here.channel is thread and here.guild is guild and table.channel is not thread
    assert Table(emulator, thread).channel is thread
    assert Table(emulator, "games").channel is emulator.channel("games")


# discord.py in threads -------------------------------------------------------------------------


async def test_discord_py_answers_in_threads(
    emulator: Emulator, api: Api, spawn_bot: SpawnBot, seed: int
) -> None:
    """The tiny bot (discord.py) gets threads from GUILD_CREATE and THREAD_CREATE, answers
    commands and clicks in them, and an answer in an archived thread unarchives it; the random
    player presses the buttons of a board in a thread of its channel."""
    general = emulator.channel("general")
    early = await api.thread(general, "early")  # in GUILD_CREATE
    bot = spawn_bot(emulator, TINYBOT)
    await bot.start(sync=True)
    status, data = await api.call(
        "POST", f"/channels/{general.id}/threads", json={"name": "late", "type": 11}
    )
    assert status == 201
    late = emulator.world.find_channel(int(data["id"]))
    assert late is not None
    alice, bob = emulator.member("alice"), emulator.member("bob")
    ping = await emulator.slash(alice, "tiny ping", channel=early)
    assert ping.original is not None and ping.original.content == "pong"
    assert emulator.messages(early) == [ping.original]
    made = await emulator.slash(alice, "tiny board", channel=late)
    board = made.original
    assert board is not None and board.channel_id == late.id
    click = await emulator.click(bob, board, "tiny:inc")
    assert click.ack_type == 7 and board.content == "count 1"
    emulator.archive(late)
    click = await emulator.click(bob, board, "tiny:inc")
    assert board.content == "count 2" and not late.archived

    player = RandomPlayer(
        emulator, [alice, bob], general, seed=seed, commands=[], recent=1, settle=bot.settle
    )
    played = await player.play(6)
    assert played and not any(ix.failed for ix in played), player.history
    assert {ix.channel.id for ix in played} == {late.id}, player.history
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert emulator.violations == []


async def test_a_private_thread_is_seen_by_its_members_only(emulator: Emulator, api: Api) -> None:
    """Bob starts a private thread in #games with Carol: Alice (the owner) sees it, Dave does
    not; the bot hears of it only once added, and may read it only then."""
    raw = await api.connect()
    alice, bob, carol = (emulator.member(name) for name in ("alice", "bob", "carol"))
    dave = emulator.add_person("dave")
    games = emulator.channel("games")
    guild = emulator.guild
    before = len(emulator.messages(games))
    thread = emulator.private_thread(games, bob, "quiet", members=(carol,))
    assert thread.type == 12 and len(emulator.messages(games)) == before
    assert [guild.sees(thread, m.id) for m in (alice, bob, carol, dave)] == [1, 1, 1, 0]
    assert guild.permissions_in(thread, dave.id) == 0
    assert raw.sent("THREAD_CREATE", id=str(thread.id)) == []
    assert error(await api.call("GET", f"/channels/{thread.id}")) == (403, 50001)
    thread_ops.add_member(emulator.state, thread, emulator.bot_user.id)
    assert raw.sent("THREAD_CREATE", id=str(thread.id))[0]["type"] == 12
    status, found = await api.call("GET", f"/channels/{thread.id}")
    assert status == 200 and found["type"] == 12
    members = f"/channels/{thread.id}/thread-members"
    assert (await api.call("GET", f"{members}/{carol.id}"))[0] == 200
    assert error(await api.call("GET", f"{members}/{dave.id}")) == (404, 10007)
    assert rules(emulator) == ["permissions.missing-access", "http.unknown-resource"]
