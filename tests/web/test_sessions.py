"""Secrets at rest: the SQLite file (which holds the key that signs the live board's sessions)
and its ``-wal`` and ``-shm`` readable by their owner only."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import stat
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.storage import open_database
from bot.storage.db import set_meta
from bot.web import sessions as sessions_module
from bot.web.identity import DiscordIdentity
from bot.web.sessions import (
    Session,
    Sessions,
    follow_session_key,
    rotate_session_key,
    session_key,
)

COMPANIONS = ("", "-wal", "-shm")
NOW = 1_000_000.0
SESSION = Session(100, "Ana", "es-ES", 10, 1, "i-1", NOW + 3600)


def modes(path: Path) -> dict[str, int]:
    return {suffix: stat.S_IMODE(os.stat(f"{path}{suffix}").st_mode) for suffix in COMPANIONS}


@pytest.fixture
def lax_umask() -> Iterator[None]:
    """A umask that lets others read new files (the usual 022)."""
    before = os.umask(0o022)
    yield
    os.umask(before)


@pytest.mark.usefixtures("lax_umask")
async def test_a_new_database_and_its_wal_and_shm_are_its_owners_only(tmp_path):
    path = tmp_path / "tholos.db"
    database = await open_database(str(path))
    try:
        await set_meta(database, "written", "yes")  # the -wal and -shm exist once it writes
        assert modes(path) == {"": 0o600, "-wal": 0o600, "-shm": 0o600}
        assert stat.S_IMODE(os.stat(f"{path}.lock").st_mode) == 0o600  # empty, but alike
    finally:
        await database.close()


@pytest.mark.usefixtures("lax_umask")
async def test_a_database_others_could_read_is_tightened_with_a_word(tmp_path, caplog):
    path = tmp_path / "tholos.db"
    made = sqlite3.connect(path)  # a bot before this one made it 0644, its -wal and -shm too
    made.execute("PRAGMA journal_mode = WAL")
    made.execute("CREATE TABLE kept (x)")
    made.execute("INSERT INTO kept VALUES (1)")
    made.commit()
    for suffix in COMPANIONS:
        os.chmod(f"{path}{suffix}", 0o644)
    with caplog.at_level(logging.WARNING, logger="bot.storage.sqlite"):
        database = await open_database(str(path))
    made.close()
    try:
        assert modes(path) == {"": 0o600, "-wal": 0o600, "-shm": 0o600}
        warned = [record.getMessage() for record in caplog.records]
        assert len(warned) == 3 and all("was readable by others (mode 644)" in w for w in warned)
        assert (await database.fetchone("SELECT x FROM kept"))[0] == 1
    finally:
        await database.close()


async def test_a_rotated_key_refuses_the_sessions_signed_before(tmp_path, monkeypatch):
    """``rotate-web-key``'s new key is read by a running process (its pages closed), which
    then refuses the old sessions and reads the new ones."""
    monkeypatch.setattr(sessions_module, "KEY_CHECK_SECONDS", 0.01)
    database = await open_database(str(tmp_path / "tholos.db"))
    try:
        sessions = Sessions(await session_key(database))
        old = sessions.issue(SESSION)
        assert sessions.read(old, NOW) == SESSION
        replaced = asyncio.Event()

        async def close_pages() -> None:
            replaced.set()

        following = asyncio.create_task(follow_session_key(database, sessions, close_pages))
        try:
            await rotate_session_key(database)
            await asyncio.wait_for(replaced.wait(), 10)
        finally:
            following.cancel()
        assert sessions.read(old, NOW) is None
        new = sessions.issue(SESSION)
        assert sessions.read(new, NOW) == SESSION
        assert Sessions(await session_key(database)).read(new, NOW) == SESSION  # shared
    finally:
        await database.close()


class Response:
    """What discord.py's HTTP errors read of a response."""

    def __init__(self, status: int) -> None:
        self.status, self.reason = status, "test"


class Instances:
    """Discord's activity instances for the identity: who is in each, or an error to raise;
    every request counted."""

    def __init__(self) -> None:
        self.users: dict[str, list[str]] = {}
        self.locations: dict[str, dict[str, str]] = {}
        """Where each instance runs, as Discord says (default: channel 10 of no server)."""
        self.error: Exception | None = None
        self.asked: list[str] = []
        self.answer = asyncio.Event()
        self.answer.set()

    async def request(self, route: Any) -> dict[str, Any]:
        instance = route.url.rsplit("/", 1)[1]  # the address's last part: the instance
        self.asked.append(instance)
        await self.answer.wait()
        if self.error is not None:
            raise self.error
        if instance not in self.users:
            raise discord.NotFound(Response(404), "Unknown Application")  # type: ignore[arg-type]
        location = self.locations.get(instance, {"channel_id": "10"})
        return {"location": location, "users": self.users[instance]}


def identity_over(instances: Instances, presence_seconds: float = 30.0) -> DiscordIdentity:
    client = type("Client", (), {"application_id": 1, "http": instances})()
    return DiscordIdentity(client, "secret", presence_seconds)  # type: ignore[arg-type]


def in_instance(instance: str, user_id: int) -> Session:
    return replace(SESSION, instance_id=instance, user_id=user_id)


async def test_a_member_who_left_the_activity_is_refused_and_discord_is_asked_once():
    """A reconnect storm of one instance asks Discord once; a member not in the instance, or
    in an instance that ended, is refused; the answer is kept PRESENCE_SECONDS."""
    instances = Instances()
    instances.users = {"i-1": ["100", "200"]}
    identity = identity_over(instances)
    instances.answer.clear()  # every page asks before Discord answers
    storm = [identity.still_there(in_instance("i-1", user)) for user in (100, 200, 300) * 10]
    asking = asyncio.gather(*storm)
    await asyncio.sleep(0)
    instances.answer.set()
    assert await asking == [True, True, False] * 10
    assert len(instances.asked) == 1
    instances.users["i-1"] = ["100"]  # Bob left: the answer kept has him for a while yet
    assert await identity.still_there(in_instance("i-1", 200))
    assert not await identity.still_there(in_instance("i-ended", 100))  # 404: it ended
    assert len(instances.asked) == 2
    instances.users["i-1"] = ["100", "300"]  # Carol joins, and is given a session
    assert (await identity.place("i-1")).users == {100, 300}
    assert await identity.still_there(in_instance("i-1", 300))  # the answer she brought
    assert not await identity.still_there(in_instance("i-1", 200))  # Bob's leaving with it
    assert len(instances.asked) == 3


async def test_an_outage_lets_members_in_and_a_refusal_keeps_them_out():
    """Discord failing (5xx, a timeout) lets the page in (the session was vouched for); a
    definite answer (403) keeps it out."""
    instances = Instances()
    identity = identity_over(instances, presence_seconds=0.0)
    instances.error = discord.DiscordServerError(Response(503), "down")  # type: ignore[arg-type]
    assert await identity.still_there(in_instance("i-1", 100))
    instances.error = TimeoutError()
    assert await identity.still_there(in_instance("i-1", 100))
    instances.error = discord.Forbidden(Response(403), "Missing Access")  # type: ignore[arg-type]
    assert not await identity.still_there(in_instance("i-1", 100))
    assert len(instances.asked) == 3  # nothing kept: asked each time


async def test_a_hello_is_admitted_only_while_its_member_is_there():
    there = {100}

    async def presence(session: Session) -> bool:
        return session.user_id in there

    sessions = Sessions(b"k" * 32, presence)
    token = sessions.issue(SESSION)
    assert await sessions.admit(token, NOW) == SESSION
    there.clear()
    assert await sessions.admit(token, NOW) is None
    assert await sessions.admit("forged", NOW) is None


async def test_an_instance_is_placed_where_discord_says_it_runs_in_a_dm_or_a_server():
    """A DM's or a group DM's instance (location kind ``pc``: no server) and a server's
    (``gc``) are placed in the channel Discord names, with who is in them — whatever the
    instance's id says."""
    instances = Instances()
    instances.users = {"i-1-pc-999": ["100", "200", "300"], "i-2-gc-5-6": ["100"]}
    instances.locations = {
        "i-1-pc-999": {"id": "pc-500", "kind": "pc", "channel_id": "500"},
        "i-2-gc-5-6": {"id": "gc-5-6", "kind": "gc", "channel_id": "6", "guild_id": "5"},
    }
    identity = identity_over(instances)
    group_dm = await identity.place("i-1-pc-999")
    assert (group_dm.channel_id, group_dm.guild_id, group_dm.users) == (500, None, {100, 200, 300})
    server = await identity.place("i-2-gc-5-6")
    assert (server.channel_id, server.guild_id, server.users) == (6, 5, {100})
