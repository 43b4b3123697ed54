"""The live board end to end, in a real Chromium: the bot serves the Activity's page; Discord
(the emulator) launches the Activity in a game's thread and gives each member an authorization
code; two players and a spectator open the page outside Discord (the SDK's mock, told by the
query string what Discord would tell it), and the game is played by clicking the page and by
the Discord buttons. After every turn the three pages and the thread's newest board show the
same position; the spectator cannot move; forged messages change nothing; a kill -9 of the bot
is survived by reconnecting with the same sessions."""

from __future__ import annotations

import json
import random
import socket
import sqlite3
from urllib.parse import urlencode

import aiohttp
from playwright.async_api import Browser, Page

from tests.browser import chromium
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Member
from tests.e2e.table import Table
from tests.e2e.test_shards import shard_env
from tests.postgres import PostgresServer

MOST_TURNS = 200
PATIENCE_MS = 30_000
"""How long a page may take to show a change (the wait ends when it does)."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def page_url(emulator: Emulator, port: int, member: Member, table: Table) -> str:
    """The address ``member``'s page of ``table``'s channel opens, as the mock SDK would in
    Discord: its query string carries the instance, the place and the member's code."""
    instance = emulator.activity_instance(table.channel)
    assert instance is not None, "the Activity runs in the game's thread"
    query = {
        "instance_id": instance.id,
        "guild_id": emulator.guild.id,
        "channel_id": table.channel.id,
        "code": emulator.authorize(member, instance),
    }
    return f"http://127.0.0.1:{port}/?{urlencode(query)}"


async def open_page(
    browser: Browser,
    emulator: Emulator,
    port: int,
    member: Member,
    table: Table,
    size: tuple[int, int] = (1280, 900),
) -> Page:
    """``member`` opens the live board of ``table``'s channel (:func:`page_url`)."""
    page = await browser.new_page(viewport={"width": size[0], "height": size[1]})
    await page.goto(page_url(emulator, port, member, table))
    return page


async def shows(page: Page, position: str) -> None:
    """Wait until ``page`` shows ``position`` (its small print, and its data attribute)."""
    await page.wait_for_function(
        "position => document.body.dataset.position === position"
        " && document.body.dataset.connection === 'open'",
        arg=position,
        timeout=PATIENCE_MS,
    )
    assert (await page.locator("#small-print").inner_text()).endswith(position)


async def click_a_turn(page: Page, rng: random.Random) -> str:
    """Compose a random turn on ``page`` by clicking random enabled choices, then play it;
    the path sent."""
    while not await page.locator("#confirm").is_visible():
        choices = page.locator("#targets button:enabled, #options button:enabled")
        count = await choices.count()
        assert count > 0, "a step without an enabled choice"
        choice = choices.nth(rng.randrange(count))
        path = await choice.get_attribute("data-path")
        assert path is not None
        await choice.click()
    await page.locator("#confirm").click()
    return path


async def live_bot(emulator: Emulator, spawn_bot: SpawnBot) -> tuple[BotProcess, int]:
    """A bot that serves the live board (on a free port: returned) and plays games in
    threads, started, on an emulator with Activities on."""
    emulator.enable_activities()
    port = free_port()
    bot = spawn_bot(emulator, env={"THOLOS_THREADS": "on", "THOLOS_WEB_PORT": str(port)})
    await bot.start(sync=True)
    return bot, port


def seconds(clock: str) -> int:
    """The time a clock shows (``White 4:58`` → 298)."""
    minutes, secs = clock.split()[-1].split(":")
    return int(minutes) * 60 + int(secs)


def versions(bot: BotProcess) -> dict[int, int]:
    with sqlite3.connect(bot.db_path) as database:
        return dict(database.execute("SELECT id, version FROM games").fetchall())


async def errors_for(page: Page, messages: list[str]) -> list[dict]:
    """The error frames the server answers ``messages`` with (as sent, one a WebSocket
    message), on a socket of the page's own session."""
    return await page.evaluate(
        """async (messages) => {
            const socket = new WebSocket(`ws://${location.host}/api/live`);
            const got = [];
            await new Promise((ok) => socket.addEventListener("open", ok));
            socket.send(JSON.stringify({type: "hello",
                                        session: sessionStorage.getItem("session")}));
            socket.addEventListener("message", (event) => got.push(JSON.parse(event.data)));
            for (const message of messages) socket.send(message);
            const deadline = Date.now() + 20000;
            while (got.filter((f) => f.type === "error").length < messages.length
                   && Date.now() < deadline) {
                await new Promise((done) => setTimeout(done, 20));
            }
            socket.close();
            return got.filter((f) => f.type === "error");
        }""",
        messages,
    )


async def forged_messages_change_nothing(bot: BotProcess, spectator: Page) -> None:
    """The spectator's page sends a turn (its own WebSocket, its own session) and a message
    that is no JSON: both refused with an error frame, nothing stored."""
    stored = versions(bot)
    game_id = int(await spectator.evaluate("document.body.dataset.game"))
    version = int(await spectator.evaluate("document.body.dataset.version"))
    errors = await errors_for(
        spectator,
        [
            json.dumps({"type": "turn", "game": game_id, "version": version, "path": "Tw1"}),
            "{not json",
        ],
    )
    answers = [error["code"] for error in errors]
    assert answers == ["spectator", "malformed"]
    assert versions(bot) == stored


async def test_two_players_and_a_spectator_play_on_the_live_board(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
) -> None:
    """A whole game in a thread, two turns in three clicked on the page, the third with the
    buttons; a kill -9 on the way; after every turn the three pages show the thread's board."""
    rng = random.Random(seed)
    bot, port = await live_bot(emulator, spawn_bot)
    lobby = Table(emulator)
    alice, bob, carol = lobby.people_named("alice", "bob", "carol")
    emulator.set_locale(carol, "es-ES")
    table = await lobby.start_game_in_thread(alice, bob)
    opening = table.labelled(table.board, "Open the live board")
    launched = await table.click(alice, table.board, opening)
    assert emulator.activity_instance(table.channel) is not None, launched
    async with chromium() as browser:
        pages = {
            member.id: await open_page(browser, emulator, port, member, table)
            for member in (alice, bob)
        }
        spectator = await open_page(browser, emulator, port, carol, table, size=(390, 844))
        everyone = [*pages.values(), spectator]
        for page in everyone:
            await shows(page, str(table.position()))
        assert await spectator.locator("#controls").is_hidden()
        assert await spectator.locator("html").get_attribute("lang") == "es"

        clicked = turns = 0
        while not table.status().startswith("Game over."):
            assert turns < MOST_TURNS, "the game should have ended"
            if turns == 3:
                await forged_messages_change_nothing(bot, spectator)
            if turns == 6:  # kill -9: the pages reconnect with their sessions and catch up
                assert await bot.kill() == -9  # on a turn made while they are away
                await bot.start()
                await table.play(rng.choice(table.position().legal_turns()))
                turns += 1
                for page in everyone:
                    await shows(page, str(table.position()))
                continue
            mover, before = table.mover(), table.position()
            if turns % 3 == 2:  # now and then with Discord's buttons
                await table.play(rng.choice(before.legal_turns()))
            else:
                assert await pages[mover.id].locator("#controls").is_visible()
                other = pages[next(m for m in pages if m != mover.id)]
                assert await other.locator("#controls").is_hidden()
                await click_a_turn(pages[mover.id], rng)
                clicked += 1
                await emulator.wait_for(
                    lambda b=before: table.position() != b, what="the thread's next board"
                )
            turns += 1
            for page in everyone:
                await shows(page, str(table.position()))
        assert clicked >= turns // 2
        for page in everyone:  # the end: the result, no controls
            assert await page.evaluate("document.body.dataset.phase") == "over"
            assert await page.locator("#controls").is_hidden()
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_a_session_only_for_a_fresh_code_of_a_member_in_the_activity(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """The server asks Discord: a forged or reused code, or a member who is not in the
    Activity, gets no session (in the browser's language); a fresh code of a member in it
    does."""
    emulator.enable_activities()
    port = free_port()
    bot = spawn_bot(emulator, env={"THOLOS_THREADS": "off", "THOLOS_WEB_PORT": str(port)})
    await bot.start(sync=True)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await table.start_game(alice, bob)
    await table.click(alice, table.board, table.labelled(table.board, "Open the live board"))
    instance = emulator.activity_instance(table.channel)
    assert instance is not None
    outsider = emulator.add_person("dave")
    url = f"http://127.0.0.1:{port}/api/session"
    async with aiohttp.ClientSession(headers={"Accept-Language": "es-ES,es;q=0.9"}) as http:

        async def ask(code: str) -> tuple[int, dict[str, str]]:
            async with http.post(url, json={"code": code, "instance_id": instance.id}) as answer:
                return answer.status, await answer.json()

        good = emulator.authorize(alice, instance)
        status, body = await ask(good)
        assert status == 200 and body["user"] == str(alice.id) and body["session"]
        for code in (good, "forged", emulator.authorize(outsider)):
            status, body = await ask(code)
            assert status == 403 and body["error"] in ("not_vouched", "not_in_activity"), body
            assert ("Discord" in body["message"] and "vuelve" in body["message"]) or (
                "únete" in body["message"]
            )
        async with http.post(url, data=b"{") as answer:
            assert answer.status == 400
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_a_turn_stored_by_one_process_reaches_a_page_served_by_another(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer, seed: int
) -> None:
    """Two bot processes on one PostgreSQL database, each serving the live board: the game's
    server is shard 0's, so its presses go to the first process; a page connected to the second
    process sees each turn (PostgreSQL NOTIFY), and its player's turn, played through the second
    process, is posted on Discord by it and reaches a page on the first."""
    rng = random.Random(seed)
    url = await postgres_server.create_database()
    emulator.enable_activities()
    guild = emulator.add_guild("Shard 0", shard=(0, 2))
    ports = [free_port(), free_port()]
    bots = [
        spawn_bot(
            emulator,
            env={
                **shard_env(url, shard),
                "THOLOS_THREADS": "off",
                "THOLOS_WEB_PORT": str(ports[shard]),
            },
            guild_commands=False,
        )
        for shard in (0, 1)
    ]
    await bots[0].start(sync=True)
    await bots[1].start()
    table = Table(emulator, "games", guild=guild)
    alice, bob = table.people_named("alice", "bob")
    await table.start_game(alice, bob)
    await table.click(alice, table.board, table.labelled(table.board, "Open the live board"))
    async with chromium() as browser:
        on_second = await open_page(browser, emulator, ports[1], alice, table)
        on_first = await open_page(browser, emulator, ports[0], bob, table)
        through_page = 0
        for _ in range(4):
            before = table.position()
            if table.mover() == alice:  # through the page on the second process
                await click_a_turn(on_second, rng)
                through_page += 1
                await emulator.wait_for(
                    lambda b=before: table.position() != b,
                    what="the board the second process posts",
                )
            else:  # through Discord, which sends the presses to the first process
                await table.play(rng.choice(before.legal_turns()))
            for page in (on_second, on_first):
                await shows(page, str(table.position()))
        assert through_page == 2
    for bot in bots:
        assert await bot.stop() == 0
        bot.assert_clean_log()
    table.assert_clean()


async def test_a_live_games_clocks_run_on_the_page(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int, tmp_path
) -> None:
    """A game on a 5+5 clock: the page shows both clocks, the mover's counting down; a turn
    clicked on the page stops it (with the increment) and starts the other's once its board
    is out."""
    rng = random.Random(seed)
    bot, port = await live_bot(emulator, spawn_bot)
    lobby = Table(emulator)
    alice, bob = lobby.people_named("alice", "bob")
    table = await lobby.start_game_in_thread(alice, bob, pace="5+5")
    await table.click(alice, table.board, table.labelled(table.board, "Open the live board"))
    running = "#clocks .clock.running"
    async with chromium() as browser:
        page = await open_page(browser, emulator, port, alice, table)
        await shows(page, str(table.position()))
        assert await page.locator(running).get_attribute("data-colour") == "white"
        shown = await page.locator(running).inner_text()
        assert 240 < seconds(shown) <= 300, shown
        await page.wait_for_function(  # it ticks: a second later it shows less
            "shown => document.querySelector('#clocks .clock.running').textContent !== shown",
            arg=shown,
            timeout=PATIENCE_MS,
        )
        before = table.position()
        ticked = seconds(await page.locator(running).inner_text())
        await click_a_turn(page, rng)
        await emulator.wait_for(lambda: table.position() != before, what="the next board")
        await shows(page, str(table.position()))
        await page.wait_for_function(  # Bob's clock starts once his board's start is stored
            "() => document.querySelector('#clocks .clock.running')?.dataset.colour === 'black'",
            timeout=PATIENCE_MS,
        )
        white = await page.locator("#clocks .clock[data-colour=white]").inner_text()
        assert 240 < seconds(white) <= ticked + 6, white  # her time at the press, plus 5 s
        await page.screenshot(path=tmp_path / "clocks.png", full_page=True)
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()
