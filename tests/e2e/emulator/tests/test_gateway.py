"""Self-tests of the gateway: handshake, compression, heartbeats, resume, re-identify, auth."""

from __future__ import annotations

import pytest

from tests.e2e.bots import TINYBOT, SpawnBot
from tests.e2e.emulator import Emulator
from tests.e2e.emulator.gateway import GUILDS, RESUME_PATH


async def test_handshake_compression_and_heartbeat(emulator: Emulator, spawn_bot: SpawnBot) -> None:
    bot = spawn_bot(emulator, TINYBOT)
    await bot.start()
    (conn,) = emulator.gateway.connections
    assert conn.path == "/gateway" and conn.codec.compress == "zlib-stream"
    assert conn.request.query["v"] == "10" and conn.request.query["encoding"] == "json"
    await emulator.wait_for(lambda: conn.heartbeats >= 1, what="the first heartbeat")
    assert conn.session is not None and conn.session.intents & GUILDS
    assert await bot.stop() == 0
    bot.assert_clean_log()


@pytest.mark.parametrize("close_code", [4000, None], ids=["closed", "cut"])
async def test_resume_after_dropped_connection(
    emulator: Emulator, spawn_bot: SpawnBot, close_code: int | None
) -> None:
    bot = spawn_bot(emulator, TINYBOT)
    await bot.start()
    alice = emulator.member("alice")
    assert (await emulator.slash(alice, "tiny ping")).ack_type == 4
    await emulator.drop_connection(close_code)
    missed = await emulator.slash(alice, "tiny echo", text="while away", wait=False)
    await emulator.wait_for(lambda: emulator.gateway.resumes == 1, what="RESUME")
    await emulator.wait_for(lambda: missed.acknowledged, what="the missed interaction")
    assert missed.messages[0].content == "while away"
    assert emulator.gateway.identifies == 1
    assert emulator.gateway.connections[-1].path == RESUME_PATH
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert emulator.violations == []


async def test_identify_again_when_the_session_is_gone(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    bot = spawn_bot(emulator, TINYBOT)
    await bot.start()
    emulator.forget_sessions()
    await emulator.drop_connection()
    await emulator.wait_connected(identifies=2)
    ix = await emulator.slash(emulator.member("carol"), "tiny ping")
    assert ix.ack_type == 4 and emulator.gateway.resumes == 0
    assert await bot.stop() == 0
    bot.assert_clean_log()


@pytest.mark.parametrize(
    ("intent", "cache"), [("0", "1 cached, chunked=False"), ("1", "4 cached, chunked=True")]
)
async def test_member_cache_follows_the_intents(
    emulator: Emulator, spawn_bot: SpawnBot, intent: str, cache: str
) -> None:
    """Without GUILD_PRESENCES, GUILD_CREATE lists only the bot; the members intent makes
    discord.py request the rest (REQUEST_GUILD_MEMBERS)."""
    bot = spawn_bot(emulator, TINYBOT, env={"TINYBOT_MEMBERS_INTENT": intent})
    await bot.start()
    if intent == "1":
        await emulator.wait_for(lambda: emulator.gateway.member_requests == 1, what="chunking")
    ix = await emulator.slash(emulator.member("alice"), "tiny members")
    assert ix.messages[0].content == cache
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_wrong_token_is_refused(emulator: Emulator, spawn_bot: SpawnBot) -> None:
    bot = spawn_bot(emulator, TINYBOT, env={"DISCORD_TOKEN": "not.the.token"})
    await bot.start(wait=False)
    await emulator.wait_for(lambda: not bot.running, what="the bot to give up")
    assert bot.process is not None and bot.process.returncode != 0
    assert "Improper token" in bot.log()
    assert [(v.rule, v.status) for v in emulator.violations] == [("http.unauthorized", 401)]
    assert emulator.gateway.connections == []
