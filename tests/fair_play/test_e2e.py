"""Fair play on the live page, in a real Chromium: Alice and Bob play a rated game in its
thread; Carol copies the position from its board's small print into the analysis board, where
the engine's best turn is refused with the sentence why — and the position after a turn too —;
once Bob resigns, the same position gets its best turn."""

from __future__ import annotations

import random

from playwright.async_api import Page

from bot.fair_play.guard import GAME_IN_PROGRESS
from tests.browser import chromium
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator
from tests.e2e.table import Table
from tests.features.analysis.test_e2e_board import shown_at
from tests.features.live.test_e2e_board import PATIENCE_MS, live_bot, open_page

TURNS = 4
"""Turns played first: past the opening, which is never refused."""


async def paste(page: Page, position: str) -> None:
    """Analyse ``position``, pasted in the lobby's box (with spaces around, as copied)."""
    await page.wait_for_selector("#paste", state="visible", timeout=PATIENCE_MS)
    await page.locator("#pasted").fill(f"  {position} ")
    await page.locator("#analyse-position").click()
    await shown_at(page, position)


async def best_turn_said(page: Page) -> str:
    """Ask for the best turn: what the page says (a refusal, or the turn once ``#try-best``
    shows)."""
    await page.evaluate("document.querySelector('#notice').hidden = true")
    await page.locator("#best").click()
    await page.wait_for_function(
        "() => !document.querySelector('#notice').hidden", timeout=PATIENCE_MS
    )
    return await page.locator("#notice").inner_text()


async def test_the_best_turn_of_a_game_in_progress_is_refused(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    rng = random.Random(seed)
    bot, port = await live_bot(emulator, spawn_bot)
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    game = await table.start_game_in_thread(alice, bob)
    for _ in range(TURNS):
        await game.play(rng.choice(game.position().legal_turns()))
    position = game.position()  # as the board's small print shows it
    after = position.apply(rng.choice(position.legal_turns()))
    await emulator.launch_entry_point(carol, table.channel)
    async with chromium() as browser:
        page = await open_page(browser, emulator, port, carol, table)
        for pasted in (position, after):
            await paste(page, str(pasted))
            assert await best_turn_said(page) == GAME_IN_PROGRESS
            assert await page.locator("#try-best").is_hidden()
            await page.locator("#leave").click()
        ask = await game.slash(bob, "tholos resign")
        assert ask.original is not None
        await game.click(bob, ask.original, game.labelled(ask.original, "Yes, resign"))
        await emulator.wait_for(lambda: game.status().startswith("Game over."), what="the end")
        await paste(page, str(position))
        said = await best_turn_said(page)
        assert said != GAME_IN_PROGRESS
        assert any(f"({turn})" in said for turn in position.legal_turns())
        assert await page.locator("#try-best").is_visible()
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()
