"""A database that stops taking writes mid-game (a full disk, a read-only database), end to end:
the real bot on a real PostgreSQL as a role whose write rights are revoked, then granted back
(the deterministic stand-in for a disk that fills, then is freed). A step pressed in Discord is
answered privately, in the member's language, that nothing can be saved and nothing was lost;
a turn sent from the live page gets the same words and the page stays connected; ``/healthz``
says ``cannot_write``; once writes are taken again, the game goes on from where it was."""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from bot.discord.answers import CANNOT_SAVE
from bot.i18n.catalogues import translator
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator
from tests.e2e.table import Table, path_of
from tests.e2e.test_privacy import THREADS_AND_PAGE, session_of
from tests.features.live.test_e2e_board import free_port
from tests.postgres import PostgresServer
from tests.storage.test_database_cannot_write import player_role, write_rights

FRAME_SECONDS = 20.0


async def health(bot: Any) -> tuple[int, dict[str, Any]]:
    """``/healthz``'s status and body."""
    url = (await bot.metrics_url()).replace("/metrics", "/healthz")
    async with aiohttp.ClientSession() as http, http.get(url) as answer:
        return answer.status, await answer.json()


async def frame_of(socket: Any, kind: str) -> dict[str, Any]:
    """The next frame of type ``kind`` the server sends on ``socket``."""
    while True:
        frame = json.loads(await socket.receive_str(timeout=FRAME_SECONDS))
        if frame["type"] == kind:
            return frame


async def test_a_database_that_stops_taking_writes_mid_game_loses_nothing(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer
) -> None:
    owner, role_url = await player_role(await postgres_server.create_database())
    emulator.enable_activities()
    port = free_port()
    env = {**THREADS_AND_PAGE, "THOLOS_WEB_PORT": str(port), "THOLOS_DB": role_url}
    bot = spawn_bot(emulator, env=env)
    await bot.start(sync=True)
    lobby = Table(emulator)
    alice, bob = lobby.people_named("alice", "bob")
    emulator.set_locale(alice, "es-ES")
    table = await lobby.start_game_in_thread(alice, bob)
    await table.click(alice, table.board, table.labelled(table.board, "Open the live board"))
    before = table.position()
    await bot.settle()
    cannot_save = translator("es")(CANNOT_SAVE)
    assert cannot_save != CANNOT_SAVE  # translated

    async with aiohttp.ClientSession() as http:
        session = await session_of(port, emulator, alice, table)
        page = await http.ws_connect(f"ws://127.0.0.1:{port}/api/live")
        await page.send_str(json.dumps({"type": "hello", "session": session}))
        board = await frame_of(page, "board")
        await write_rights(owner, role_url, granted=False)  # the disk is full
        try:
            press = await table.click(alice, table.board, table.custom_id(table.board, ":Tw1:n"))
            assert press.acknowledged
            assert cannot_save in table.ephemeral(alice)
            turn = {"type": "turn", "game": board["game"], "version": board["version"]}
            await page.send_str(json.dumps({**turn, "path": path_of(before, "+w1")}))
            refused = await frame_of(page, "error")
            assert (refused["code"], refused["message"]) == ("database", cannot_save)
            status, body = await health(bot)
            assert (status, body["database"]) == (503, "cannot_write")
        finally:
            await write_rights(owner, role_url, granted=True)  # space is back
        assert table.position() == before  # nothing changed, nothing lost
        status, body = await health(bot)
        assert (status, body["database"]) == (200, "ok")

        await page.send_str(json.dumps({**turn, "path": path_of(before, "+w1")}))
        await table.emu.wait_for(lambda: table.position() != before, what="the page's turn")
        assert str(table.position()) == "-/-/-/-/-/-/- www bb b -"
        assert not page.closed  # the same socket all along
        await page.close()
    await owner.close()
    assert await bot.stop() == 0
    bot.assert_clean_log()
