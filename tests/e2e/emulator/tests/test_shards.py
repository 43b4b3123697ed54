"""Self-tests of several guilds and gateway sharding, with raw WebSocket gateway connections.

The world: guild A ("Tholos Test") on shard 0 of 2 and guild B ("Tholos Two") on shard 1 of 2.
Each test connects raw gateway sessions (no discord.py), acts as members, answers interactions
over REST as a bot would, and checks which session got which event.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator, Guild, Interaction
from tests.e2e.emulator.gateway import GUILDS, RESUME_PATH
from tests.e2e.emulator.model import default_world, shard_of, snowflake
from tests.e2e.emulator.process import shards_of
from tests.e2e.emulator.state import DIRECT_MESSAGES, GUILD_MESSAGES
from tests.e2e.emulator.tests.raw import RawSession
from tests.e2e.table import Table

JSON = dict[str, Any]
INTENTS = GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES
QUERY = "?v=10&encoding=json"
GO = {"type": 2, "style": 1, "label": "Go", "custom_id": "go"}


class Harness:
    """Raw gateway sessions and a REST client with the bot's token."""

    def __init__(self, emulator: Emulator, http: aiohttp.ClientSession) -> None:
        self.emu = emulator
        self.http = http
        self.headers = {"Authorization": f"Bot {emulator.token}"}
        self.sessions: list[RawSession] = []

    async def connect(self, shard: object = None, *, expect_ready: bool = True) -> RawSession:
        """Open a connection and IDENTIFY (with ``shard`` unless ``None``)."""
        ws = await self.http.ws_connect(self.emu.gateway.url() + QUERY)
        hello = await ws.receive_json()
        assert hello["op"] == 10
        identify: JSON = {"token": self.emu.token, "intents": INTENTS, "properties": {}}
        if shard is not None:
            identify["shard"] = shard
        await ws.send_json({"op": 2, "d": identify})
        raw = RawSession(self.emu, ws)
        self.sessions.append(raw)
        if expect_ready:
            await self.emu.wait_for(lambda: raw.names()[:1] == ["READY"], what="READY")
        return raw

    async def call(self, method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
        url = self.emu.api_base + path
        async with self.http.request(method, url, headers=self.headers, **kwargs) as response:
            return response.status, (None if response.status == 204 else await response.json())

    async def register(self, commands: list[JSON], guild: Guild | None = None) -> None:
        scope = f"/guilds/{guild.id}" if guild is not None else ""
        path = f"/applications/{self.emu.bot_user.id}{scope}/commands"
        status, _ = await self.call("PUT", path, json=commands)
        assert status == 200

    async def answer(self, ix: Interaction, content: str, *, kind: int = 4, **data: Any) -> None:
        """Acknowledge ``ix`` (by default with a message), as a bot would."""
        body = {"type": kind, "data": {"content": content, **data}}
        status, _ = await self.call("POST", f"/interactions/{ix.id}/{ix.token}/callback", json=body)
        assert status == 204 and ix.acknowledged


@pytest_asyncio.fixture
async def emu() -> AsyncIterator[Emulator]:
    async with Emulator(world=default_world(shard=(0, 2))) as emulator:
        emulator.add_guild(shard=(1, 2))
        yield emulator


@pytest_asyncio.fixture
async def h(emu: Emulator) -> AsyncIterator[Harness]:
    async with aiohttp.ClientSession() as http:
        harness = Harness(emu, http)
        yield harness
        for raw in harness.sessions:
            await raw.close()


def guilds(emu: Emulator) -> tuple[Guild, Guild]:
    a, b = emu.guilds
    return a, b


def test_guild_ids_fall_on_the_requested_shard() -> None:
    for count in (1, 2, 3, 16):
        for shard_id in range(count):
            assert shard_of(snowflake((shard_id, count)), count) == shard_id
    for bad in ((2, 2), (-1, 2), (0, 0), (0,), (True, 2)):
        with pytest.raises(ValueError):
            snowflake(bad)  # type: ignore[arg-type]


def test_a_second_guild_has_the_same_people_and_its_own_bot_role(emu: Emulator) -> None:
    a, b = guilds(emu)
    assert emu.guild is a and b.name == "Tholos Two" and (b.id >> 22) % 2 == 1
    assert b.owner_id == emu.member("alice").id
    for name in ("alice", "bob", "carol"):
        assert b.members[emu.member(name).id].user is emu.member(name).user
    (bot_role,) = [r for r in b.roles.values() if r.managed]
    assert bot_role.bot_id == emu.bot_user.id and bot_role.id not in a.roles
    assert [c.name for c in b.channels.values()] == ["general", "games"]
    general = emu.channel("general", b)
    assert general.guild_id == b.id and general is not emu.channel("general")
    assert b.permissions_in(general, emu.bot_user.id) == a.permissions_in(
        emu.channel("general"), emu.bot_user.id
    )
    assert emu.world.find_channel(general.id) is general
    assert emu.world.find_guild(b.id) is b and emu.world.guild_of(general) is b
    table = Table(emu, "games", b)
    assert table.guild is b and table.channel is emu.channel("games", b)
    assert Table(emu).channel is emu.channel("general")


async def test_ready_lists_the_guilds_of_the_shard(emu: Emulator, h: Harness) -> None:
    a, b = guilds(emu)
    s0, s1, whole = await h.connect([0, 2]), await h.connect([1, 2]), await h.connect()
    for raw, owned in ((s0, [a]), (s1, [b]), (whole, [a, b])):
        expected = [{"id": str(g.id), "unavailable": True} for g in owned]
        await emu.wait_for(lambda raw=raw, owned=owned: len(raw.events) == 1 + len(owned))
        assert raw.ready["guilds"] == expected
        assert raw.names() == ["READY"] + ["GUILD_CREATE"] * len(owned)
        assert [e["d"]["id"] for e in raw.events[1:]] == [str(g.id) for g in owned]
    assert s0.ready["shard"] == [0, 2] and s1.ready["shard"] == [1, 2]
    assert "shard" not in whole.ready
    (created,) = s1.got("GUILD_CREATE")
    assert [c["name"] for c in created["channels"]] == ["general", "games"]
    assert [m["user"]["id"] for m in created["members"]] == [str(emu.bot_user.id)]
    assert emu.gateway.sessions_for(a.id) == [s0.session, whole.session]
    assert emu.gateway.sessions_for(b.id) == [s1.session, whole.session]
    assert emu.gateway.sessions_for(None) == [s0.session, whole.session]
    assert emu.violations == []


async def test_a_slash_command_reaches_the_shard_of_its_guild(emu: Emulator, h: Harness) -> None:
    a, b = guilds(emu)
    await h.register([{"name": "ping", "description": "Ping"}])
    s0, s1, whole = await h.connect([0, 2]), await h.connect([1, 2]), await h.connect()
    alice, bob = emu.member("alice"), emu.member("bob")
    for guild, owner, other in ((b, s1, s0), (a, s0, s1)):
        channel = emu.channel("games", guild)
        ix = await emu.slash(alice, "ping", channel=channel, wait=False)
        seen = {"id": str(ix.id), "guild_id": str(guild.id)}
        await emu.wait_for(lambda o=owner, s=seen: o.got("INTERACTION_CREATE", **s))
        (payload,) = owner.got("INTERACTION_CREATE", **seen)
        assert payload["channel_id"] == str(channel.id)
        assert payload["guild"]["id"] == str(guild.id)
        assert payload["authorizing_integration_owners"] == {"0": str(guild.id)}
        assert payload["member"]["user"]["id"] == str(alice.id)
        assert int(payload["member"]["permissions"]) == guild.permissions_in(channel, alice.id)
        bot_perms = guild.permissions_in(channel, emu.bot_user.id)
        assert int(payload["app_permissions"]) == bot_perms
        await h.answer(ix, "pong", components=[{"type": 1, "components": [GO]}])
        assert ix.original is not None
        created = {"id": str(ix.original.id), "guild_id": str(guild.id)}
        await emu.wait_for(lambda o=owner, c=created: o.got("MESSAGE_CREATE", **c))
        meta = owner.got("MESSAGE_CREATE", **created)[0]["interaction_metadata"]
        assert meta["authorizing_integration_owners"] == {"0": str(guild.id)}
        assert whole.sent("INTERACTION_CREATE", **seen) and whole.sent("MESSAGE_CREATE", **created)
        assert not other.sent("INTERACTION_CREATE", id=str(ix.id))
        assert not other.sent("MESSAGE_CREATE", id=str(ix.original.id))
        click = await emu.click(bob, ix.original, "go", wait=False)
        clicked = {"id": str(click.id), "guild_id": str(guild.id)}
        await emu.wait_for(lambda o=owner, c=clicked: o.got("INTERACTION_CREATE", **c))
        (payload,) = owner.got("INTERACTION_CREATE", **clicked)
        assert payload["type"] == 3 and payload["member"]["user"]["id"] == str(bob.id)
        assert payload["message"]["id"] == str(ix.original.id)
        await h.answer(click, "gone", kind=7, components=[])
        updated = {"id": str(ix.original.id), "guild_id": str(guild.id)}
        await emu.wait_for(lambda o=owner, u=updated: o.got("MESSAGE_UPDATE", **u))
        assert not other.sent("INTERACTION_CREATE", id=str(click.id))
        assert not other.sent("MESSAGE_UPDATE", id=str(ix.original.id))
    assert emu.violations == []


async def test_guild_commands_only_in_their_guild(emu: Emulator, h: Harness) -> None:
    _, b = guilds(emu)
    await h.register([{"name": "ping", "description": "Ping"}])
    await h.register([{"name": "local", "description": "Only here"}], guild=b)
    s1 = await h.connect([1, 2])
    alice = emu.member("alice")
    ix = await emu.slash(alice, "local", channel=emu.channel("general", b), wait=False)
    await emu.wait_for(lambda: s1.got("INTERACTION_CREATE", id=str(ix.id)))
    assert s1.got("INTERACTION_CREATE", id=str(ix.id))[0]["data"]["guild_id"] == str(b.id)
    await h.answer(ix, "local")
    for channel in (emu.channel("general"), emu.dm_channel(alice)):
        with pytest.raises(ValueError, match="not registered"):
            await emu.slash(alice, "local", channel=channel)
    assert emu.commands(guild=b)[0]["name"] == "local" and emu.commands() == []
    assert [c["name"] for c in emu.commands(guild=False)] == ["ping"]
    assert emu.violations == []


async def test_dm_events_go_to_shard_zero(emu: Emulator, h: Harness) -> None:
    await h.register([{"name": "ping", "description": "Ping"}])
    s0, s1, whole = await h.connect([0, 2]), await h.connect([1, 2]), await h.connect()
    alice = emu.member("alice")
    ix = await emu.slash(alice, "ping", channel=emu.dm_channel(alice), wait=False)
    await emu.wait_for(lambda: s0.got("INTERACTION_CREATE", id=str(ix.id)))
    (payload,) = s0.got("INTERACTION_CREATE", id=str(ix.id))
    assert "guild_id" not in payload and payload["user"]["id"] == str(alice.id)
    await h.answer(ix, "pong in a DM")
    assert ix.original is not None
    message_id = str(ix.original.id)
    await emu.wait_for(lambda: s0.got("MESSAGE_CREATE", id=message_id))
    assert "guild_id" not in s0.got("MESSAGE_CREATE", id=message_id)[0]
    assert whole.sent("INTERACTION_CREATE", id=str(ix.id))
    assert not s1.sent("INTERACTION_CREATE") and not s1.sent("MESSAGE_CREATE")
    assert emu.violations == []


async def test_rest_uses_the_guild_of_the_channel(emu: Emulator, h: Harness) -> None:
    _, b = guilds(emu)
    s0, s1 = await h.connect([0, 2]), await h.connect([1, 2])
    general = emu.channel("general", b)
    status, message = await h.call(
        "POST", f"/channels/{general.id}/messages", json={"content": "hello B"}
    )
    assert status == 200
    await emu.wait_for(lambda: s1.got("MESSAGE_CREATE", id=message["id"], guild_id=str(b.id)))
    assert not s0.sent("MESSAGE_CREATE")
    status, channels = await h.call("GET", f"/guilds/{b.id}/channels")
    assert status == 200 and [c["name"] for c in channels] == ["general", "games"]
    assert {c["guild_id"] for c in channels} == {str(b.id)}
    status, roles = await h.call("GET", f"/guilds/{b.id}/roles")
    assert status == 200 and {r["id"] for r in roles} == {str(r) for r in b.roles}
    bob = emu.member("bob")
    status, member = await h.call("GET", f"/guilds/{b.id}/members/{bob.id}")
    assert status == 200 and member["user"]["username"] == "bob"
    status, guild = await h.call("GET", f"/guilds/{b.id}")
    assert status == 200 and guild["name"] == "Tholos Two"
    assert emu.violations == []


async def test_a_guild_added_later_is_announced_to_its_shard(emu: Emulator, h: Harness) -> None:
    s0, s1, whole = await h.connect([0, 2]), await h.connect([1, 2]), await h.connect()
    await emu.wait_for(lambda: len(whole.events) == 3)
    c = emu.add_guild("Tholos Three", shard=(1, 2))
    assert emu.guilds[-1] is c and len(emu.guilds) == 3
    for raw in (s1, whole):
        await emu.wait_for(lambda r=raw: r.got("GUILD_CREATE", id=str(c.id)))
    assert s1.got("GUILD_CREATE", id=str(c.id))[0]["name"] == "Tholos Three"
    assert not s0.sent("GUILD_CREATE", id=str(c.id))
    assert emu.gateway.sessions_for(c.id) == [s1.session, whole.session]
    later = await h.connect([1, 2])
    assert later.ready["guilds"] == [
        {"id": str(g.id), "unavailable": True} for g in (emu.guilds[1], c)
    ]
    assert emu.violations == []


async def test_two_sessions_of_one_shard_both_get_its_events(emu: Emulator, h: Harness) -> None:
    """A handoff: the old and the new process run the same shard for a while."""
    _, b = guilds(emu)
    old, new = await h.connect([1, 2]), await h.connect([1, 2])
    status, message = await h.call(
        "POST", f"/channels/{emu.channel('games', b).id}/messages", json={"content": "both"}
    )
    assert status == 200
    for raw in (old, new):
        await emu.wait_for(lambda r=raw: r.got("MESSAGE_CREATE", id=message["id"]))
    assert emu.gateway.sessions_for(b.id) == [old.session, new.session]
    await old.close()
    await emu.wait_for(lambda: not old.session.live)
    assert emu.gateway.sessions_for(b.id) == [new.session]
    assert emu.gateway.sessions_for(b.id, offline=True) == [old.session, new.session]
    assert emu.violations == []


async def test_resume_keeps_the_shard(emu: Emulator, h: Harness) -> None:
    a, b = guilds(emu)
    s1 = await h.connect([1, 2])
    session = s1.session
    seq = s1.events[-1]["s"]
    await s1.close()
    await emu.wait_for(lambda: not session.live)
    missed: list[str] = []
    for guild in (a, b):
        path = f"/channels/{emu.channel('general', guild).id}/messages"
        status, message = await h.call("POST", path, json={"content": f"in {guild.name}"})
        assert status == 200
        missed.append(message["id"])
    ws = await h.http.ws_connect(emu.gateway.url(RESUME_PATH) + QUERY)
    assert (await ws.receive_json())["op"] == 10
    resume = {"token": emu.token, "session_id": session.id, "seq": seq}
    await ws.send_json({"op": 6, "d": resume})
    again = RawSession(emu, ws)
    h.sessions.append(again)
    await emu.wait_for(lambda: "RESUMED" in again.names())
    assert again.names() == ["MESSAGE_CREATE", "RESUMED"]
    assert again.events[0]["d"]["id"] == missed[1]
    assert session.shard == [1, 2] and emu.gateway.sessions_for(b.id) == [session]
    assert emu.gateway.sessions_for(a.id) == []
    assert emu.violations == []


@pytest.mark.parametrize("shard", [[2, 2], [-1, 2], [0, 0], [0], "0", [0, "2"], [True, 2], {}])
async def test_a_malformed_shard_is_refused(emu: Emulator, h: Harness, shard: object) -> None:
    raw = await h.connect(shard, expect_ready=False)
    await asyncio.wait_for(raw.reader, 5)
    assert raw.ws.close_code == 4010 and raw.events == []
    assert [v.rule for v in emu.violations] == ["gateway.shard"]
    assert emu.gateway.sessions == {}


async def test_gateway_bot_recommends_shards(emu: Emulator, h: Harness) -> None:
    status, answer = await h.call("GET", "/gateway/bot")
    assert status == 200 and answer["shards"] >= 1 and answer["url"] == emu.gateway.url()
    limit = answer["session_start_limit"]
    assert limit["max_concurrency"] >= 1 and limit["remaining"] <= limit["total"]
    await h.connect([0, 2])
    status, after = await h.call("GET", "/gateway/bot")
    assert after["session_start_limit"]["remaining"] == limit["remaining"] - 1
    assert emu.violations == []


def test_shard_environment_is_parsed() -> None:
    assert shards_of({}) is None
    assert shards_of({"THOLOS_SHARD_COUNT": "4"}) == (4, [0, 1, 2, 3])
    assert shards_of({"THOLOS_SHARD_COUNT": "4", "THOLOS_SHARD_IDS": "0-3"}) == (4, [0, 1, 2, 3])
    assert shards_of({"THOLOS_SHARD_COUNT": "4", "THOLOS_SHARD_IDS": "0,2"}) == (4, [0, 2])
    assert shards_of({"THOLOS_SHARD_COUNT": "8", "THOLOS_SHARD_IDS": "1-2, 5"}) == (8, [1, 2, 5])


async def test_a_sharded_bot_gets_one_connection_per_shard(
    emu: Emulator, spawn_bot: SpawnBot
) -> None:
    """The real bot as an AutoShardedClient: one IDENTIFY per shard from one process, and a
    global command answered in both guilds, each by the connection of its shard."""
    a, b = guilds(emu)
    bot = spawn_bot(emu, env={"THOLOS_SHARD_COUNT": "2"}, guild_commands=False)
    await bot.start(sync=True)
    live = sorted(s.shard for s in emu.gateway.sessions.values() if s.live and s.shard)
    assert live == [[0, 2], [1, 2]]
    alice = emu.member("alice")
    for guild in (a, b):
        ix = await emu.slash(alice, "tholos rules", channel=emu.channel("general", guild))
        assert ix.acknowledged and not ix.failed
        (session,) = emu.gateway.sessions_for(guild.id)
        assert session.shard == [shard_of(guild.id, 2), 2]
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert emu.violations == []
