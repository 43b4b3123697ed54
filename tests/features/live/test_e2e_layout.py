"""The live board fits its frame, in a real Chromium: a game in a thread, played some turns by
the buttons, opened by its player to move (mid-turn, the options showing) and by a spectator
at a desktop window, Discord's Activity frame on a desktop, and a phone held upright and on
its side. At each size nothing scrolls, the board, the controls and the status are all in
view, and no text of the board is drawn under 10 px.

The game is among the hardest to fit: a tall column (the tallest board) and the gray quarry's
bonus, whose choice offers the most options under the board. The bot draws the ornaments, not
the test's seed (games are started until one has both), and how many rows the options take
depends on their words: ``tests/web/test_page_layout.py`` shows the page chosen positions.

``THOLOS_SCREENSHOTS=docs/live-board`` keeps each size's screenshot there (the README's
pictures); otherwise they go to the test's temporary folder."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page

from engine import Position
from engine.builder import TurnBuilder, turn_path
from tests.browser import chromium
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator, Member
from tests.e2e.table import Table
from tests.features.live.test_e2e_board import live_bot, page_url, shows

SMALLEST_TEXT = 10.0
"""Pixels the smallest text of the board is drawn at, at least."""


@dataclass(frozen=True)
class Frame:
    """A size the page is shown at."""

    name: str
    width: int
    height: int
    phone: bool = False


FRAMES = (
    Frame("desktop-1280x800", 1280, 800),
    Frame("activity-1000x600", 1000, 600),
    Frame("phone-portrait", 390, 844, phone=True),
    Frame("phone-landscape", 844, 390, phone=True),
)
MEASURE = """() => {
    const edges = (element) => {
        const r = element.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom];
    };
    const box = (id) => {
        const element = document.getElementById(id);
        if (!element || element.hidden || !element.getClientRects().length) return null;
        return edges(element);
    };
    const texts = [...document.querySelectorAll("#drawing text")]
        .filter((text) => text.textContent.trim());
    const sizes = texts.map((text) => {
        const matrix = text.getScreenCTM();
        const scale = Math.hypot(matrix.a, matrix.b);
        return [parseFloat(getComputedStyle(text).fontSize) * scale, text.textContent];
    });
    sizes.sort((a, b) => a[0] - b[0]);
    const root = document.scrollingElement;
    return {
        scroll: [root.scrollWidth, root.scrollHeight],
        viewport: [innerWidth, innerHeight],
        board: box("drawing"), controls: box("controls"), status: box("status"),
        position: [box("small-print"), document.getElementById("small-print").textContent],
        options: [...document.querySelectorAll("#options button, .commands button")]
            .filter((b) => b.getClientRects().length)
            .map(edges),
        texts: sizes.length, smallest: sizes[0] || null,
    };
}"""


def in_view(box: list[float] | None, viewport: list[int]) -> bool:
    """Whether ``box`` is wholly inside the viewport (half a pixel of rounding allowed)."""
    assert box is not None, "the element is shown"
    left, top, right, bottom = box
    return (
        left >= -0.5 and top >= -0.5 and right <= viewport[0] + 0.5 and bottom <= viewport[1] + 0.5
    )


def check_fits(measured: dict[str, Any], frame: Frame, player: bool, position: str) -> None:
    """Nothing scrolls; board, status, the small print with the ``position`` string (and the
    player's controls, every button) in view; the smallest text of the board at least
    :data:`SMALLEST_TEXT` px."""
    what = f"{frame.name} {'player' if player else 'spectator'}: {measured}"
    viewport = measured["viewport"]
    assert viewport == [frame.width, frame.height], what
    assert measured["scroll"][1] <= viewport[1], what
    assert measured["scroll"][0] <= viewport[0], what
    assert in_view(measured["board"], viewport), what
    assert in_view(measured["status"], viewport), what
    if player:
        assert in_view(measured["controls"], viewport), what
        assert measured["options"], what
        assert all(in_view(button, viewport) for button in measured["options"]), what
    else:
        assert measured["controls"] is None, what
    assert measured["texts"] > 20, what  # the board is drawn
    small_print, text = measured["position"]
    assert in_view(small_print, viewport) and text.endswith(position), what
    assert measured["smallest"][0] >= SMALLEST_TEXT, what


HARDEST = {"tall", "grayquarry"}
"""The ornaments of the game hardest to fit: the tallest column, and the bonus choice with the
most options (a column's own bonus, a gray stone from the quarry, skip, back, start over)."""


def bonus_choice(position: Position) -> str | None:
    """The path, one step short of a whole turn, to the gray-quarry's bonus choice, with both
    of its options enabled (``None``: no turn gets there from ``position``)."""
    prefixes = {
        path[:depth]
        for turn in position.legal_turns()
        for path in [turn_path(position, turn)]
        for depth in range(1, len(path) + 1)
    }
    for prefix in sorted(prefixes):
        step = TurnBuilder(position, prefix).step()
        if step is not None and step.kind == "bonus-choice" and len(step.enabled_tokens()) > 1:
            return "".join(prefix)
    return None


async def hardest_game(lobby: Table, white: Member, black: Member) -> Table:
    """A game in a thread whose ornaments are :data:`HARDEST` and three others (a game drawn
    without them is resigned, for the next)."""
    for _ in range(40):  # each has both with a chance of 10 in 21
        table = await lobby.start_game_in_thread(white, black, mode="advanced", ornaments=5)
        if HARDEST.issubset(table.position().ornaments):
            return table
        await resign(table, black)
    raise AssertionError("forty games in a row without a tall column and the gray quarry")


async def resign(table: Table, member: Member) -> None:
    """``member`` resigns the game of ``table``; its final board is posted."""
    ask = await table.slash(member, "tholos resign")
    assert ask.original is not None
    (confirm,) = ask.original.buttons  # "Yes, resign", in the member's language
    count = len(table.boards())
    await table.click(member, ask.original, confirm["custom_id"])
    await table.emu.wait_for(lambda: len(table.boards()) > count, what="the final board")


async def click_to(page: Page, path: str) -> None:
    """Click the choices that build ``path`` on ``page``, one step at a time."""
    for depth in range(1, len(path) + 1):
        await page.locator(f'button[data-path="{path[:depth]}"]').click()
    await page.wait_for_function("() => document.querySelectorAll('#options button').length > 0")


async def look(
    browser: Browser, emulator: Emulator, port: int, member: Member, table: Table, frame: Frame
) -> Page:
    """``member``'s page of ``table`` at ``frame``'s size, showing the game."""
    context = await browser.new_context(
        viewport={"width": frame.width, "height": frame.height},
        is_mobile=frame.phone,
        has_touch=frame.phone,
        device_scale_factor=2 if frame.phone else 1,
    )
    page = await context.new_page()
    await page.goto(page_url(emulator, port, member, table))
    await shows(page, str(table.position()))
    return page


@pytest.mark.parametrize("locale", ["en-US", "es-ES", "de"])
async def test_the_live_board_fits_every_frame(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int, tmp_path: Path, locale: str
) -> None:
    """In each language (German's words are the longest), at each size."""
    rng = random.Random(seed)
    keep = Path(os.environ.get("THOLOS_SCREENSHOTS") or tmp_path)
    bot, port = await live_bot(emulator, spawn_bot)
    lobby = Table(emulator)
    alice, bob, carol = lobby.people_named("alice", "bob", "carol")
    for member in (alice, bob, carol):
        emulator.set_locale(member, locale)
    table = await hardest_game(lobby, alice, bob)
    turns, path = rng.randint(6, 12), None
    for _ in range(100):  # a few turns, then on to a position with the bonus choice
        if turns <= 0 and path is not None:
            break
        if table.status().startswith("Game over."):  # (rare) another game, then
            table = await hardest_game(lobby, alice, bob)
        await table.play(rng.choice(table.position().legal_turns()))
        turns -= 1
        path = bonus_choice(table.position())
    assert path is not None and not table.status().startswith("Game over.")
    print(f"mid-turn at {path!r} of {table.position()}")
    await table.click(alice, table.board, table.labelled(table.board, "Open the live board"))
    mover = table.mover()
    measured = {}
    async with chromium() as browser:
        for frame in FRAMES:
            player = await look(browser, emulator, port, mover, table, frame)
            measured[frame, "first step"] = await player.evaluate(MEASURE)
            await click_to(player, path)
            measured[frame, "mid-turn"] = await player.evaluate(MEASURE)
            await player.screenshot(path=keep / f"{frame.name}-player-{locale[:2]}.png")
            spectator = await look(browser, emulator, port, carol, table, frame)
            measured[frame, "spectator"] = await spectator.evaluate(MEASURE)
            await spectator.screenshot(path=keep / f"{frame.name}-spectator-{locale[:2]}.png")
    for (frame, state), figures in measured.items():  # the figures, should a check fail
        height, smallest = figures["scroll"][1], figures["smallest"] or [0.0, ""]
        print(f"{frame.name} {state}: page {height} px tall, smallest text {smallest[0]:.1f} px")
    for (frame, state), figures in measured.items():
        check_fits(figures, frame, player=state != "spectator", position=str(table.position()))
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()
