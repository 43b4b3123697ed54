"""The live board where the bot is not, end to end (the bot's own process, the emulator as
Discord, a real Chromium): a game between members in a group DM — reached by one member's
install of the app — launched from its board's **Open the live board** by Carol (who has not
installed the app), opened on the page by its three participants. Its players play it there,
the third watches; the page names the instance's participants (Discord's client tells it, and
tells it again when someone joins), sets the player's rich presence (the turn, the opponent,
the pace), and its Invite shares a link (a group DM has no invite dialog). Nothing is posted
where the bot is not, and a press on the chat's old board right after shows the page's turn.
An open challenge's empty seat taken from the page in a DM; a game in a server without the bot
played on the page, its lobby offering no AI; Invite in a server opens Discord's invite dialog,
and shares a link where Discord refuses the dialog. ``THOLOS_SCREENSHOTS=folder`` keeps the
screenshots."""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode

from playwright.async_api import Browser, ConsoleMessage, Page

from tests.browser import chromium
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import ActivityInstance, Channel, Emulator, Member
from tests.e2e.table import Table
from tests.features.live.test_e2e_board import (
    PATIENCE_MS,
    click_a_turn,
    free_port,
    live_bot,
    page_url,
    shows,
)

SCREENSHOTS = os.environ.get("THOLOS_SCREENSHOTS")
"""A folder to keep this test's screenshots in (else the test's own temporary folder)."""


class SdkCalls:
    """The Embedded App SDK commands a page made, as the SDK's mock logs them: each one's name
    and first argument."""

    def __init__(self, page: Page) -> None:
        self.calls: list[tuple[str, dict]] = []
        page.on("console", self._heard)

    def _heard(self, message: ConsoleMessage) -> None:
        text = message.text
        if text.startswith("DiscordSDKMock: "):
            name, _, args = text.removeprefix("DiscordSDKMock: ").partition("(")
            given = json.loads(args.removesuffix(")") or "[]")  # its arguments, logged as JSON
            self.calls.append((name, given[0] if given else {}))

    def of(self, name: str) -> list[dict]:
        return [args for called, args in self.calls if called == name]


async def open_in(
    browser: Browser,
    emulator: Emulator,
    port: int,
    member: Member,
    instance: ActivityInstance,
    guild_id: int | None = None,
) -> tuple[Page, SdkCalls]:
    """``member`` opens the live board of ``instance``, as Discord's client would (no
    ``guild_id`` in a DM or group DM), outside Discord (the SDK's mock)."""
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    calls = SdkCalls(page)
    query = {
        "instance_id": instance.id,
        "channel_id": instance.channel.id,
        "code": emulator.authorize(member, instance),
    }
    if guild_id is not None:
        query["guild_id"] = guild_id
    await page.goto(f"http://127.0.0.1:{port}/?{urlencode(query)}")
    return page, calls


async def join(emulator: Emulator, page: Page, instance: ActivityInstance, *names: str) -> None:
    """Discord's client tells ``page`` who is in the instance now (its participants update)."""
    participants = [
        {"id": str(emulator.member(name).id), "username": name, "global_name": name.title()}
        for name in names
    ]
    await page.evaluate(
        "participants => window.discordMock.emitEvent("
        "'ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE', { participants })",
        participants,
    )


async def until(found: Callable[[], list]) -> list:
    """What ``found`` finds, once it finds something (within the tests' patience)."""
    async with asyncio.timeout(PATIENCE_MS / 1000):
        while not (what := found()):
            await asyncio.sleep(0.05)
    return what


async def group_game(emulator: Emulator, table: Table, alice: Member, bob: Member) -> None:
    """Alice challenges Bob in the group DM (her install of the app), Bob accepts."""
    ix = await table.slash(alice, "tholos challenge", opponent=bob)
    assert ix.original is not None, ix
    await table.click(bob, ix.original, table.custom_id(ix.original, ":accept"))
    await emulator.wait_for(lambda: table.boards(), what="the game's first board")


async def test_a_group_dm_game_is_played_and_watched_on_the_live_board(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int, tmp_path: Path
) -> None:
    rng = random.Random(seed)
    emulator.enable_activities()
    port = free_port()
    bot = spawn_bot(emulator, guild_commands=False, env={"THOLOS_WEB_PORT": str(port)})
    await bot.start(sync=True)
    alice, bob, carol = (emulator.member(name) for name in ("alice", "bob", "carol"))
    emulator.install_for_user(alice)
    group: Channel = emulator.dm_between(alice, bob, carol)
    table = Table(emulator, group)
    await group_game(emulator, table, alice, bob)
    launched = await table.click(
        carol, table.board, table.labelled(table.board, "Open the live board")
    )
    assert launched.ack_type == 12 and not launched.failed  # LAUNCH_ACTIVITY, in a group DM
    instance = emulator.activity_instance(group)
    assert instance is not None and instance.location["kind"] == "pc"
    emulator.join_activity(alice, instance)
    emulator.join_activity(bob, instance)
    keep = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
    keep.mkdir(parents=True, exist_ok=True)
    async with chromium() as browser:
        pages = {}
        for member in (alice, bob, carol):
            pages[member.id] = await open_in(browser, emulator, port, member, instance)
            await shows(pages[member.id][0], str(table.position()))
        mover = table.mover()
        page, calls = pages[mover.id]
        other = bob if mover == alice else alice
        await join(emulator, page, instance, "alice", "bob", "carol")
        names = page.locator("#participants")
        await names.wait_for(state="visible", timeout=PATIENCE_MS)
        assert await names.inner_text() == "Here: Alice, Bob, Carol"
        await page.wait_for_function(
            "() => document.body.dataset.controls === 'shown'", timeout=PATIENCE_MS
        )
        await page.screenshot(path=keep / "group-dm-player.png")
        presence = (await until(lambda: calls.of("setActivity")[-1:]))[-1]["activity"]
        assert presence == {
            "type": 0,
            "details": f"Turn 1 against {other.user.username.title()}",
            "state": "correspondence",
        }

        await page.locator("#invite").click()
        (shared,) = await until(lambda: calls.of("shareLink"))
        assert shared == {"message": "Come and play Tholos with me!"}
        assert calls.of("openInviteDialog") == []  # a group DM has no invite dialog

        before, boards = str(table.position()), len(table.boards())
        await click_a_turn(page, rng)
        for shown, _ in pages.values():
            await shown.wait_for_function(
                "before => document.body.dataset.position !== before"
                " && document.body.dataset.connection === 'open'",
                arg=before,
                timeout=PATIENCE_MS,
            )
        spectator, _ = pages[carol.id]
        assert await spectator.locator("#controls").is_hidden()
        assert "watching" in await spectator.locator("#status").inner_text()
        await join(emulator, spectator, instance, "alice", "bob", "carol")
        await spectator.locator("#participants").wait_for(state="visible", timeout=PATIENCE_MS)
        await spectator.screenshot(path=keep / "group-dm-spectator.png")
        await spectator.set_viewport_size({"width": 390, "height": 844})  # a phone
        await spectator.screenshot(path=keep / "group-dm-spectator-phone.png")
        said = f"turn 2 against {other.user.username}"
        await until(
            lambda: [
                a
                for a in calls.of("setActivity")
                if a["activity"].get("details", "").lower() == said
            ]
        )
        assert len(table.boards()) == boards  # the bot posted nothing in the group DM
        now = await spectator.evaluate("() => document.body.dataset.position")
        stale = table.board  # its buttons are the turn before's: a press shows the board now
        pressed = next(b["custom_id"] for b in stale.buttons if b["custom_id"].endswith(":n"))
        await table.click(other, stale, pressed)  # the player to move now
        await emulator.wait_for(
            lambda: str(table.position()) == now, what="the board of the page's turn, in Discord"
        )
    assert emulator.violations == []
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_the_empty_seat_of_an_open_challenge_is_taken_from_the_page(
    emulator: Emulator, spawn_bot: SpawnBot, tmp_path: Path
) -> None:
    """Alice's open challenge in a DM with Bob: Bob's page, told by Discord's client that
    Alice is in the Activity, offers him her game's empty seat; he takes it, and the game
    shows on both pages — nothing posted in the DM."""
    emulator.enable_activities()
    port = free_port()
    bot = spawn_bot(emulator, guild_commands=False, env={"THOLOS_WEB_PORT": str(port)})
    await bot.start(sync=True)
    alice, bob = emulator.member("alice"), emulator.member("bob")
    emulator.install_for_user(alice)
    dm = emulator.dm_between(alice, bob)
    made = await Table(emulator, dm).slash(alice, "tholos challenge")
    assert made.original is not None and not made.failed, made
    instance = await emulator.launch_entry_point(alice, dm)
    assert isinstance(instance, ActivityInstance)
    emulator.join_activity(bob, instance)
    keep = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
    async with chromium() as browser:
        page, _ = await open_in(browser, emulator, port, bob, instance)
        theirs, _ = await open_in(browser, emulator, port, alice, instance)
        for shown in (page, theirs):
            await shown.wait_for_function(
                "() => document.body.dataset.view === 'lobby'", timeout=PATIENCE_MS
            )
        await join(emulator, page, instance, "alice", "bob")
        seat = page.locator("#seats button")
        await seat.wait_for(timeout=PATIENCE_MS)
        assert "Alice's game" in await seat.inner_text()
        await page.screenshot(path=keep / "dm-empty-seat.png")
        await seat.click()
        for shown in (page, theirs):
            await shown.wait_for_function(
                "() => document.body.dataset.view === 'board'"
                " && document.body.dataset.phase !== 'over'",
                timeout=PATIENCE_MS,
            )
        assert (
            await page.locator("#small-print").inner_text()
            == await theirs.locator("#small-print").inner_text()
        )
    assert emulator.violations == []
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_invite_opens_discords_invite_dialog_in_a_server_and_else_shares_a_link(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """On a server's game, Invite opens Discord's invite dialog; where Discord refuses it (no
    right to invite), a link is shared instead."""
    bot, port = await live_bot(emulator, spawn_bot)
    lobby = Table(emulator)
    alice, bob = lobby.people_named("alice", "bob")
    table = await lobby.start_game_in_thread(alice, bob)
    await table.click(alice, table.board, table.labelled(table.board, "Open the live board"))
    async with chromium() as browser:
        page = await browser.new_page()
        calls = SdkCalls(page)
        await page.goto(page_url(emulator, port, alice, table))
        await shows(page, str(table.position()))
        await page.locator("#invite").click()
        await until(lambda: calls.of("openInviteDialog"))
        await page.evaluate(
            "() => window.discordMock._updateCommandMocks({ openInviteDialog: async () => {"
            " throw new Error('INVALID_PERMISSIONS'); } })"
        )
        await page.locator("#invite").click()
        (shared,) = await until(lambda: calls.of("shareLink"))
        assert shared == {"message": "Come and play Tholos with me!"}
        assert len(calls.of("openInviteDialog")) == 2
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_a_game_in_a_server_without_the_bot_is_played_on_the_live_board(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int, tmp_path: Path
) -> None:
    """A server that never added the bot, reached by Alice's install of the app: her game with
    Bob there opens on the page in its channel (Discord's instance places it in that server);
    a turn on the page shows on Bob's page and is posted nowhere; the lobby of another channel
    there offers no game against the AI, and says where one starts."""
    rng = random.Random(seed)
    emulator.enable_activities()
    port = free_port()
    bot = spawn_bot(emulator, guild_commands=False, env={"THOLOS_WEB_PORT": str(port)})
    await bot.start(sync=True)
    alice, bob = emulator.member("alice"), emulator.member("bob")
    emulator.install_for_user(alice)
    guild = emulator.add_guild_without_bot("Elsewhere", [alice, bob])
    table = Table(emulator, emulator.channel("general", guild))
    await group_game(emulator, table, alice, bob)
    instance = await emulator.launch_entry_point(alice, table.channel)
    assert isinstance(instance, ActivityInstance) and instance.location["kind"] == "gc"
    emulator.join_activity(bob, instance)
    quiet = await emulator.launch_entry_point(alice, emulator.channel("games", guild))
    assert isinstance(quiet, ActivityInstance)
    keep = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
    async with chromium() as browser:
        pages = [
            await open_in(browser, emulator, port, m, instance, guild.id) for m in (alice, bob)
        ]
        for page, _ in pages:
            await shows(page, str(table.position()))
        mover = pages[0][0] if table.mover() == alice else pages[1][0]
        before = str(table.position())
        await click_a_turn(mover, rng)
        for page, _ in pages:
            await page.wait_for_function(
                "before => document.body.dataset.position !== before",
                arg=before,
                timeout=PATIENCE_MS,
            )
        lobby, _ = await open_in(browser, emulator, port, alice, quiet, guild.id)
        await lobby.wait_for_function(
            "() => document.body.dataset.view === 'lobby'", timeout=PATIENCE_MS
        )
        assert await lobby.locator("#levels button").count() == 0
        assert await lobby.locator("#levels-title").is_hidden()
        assert "from the chat" in await lobby.locator("#ai-elsewhere").inner_text()
        await lobby.screenshot(path=keep / "server-without-the-bot-lobby.png")
    assert str(table.position()) == before  # the chat's board waits for the next press
    assert emulator.violations == []
    assert await bot.stop() == 0
    bot.assert_clean_log()
