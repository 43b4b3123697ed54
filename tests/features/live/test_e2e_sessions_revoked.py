"""The live board's sessions revoked, end to end (the real bot serving the page, the emulator
as Discord, the page's WebSocket spoken raw): a member who closed the Activity cannot come back
with the session they had (once the bot has heard it from Discord: within 30 s);
``tholos-bot rotate-web-key`` beside the running bot closes the open pages and refuses every
session signed before, while a session Discord vouches for anew works."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp

from bot.web.limits import SESSION_CLOSE
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator
from tests.e2e.table import Table
from tests.e2e.test_privacy import live_bot, session_of
from tests.features.admin.test_e2e_backup import tholos_bot_command

FRAME_SECONDS = 30.0
"""The longest a socket waits for a frame (a rotated key is read within 10 s)."""


async def hello(http: aiohttp.ClientSession, port: int, session: str) -> Any:
    """A page's socket, its hello sent with ``session``."""
    socket = await http.ws_connect(f"ws://127.0.0.1:{port}/api/live")
    await socket.send_str(json.dumps({"type": "hello", "session": session}))
    return socket


async def first_frame(socket: Any) -> dict[str, Any]:
    """The first frame the server sends on ``socket``."""
    return json.loads(await socket.receive_str(timeout=FRAME_SECONDS))


async def closed_with(socket: Any) -> tuple[list[dict[str, Any]], int | None]:
    """The frames the server sends until it closes ``socket``, and the close code."""
    frames = []
    while True:
        message = await socket.receive(timeout=FRAME_SECONDS)
        if message.type == aiohttp.WSMsgType.TEXT:
            frames.append(json.loads(message.data))
            continue
        assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED), message
        return frames, socket.close_code


async def test_a_member_who_left_the_activity_or_a_rotated_key_is_refused(
    emulator: Emulator, spawn_bot: SpawnBot, tmp_path: Path
) -> None:
    bot, port = await live_bot(emulator, spawn_bot)
    lobby = Table(emulator)
    alice, bob, carol = lobby.people_named("alice", "bob", "carol")
    table = await lobby.start_game_in_thread(alice, bob)
    await table.click(alice, table.board, table.labelled(table.board, "Open the live board"))
    alices, bobs = [await session_of(port, emulator, who, table) for who in (alice, bob)]
    instance = emulator.activity_instance(table.channel)
    assert instance is not None
    emulator.leave_activity(bob, instance)  # Bob closes the Activity: his session is spent
    await session_of(port, emulator, carol, table)  # (seen when someone opens it next)

    async with aiohttp.ClientSession() as http:
        refused = await hello(http, port, bobs)
        frames, code = await closed_with(refused)
        assert code == SESSION_CLOSE and [frame["code"] for frame in frames] == ["session"]
        page = await hello(http, port, alices)
        assert (await first_frame(page))["type"] == "welcome"
        asked = [r for r in emulator.requests if "/activity-instances/" in r.path]
        assert len(asked) == 3  # the three sessions' answers serve the hellos

        status, out, err = await tholos_bot_command(tmp_path, bot.db_path, "rotate-web-key")
        assert status == 0 and out.startswith("Replaced the live board's session key"), err
        frames, code = await closed_with(page)  # the open page closed within 10 s
        assert code == SESSION_CLOSE and frames[-1]["code"] == "session"
        frames, code = await closed_with(await hello(http, port, alices))
        assert code == SESSION_CLOSE  # the old session refused from now on

        renewed = await hello(http, port, await session_of(port, emulator, alice, table))
        assert (await first_frame(renewed))["type"] == "welcome"
        await renewed.close()
    assert await bot.stop() == 0
    bot.assert_clean_log()
