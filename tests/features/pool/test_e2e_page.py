"""Quick pairing on the live page, in a real Chromium against the real bot: two servers open the
pool, Alice (a phone held upright) and Bob (a desktop) open the Activity in their servers'
channels, press a pace in the lobby, consent once, wait (the pace, how many wait, the time
waited), and the waves pair them: both pages show their game. A server that did not open the
pool offers none; Leave empties the queue; after a wait with nobody the AI is offered at the
member's level and played on the page.

``THOLOS_SCREENSHOTS=<folder>`` keeps the screenshots there (else the test's temporary
folder)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from urllib.parse import urlencode

import asyncpg
from playwright.async_api import Browser, Page

from engine.ai import LEVEL_RATINGS
from tests.browser import chromium
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import ActivityInstance, BotProcess, Channel, Emulator, Member
from tests.e2e.table import Table
from tests.e2e.test_shards import SHARDS, shard_env
from tests.features.live.test_e2e_board import PATIENCE_MS, errors_for, free_port
from tests.features.pool.test_e2e import open_pool
from tests.postgres import PostgresServer

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}


async def pool_bot(emulator: Emulator, spawn_bot: SpawnBot) -> tuple[BotProcess, int]:
    """A bot serving the live board (on a free port: returned), its commands registered in
    every server, games in threads."""
    emulator.enable_activities()
    port = free_port()
    env = {"THOLOS_THREADS": "on", "THOLOS_WEB_PORT": str(port)}
    bot = spawn_bot(emulator, guild_commands=False, env=env)
    await bot.start(sync=True)
    return bot, port


async def lobby_of(
    browser: Browser, emulator: Emulator, port: int, member: Member, channel: Channel, **look
) -> Page:
    """``member`` launches the Activity in ``channel`` (of a server) and opens its page, which
    shows the lobby (no game there)."""
    instance = await emulator.launch_entry_point(member, channel)
    assert isinstance(instance, ActivityInstance)
    query = {
        "instance_id": instance.id,
        "guild_id": channel.guild_id,
        "channel_id": channel.id,
        "code": emulator.authorize(member, instance),
    }
    page = await (await browser.new_context(**look)).new_page()
    await page.goto(f"http://127.0.0.1:{port}/?{urlencode(query)}")
    await page.wait_for_function(
        "() => document.body.dataset.view === 'lobby'", timeout=PATIENCE_MS
    )
    return page


async def consent(page: Page, pace: str) -> None:
    """Press ``pace`` in the lobby, then consent to the pool."""
    await page.locator(f'#paces button[data-pace="{pace}"]').click()
    await page.locator("#pool-consent").wait_for(state="visible", timeout=PATIENCE_MS)
    await page.locator("#pool-join").click()


async def join(page: Page, pace: str) -> None:
    """:func:`consent`, and the wait shows (nobody to pair with)."""
    await consent(page, pace)
    await page.locator("#pool-waiting").wait_for(state="visible", timeout=PATIENCE_MS)


def queue(bot: BotProcess) -> list[tuple[int, str]]:
    """Who waits in the pool, for which pace."""
    with sqlite3.connect(bot.db_path) as database:
        return database.execute("SELECT user_id, pace FROM pool_queue ORDER BY user_id").fetchall()


async def test_two_members_of_two_servers_pair_from_their_lobbies(
    emulator: Emulator, spawn_bot: SpawnBot, tmp_path: Path
) -> None:
    """Alice waits for 5+5 on her phone (consent first: what the pool is, her display name),
    Bob joins from his desktop: both pages show the rated pool game between them."""
    keep = Path(os.environ.get("THOLOS_SCREENSHOTS") or tmp_path)
    bot, port = await pool_bot(emulator, spawn_bot)
    second = emulator.add_guild("Tholos Two")
    here, there = Table(emulator), Table(emulator, "general", second)
    alice, bob = here.people_named("alice", "bob")
    await open_pool(here, alice)
    await open_pool(there, alice)
    async with chromium() as browser:
        alices = await lobby_of(browser, emulator, port, alice, here.channel, **PHONE)
        paces = await alices.locator("#paces button").all_inner_texts()
        assert paces[0] == "correspondence" and "live clock 5+5" in paces, paces
        levels = await alices.locator("#levels button").all_inner_texts()
        assert levels == [f"{level} · {rating}" for level, rating in LEVEL_RATINGS.items()]
        assert "Play the AI" in await alices.locator("#levels-title").inner_text()
        await alices.locator('#paces button[data-pace="5+5"]').click()
        question = alices.locator("#pool-consent-text")
        await question.wait_for(state="visible", timeout=PATIENCE_MS)
        said = await question.inner_text()
        assert "Discord display name (Alice)" in said and "live clock 5+5" in said, said
        await alices.screenshot(path=keep / "pool-consent-phone.png")
        assert queue(bot) == []  # nothing until she consents
        await alices.locator("#pool-join").click()
        await alices.locator("#pool-waiting").wait_for(state="visible", timeout=PATIENCE_MS)
        assert await alices.locator("#pool-count").inner_text() == (
            "1 member waits for this pace (you included)."
        )
        assert queue(bot) == [(alice.id, "5+5")]
        await alices.wait_for_function(  # the time waited counts on
            "() => /^Waiting for 0:0[1-9]/"
            ".test(document.querySelector('#pool-waited').textContent)",
            timeout=PATIENCE_MS,
        )
        assert await alices.locator('#paces button[aria-pressed="true"]').inner_text() == (
            "live clock 5+5"
        )
        await alices.screenshot(path=keep / "pool-waiting-phone.png")

        bobs = await lobby_of(browser, emulator, port, bob, there.channel, **DESKTOP)
        await consent(bobs, "5+5")  # paired at once: his wait may never show
        for page in (alices, bobs):
            await page.wait_for_function(
                "() => document.body.dataset.view === 'board'", timeout=PATIENCE_MS
            )
        with sqlite3.connect(bot.db_path) as database:
            [(game, white, black, pool, pace)] = database.execute(
                "SELECT id, white_id, black_id, pool, time_control FROM games"
            ).fetchall()
        assert {white, black} == {alice.id, bob.id} and (pool, pace) == (1, "5+5")
        for page in (alices, bobs):
            assert await page.evaluate("() => document.body.dataset.game") == str(game)
        mover = alices if white == alice.id else bobs
        await mover.wait_for_function(
            "() => document.body.dataset.controls === 'shown'", timeout=PATIENCE_MS
        )
        await alices.screenshot(path=keep / "pool-paired-phone.png")
        await bobs.screenshot(path=keep / "pool-paired-desktop.png")
    assert queue(bot) == []
    here.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_leave_and_a_server_that_did_not_open_the_pool(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """A server that did not open the pool offers no quick pairing (and refuses a page's
    message asking for it); once opened, a pace not offered, a pace that is no text and the AI
    before it is offered are refused; Alice waits and leaves: the queue is empty, the wait gone;
    pressing a pace again asks no consent."""
    bot, port = await pool_bot(emulator, spawn_bot)
    here = Table(emulator)
    (alice,) = here.people_named("alice")
    async with chromium() as browser:
        closed = await lobby_of(browser, emulator, port, alice, here.channel, **DESKTOP)
        assert await closed.locator("#pool").is_hidden()
        asked = [json.dumps({"type": "quick_pairing", "pace": "5+5"})]
        assert [error["code"] for error in await errors_for(closed, asked)] == ["no_game"]
        await open_pool(here, alice)
        page = await lobby_of(browser, emulator, port, alice, emulator.channel("games"), **DESKTOP)
        odd = [
            {"type": "quick_pairing", "pace": "1+0"},
            {"type": "quick_pairing", "pace": 7},
            {"type": "pool_ai", "rated": True},
        ]
        errors = await errors_for(page, [json.dumps(message) for message in odd])
        assert [error["code"] for error in errors] == ["refused", "malformed", "malformed"]
        assert "1+0" in errors[0]["message"]
        assert queue(bot) == []
        await join(page, "correspondence")
        assert queue(bot) == [(alice.id, "correspondence")]
        await page.locator("#pool-leave").click()
        await page.locator("#pool-waiting").wait_for(state="hidden", timeout=PATIENCE_MS)
        assert queue(bot) == []
        await page.locator('#paces button[data-pace="correspondence"]').click()
        await page.locator("#pool-waiting").wait_for(state="visible", timeout=PATIENCE_MS)
        assert await page.locator("#pool-consent").is_hidden()
        assert queue(bot) == [(alice.id, "correspondence")]
    here.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_the_ai_is_offered_after_a_wait_with_nobody(
    emulator: Emulator, spawn_bot: SpawnBot, tmp_path: Path
) -> None:
    """Alice waited for 3+2 with nobody (her wait's start moved a minute back in the store: the
    test does not wait 45 s); the next change of the queue (Bob waits for another pace) shows
    her the AI at her level (a newcomer: medium), rated or not; she plays it rated: her page
    shows the game against the AI, rated, at 3+2, and she left the queue."""
    keep = Path(os.environ.get("THOLOS_SCREENSHOTS") or tmp_path)
    bot, port = await pool_bot(emulator, spawn_bot)
    here = Table(emulator)
    alice, bob = here.people_named("alice", "bob")
    await open_pool(here, alice)
    async with chromium() as browser:
        alices = await lobby_of(browser, emulator, port, alice, here.channel, **PHONE)
        await join(alices, "3+2")
        assert await alices.locator("#pool-ai-rated").is_hidden()
        with sqlite3.connect(bot.db_path) as database:
            database.execute("UPDATE pool_queue SET since = since - 60")
        bobs = await lobby_of(browser, emulator, port, bob, emulator.channel("games"), **DESKTOP)
        await join(bobs, "correspondence")
        offer = alices.locator("#pool-ai-rated")
        await offer.wait_for(state="visible", timeout=PATIENCE_MS)
        level = f"medium · {LEVEL_RATINGS['medium']}"
        assert await offer.inner_text() == f"Play the AI, rated: {level}"
        assert await alices.locator("#pool-ai").inner_text() == f"Play the AI, unrated: {level}"
        await alices.screenshot(path=keep / "pool-ai-offer-phone.png")
        await offer.click()
        await alices.wait_for_function(
            "() => document.body.dataset.view === 'board'", timeout=PATIENCE_MS
        )
        assert queue(bot) == [(bob.id, "correspondence")]
        with sqlite3.connect(bot.db_path) as database:
            games = database.execute("SELECT ai_level, rated, time_control FROM games")
            assert games.fetchall() == [("medium", 1, "3+2")]
    here.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_paired_across_two_shard_processes(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer
) -> None:
    """Two bot processes on one PostgreSQL, each serving the live board and the shard of one
    server: Alice's page is served by the first, Bob's by the second; whichever process runs
    the wave, both pages hear their pairing (PostgreSQL NOTIFY) and show the game."""
    url = await postgres_server.create_database()
    emulator.enable_activities()
    guilds = [emulator.add_guild(f"Server {shard}", shard=(shard, SHARDS)) for shard in (0, 1)]
    ports = [free_port(), free_port()]
    bots = [
        spawn_bot(
            emulator,
            env={**shard_env(url, shard), "THOLOS_WEB_PORT": str(ports[shard])},
            guild_commands=False,
        )
        for shard in (0, 1)
    ]
    await bots[0].start(sync=True)
    await bots[1].start()
    here, there = (Table(emulator, "general", guild) for guild in guilds)
    alice, bob = here.people_named("alice", "bob")
    await open_pool(here, alice)
    await open_pool(there, alice)
    async with chromium() as browser:
        alices = await lobby_of(browser, emulator, ports[0], alice, here.channel, **DESKTOP)
        bobs = await lobby_of(browser, emulator, ports[1], bob, there.channel, **DESKTOP)
        await join(alices, "10+5")
        await consent(bobs, "10+5")
        for page in (alices, bobs):
            await page.wait_for_function(
                "() => document.body.dataset.view === 'board'", timeout=PATIENCE_MS
            )
        shown = {await page.evaluate("() => document.body.dataset.game") for page in (alices, bobs)}
        connection = await asyncpg.connect(url)
        try:
            games = await connection.fetch("SELECT id, white_id, black_id FROM games WHERE pool")
        finally:
            await connection.close()
        [(game, white, black)] = [tuple(row) for row in games]
        assert shown == {str(game)} and {white, black} == {alice.id, bob.id}
    for bot in bots:
        assert await bot.stop() == 0
        bot.assert_clean_log()
    here.assert_clean()
