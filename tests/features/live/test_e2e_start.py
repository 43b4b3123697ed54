"""How the live board starts as real Discord runs it, end to end (the bot's own process, the
emulator as Discord, a real Chromium): a code exchange Discord rate limits (429) is waited out,
by the server or by the page; a frame whose storage throws still starts; a Discord client that
never says it is ready gets a message on the page; Discord launching the Activity in the
channel whose threads hold the games still finds them; and the Entry Point command, its handler
switched to the app, launches the Activity or says why not."""

from __future__ import annotations

import random
from urllib.parse import urlencode

import pytest
from playwright.async_api import Page, Response

from bot.i18n.catalogues import translator
from bot.web.words import STARTING
from tests.browser import chromium
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import ActivityInstance, Emulator, Interaction
from tests.e2e.emulator.activities import APP_HANDLER
from tests.e2e.table import Table
from tests.features.live.test_e2e_board import (
    PATIENCE_MS,
    click_a_turn,
    free_port,
    live_bot,
    page_url,
    shows,
)

TOKEN = "/oauth2/token"


def token_statuses(emulator: Emulator) -> list[int]:
    """The statuses the emulator answered ``POST /oauth2/token`` with, in order."""
    return [r.status for r in emulator.requests if r.method == "POST" and r.path.endswith(TOKEN)]


async def test_a_code_exchange_discord_rate_limits_is_waited_out(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """Discord answers the exchange 429 twice, briefly: the server waits as told and tries
    again, and the page starts. Then once, longer than the server waits itself: the page is
    told (its own 429, with Retry-After), says it tries again, waits as told, and starts."""
    bot, port = await live_bot(emulator, spawn_bot)
    lobby = Table(emulator)
    alice, bob = lobby.people_named("alice", "bob")
    table = await lobby.start_game_in_thread(alice, bob)
    await table.click(alice, table.board, table.labelled(table.board, "Open the live board"))
    async with chromium() as browser:
        emulator.rate_limit_token(0.2, 0.3)
        page = await browser.new_page()
        await page.goto(page_url(emulator, port, alice, table))
        await shows(page, str(table.position()))
        assert token_statuses(emulator) == [429, 429, 200]

        emulator.rate_limit_token(4.0)  # longer than the server waits for itself
        page = await browser.new_page()
        answers: list[Response] = []
        page.on(
            "response",
            lambda answer: answers.append(answer) if "/api/session" in answer.url else None,
        )
        await page.goto(page_url(emulator, port, bob, table))
        await page.wait_for_function(
            "() => document.body.dataset.connection === 'waiting'", timeout=PATIENCE_MS
        )
        waiting = await page.locator("#notice").inner_text()
        assert "trying again in 4 s" in waiting, waiting
        await shows(page, str(table.position()))
        assert [answer.status for answer in answers] == [429, 200]
        assert await answers[0].header_value("Retry-After") == "4"
        assert await page.locator("#notice").is_hidden()
    assert token_statuses(emulator) == [429, 429, 200, 429, 200]
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_a_page_whose_storage_throws_still_starts(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """A sandboxed or storage-partitioned frame throws on ``sessionStorage``: the page goes on
    without it."""
    bot, port = await live_bot(emulator, spawn_bot)
    lobby = Table(emulator)
    alice, bob = lobby.people_named("alice", "bob")
    table = await lobby.start_game_in_thread(alice, bob)
    await table.click(alice, table.board, table.labelled(table.board, "Open the live board"))
    async with chromium() as browser:
        page = await browser.new_page()
        await page.add_init_script(
            """Object.defineProperty(window, "sessionStorage", {
                get() { throw new DOMException("The operation is insecure.", "SecurityError"); },
            });"""
        )
        await page.goto(page_url(emulator, port, alice, table))
        await shows(page, str(table.position()))
        assert await page.evaluate(
            "() => { try { sessionStorage; return false; } catch { return true; } }"
        )
        assert await page.locator("#controls").is_visible()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_a_discord_client_that_never_says_ready_is_told_on_the_page(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """Opened as Discord opens it (``frame_id``, ``platform``) but with no Discord around it,
    the SDK never gets ready: after its timeout the page says so, in the browser's language
    (German here), instead of waiting for ever; with half of Discord's query string, it says
    it could not start."""
    bot, port = await live_bot(emulator, spawn_bot)
    query = urlencode({"frame_id": "f-1", "instance_id": "i-1", "platform": "desktop"})
    async with chromium() as browser:
        context = await browser.new_context(locale="de-DE")
        page = await context.new_page()
        await page.goto(f"http://127.0.0.1:{port}/?{query}")
        await page.wait_for_function(
            "() => document.body.dataset.connection === 'refused'", timeout=PATIENCE_MS
        )
        said = await page.locator("#notice").inner_text()
        assert said == translator("de")(STARTING["not_ready"]), said
        assert await page.locator("html").get_attribute("lang") == "de"
        await page.goto(f"http://127.0.0.1:{port}/?frame_id=f-1")  # the rest not there
        await page.wait_for_function(
            "() => document.body.dataset.connection === 'refused'", timeout=PATIENCE_MS
        )
        said = await page.locator("#notice").inner_text()
        assert said == translator("de")(STARTING["failed"]), said
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def look_for(page: Page, condition: str) -> None:
    await page.wait_for_function(condition, timeout=PATIENCE_MS)


async def test_a_page_launched_in_the_threads_parent_channel_finds_the_game(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
) -> None:
    """Discord launches the Activity in the channel, the game is played in a thread of it:
    its player's page shows it at once and plays a turn there; a spectator's page lists it,
    opens it, and goes back to the list."""
    rng = random.Random(seed)
    bot, port = await live_bot(emulator, spawn_bot)
    lobby = Table(emulator)
    alice, bob, carol = lobby.people_named("alice", "bob", "carol")
    table = await lobby.start_game_in_thread(alice, bob)
    instance = await emulator.launch_entry_point(carol, lobby.channel)
    assert (
        isinstance(instance, ActivityInstance) and emulator.activity_instance(table.channel) is None
    )
    async with chromium() as browser:
        player = await browser.new_page()
        await player.goto(page_url(emulator, port, alice, lobby))
        await shows(player, str(table.position()))
        before = table.position()
        await click_a_turn(player, rng)
        await emulator.wait_for(lambda: table.position() != before, what="the thread's next board")
        await shows(player, str(table.position()))

        spectator = await browser.new_page()
        await spectator.goto(page_url(emulator, port, carol, lobby))
        listed = spectator.locator("#here button")
        await listed.first.wait_for(timeout=PATIENCE_MS)
        assert await listed.count() == 1
        await listed.first.click()
        await shows(spectator, str(table.position()))
        assert await spectator.locator("#controls").is_hidden()
        await spectator.locator("#all-games").click()
        await look_for(spectator, "() => document.body.dataset.view === 'lobby'")
        assert await spectator.locator("#here button").count() == 1
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


@pytest.mark.parametrize("live", [True, False], ids=["live-board", "no-live-board"])
async def test_the_entry_point_with_the_apps_handler_launches_the_live_board(
    emulator: Emulator, spawn_bot: SpawnBot, live: bool
) -> None:
    """A host switched the Entry Point command's handler to the app: each launch reaches the
    bot as a command interaction of type 4, which it answers — launching the Activity where
    the member is, or (no live board served) telling them so, politely and privately — with no
    error in its log."""
    emulator.enable_activities(handler=APP_HANDLER)
    env = {"THOLOS_WEB_PORT": str(free_port())} if live else {}
    bot = spawn_bot(emulator, env=env)
    await bot.start(sync=True)
    alice = emulator.member("alice")
    games = emulator.channel("games")
    ix = await emulator.launch_entry_point(alice, games)
    assert isinstance(ix, Interaction) and ix.acknowledged and not ix.failed
    instance = emulator.activity_instance(games)
    if live:
        assert ix.ack_type == 12 and instance is not None and instance.users == [alice.id]
        assert ix.messages == []
    else:
        assert instance is None
        (told,) = ix.messages
        assert told.ephemeral and "live board isn't switched on" in told.text
        assert "/tholos challenge" in told.text or "</tholos challenge:" in told.text
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert emulator.violations == []


async def test_the_entry_point_is_offered_in_dms_and_group_dms_for_a_user_install(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """An Entry Point command Discord made for servers only (contexts, install types) is
    registered again by the bot, offered everywhere for both installs: a member who installed
    the app launches the live board in a group DM."""
    entry_point = emulator.enable_activities()
    entry_point.update(contexts=[0], integration_types=[0])  # as a portal may have left it
    assert emulator.state.commands.entry_point()["contexts"] == [0]
    bot = spawn_bot(emulator, guild_commands=False, env={"THOLOS_WEB_PORT": str(free_port())})
    await bot.start(sync=True)
    registered = emulator.state.commands.entry_point()
    assert (registered["contexts"], registered["integration_types"]) == ([0, 1, 2], [0, 1])
    alice, bob = emulator.member("alice"), emulator.member("bob")
    emulator.install_for_user(bob)
    instance = await emulator.launch_entry_point(bob, emulator.dm_between(bob, alice))
    assert isinstance(instance, ActivityInstance) and instance.users == [bob.id]
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert emulator.violations == []
