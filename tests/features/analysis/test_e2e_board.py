"""The analysis board and the course on the live page, in a real Chromium. Alice and Bob play a
short game in its thread and Bob resigns; Alice opens the live board in the channel, finds the
game in the lobby's list and analyses it: the review the page asks for runs, its progress shown;
every position stepped through (buttons and arrow keys) is the game record's, replayed here by
the engine; the evaluation shown is the stored review's; a side line's positions are the
engine's; the best turn is a legal turn of its position; the position string is copied; a pasted
position opens too. Then she does the course's first lesson on the page, wrong then right, and
``/tholos learn`` on Discord goes on from the next one."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import tempfile
from pathlib import Path

from playwright.async_api import Page

from bot.features.lessons.course import COURSE, judge
from engine import Position, parse_turn
from engine.builder import TurnBuilder, chosen_path
from engine.record import read_record
from engine.review import GameReview
from tests.browser import chromium
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.table import Table, path_of
from tests.features.lessons.test_e2e import next_lesson, shown_position
from tests.features.live.test_e2e_board import (
    PATIENCE_MS,
    click_a_turn,
    errors_for,
    live_bot,
    open_page,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "live-board"
SEEN = Path(os.environ.get("THOLOS_FRAME_DIR", tempfile.gettempdir()))
"""Where the tests leave what the page showed, for a person to look at (the docs keep a copy
made with ``THOLOS_FRAME_DIR=docs/live-board``)."""
TURNS = 8
LAUNCH_ACTIVITY = 12
"""Turns played before Bob resigns."""


def stored_review(bot: BotProcess, game_id: int) -> GameReview | None:
    with sqlite3.connect(bot.db_path) as database:
        row = database.execute(
            "SELECT review FROM reviews WHERE game_id = ? AND status = 'done'", (game_id,)
        ).fetchone()
    return None if row is None else GameReview.from_json(row[0])


async def shown_at(page: Page, position: str) -> None:
    """Wait until the analysis board shows ``position``."""
    await page.wait_for_function(
        "position => document.body.dataset.position === position && !document.body.dataset.loading",
        arg=position,
        timeout=PATIENCE_MS,
    )
    assert (await page.locator("#small-print").inner_text()).endswith(position)


async def test_the_analysis_board_of_a_finished_game(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    rng = random.Random(seed)
    bot, port = await live_bot(emulator, spawn_bot)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    game = await table.start_game_in_thread(alice, bob)
    for _ in range(TURNS):
        await game.play(rng.choice(game.position().legal_turns()))
    ask = await game.slash(bob, "tholos resign")
    assert ask.original is not None
    await game.click(bob, ask.original, game.labelled(ask.original, "Yes, resign"))
    await emulator.wait_for(lambda: game.status().startswith("Game over."), what="the end")
    await game.slash(alice, "tholos record")
    record = read_record((await game.private_file(alice)).attachments[0].data.decode())
    line = [record.start]
    for turn in record.turns:
        line.append(line[-1].apply(turn))
    asked = await table.slash(alice, "tholos analyse")  # her last game here: the Activity
    assert asked.ack_type == LAUNCH_ACTIVITY
    async with chromium() as browser:
        page = await open_page(browser, emulator, port, alice, table, size=(1280, 800))
        await shown_at(page, str(line[-1]))  # the game asked for, at its end
        game_id = int(await page.evaluate("document.body.dataset.analysis"))
        await page.wait_for_function(
            "() => document.querySelector('#evaluation').dataset.known === 'yes'",
            timeout=120_000,
        )
        review = stored_review(bot, game_id)
        assert review is not None and len(review.chart) == len(line)
        await page.locator("#first").click()
        await shown_at(page, str(line[0]))
        for _ in range(len(line) + 5):  # a held arrow key: the page asks no faster than allowed
            await page.keyboard.press("ArrowRight", delay=5)
        await shown_at(page, str(line[-1]))
        assert await page.locator("#notice").is_hidden()
        await page.keyboard.press("Home")
        for index, position in enumerate(line):
            await shown_at(page, str(position))
            assert await page.evaluate("document.body.dataset.index") == str(index)
            shown = await page.evaluate("document.querySelector('#evaluation').dataset.evaluation")
            assert float(shown) == review.chart[index]
            if index == len(line) - 1:
                break
            if index % 2:
                await page.keyboard.press("ArrowRight")
            else:
                await page.locator("#next").click()
        mistakes = {turn.ply for turn in review.turns if not turn.kept}
        marked = await page.evaluate(
            "[...document.querySelectorAll('#moves li.mistake')].map((li) => +li.dataset.index)"
        )
        assert set(marked) == mistakes
        shown_turn = min(mistakes, default=len(line) - 1)
        await page.locator(f'#moves li[data-index="{shown_turn}"]').click()
        await shown_at(page, str(line[shown_turn]))
        await page.screenshot(path=str(SEEN / "analysis-desktop.png"))
        await forged_asks_are_refused(page, line[-1])
        await side_line_from(page, line, rng)
        await best_turn_and_copy(page)
        await page.locator("#leave").click()  # the lobby: her finished games, the course
        await page.wait_for_selector("#finished button", state="visible", timeout=PATIENCE_MS)
        await page.locator("#finished button").first.click()
        await shown_at(page, str(line[-1]))
        await page.locator("#first").click()
        await shown_at(page, str(line[0]))
        await table.slash(alice, "tholos analyse", game=game_id)  # asked with the page open
        await shown_at(page, str(line[-1]))
        await page.locator("#leave").click()
        await pasted_position(page, line[rng.randrange(len(line) - 1)])
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def forged_asks_are_refused(page: Page, position: Position) -> None:
    """A game that is not there, a path that is no turn, a path not whole, a position that is
    none: each refused with its reason."""
    begun = chosen_path(position, position.legal_turns()[0])[0]  # a turn's first step only
    asks = [
        {"type": "analyse", "game": 987654321},
        {"type": "analysis_turn", "position": str(position), "path": "Zz"},
        {"type": "analysis_turn", "position": str(position), "path": begun},
        {"type": "analysis_board", "position": "w/w/w"},
    ]
    errors = await errors_for(page, [json.dumps(ask) for ask in asks])
    assert [error["code"] for error in errors] == ["refused", "malformed", "incomplete", "refused"]
    assert errors[0]["message"] == "That isn't a finished game of this server."
    assert errors[3]["message"].startswith("That is not a position string")


async def side_line_from(page: Page, line: list[Position], rng: random.Random) -> None:
    """From a random position of the game, three random turns clicked on the board: each
    position the engine's (a turn the game played follows the game's line, any other makes a
    side line); Back to the game returns to the game's line."""
    index = rng.randrange(len(line) - 1)
    await page.locator(f'#moves li[data-index="{index}"]' if index else "#first").click()
    await shown_at(page, str(line[index]))
    position = line[index]
    for _ in range(3):
        if position.is_over():
            break
        path = await click_a_turn(page, rng)
        turn = TurnBuilder(position, tuple(path)).turn
        assert turn is not None
        position = position.apply(turn)
        await shown_at(page, str(position))
    # turns that are the game's own follow its line; the rest make the side line
    on_line = int(await page.evaluate("document.body.dataset.index"))
    side = (await page.evaluate("document.body.dataset.side")).split()
    replayed = line[on_line]
    for notation in side:
        replayed = replayed.apply(parse_turn(notation))
    assert replayed == position
    assert await page.locator("#main-line").is_visible() == bool(side)
    if side:
        assert await page.locator("#evaluation-text").inner_text() == "Side line: not reviewed"
        await page.locator("#main-line").click()
    await shown_at(page, str(line[on_line]))


async def best_turn_and_copy(page: Page) -> None:
    """The engine's best turn is a legal turn of the position shown; tried, the board shows the
    position it leads to; the position string is copied."""
    position = Position.parse(await page.evaluate("document.body.dataset.position"))
    await page.locator("#best").click()
    await page.wait_for_function(
        "() => !document.querySelector('#try-best').hidden", timeout=PATIENCE_MS
    )
    said = await page.locator("#notice").inner_text()
    legal = {str(turn) for turn in position.legal_turns()}
    best = next(notation for notation in legal if f"({notation})" in said)
    await page.locator("#try-best").click()
    await shown_at(page, str(position.apply(parse_turn(best))))
    await page.locator("#copy").click()
    await page.wait_for_function("() => document.body.dataset.copied", timeout=PATIENCE_MS)
    copied = await page.evaluate("document.body.dataset.copied")
    assert copied == await page.evaluate("document.body.dataset.position")


async def pasted_position(page: Page, position: Position) -> None:
    """A position pasted in the lobby opens alone, named by colours, without a review; a
    string that is none is refused politely."""
    await page.wait_for_selector("#paste", state="visible", timeout=PATIENCE_MS)
    await page.locator("#pasted").fill("not a position")
    await page.locator("#analyse-position").click()
    await page.wait_for_function(
        "() => !document.querySelector('#notice').hidden", timeout=PATIENCE_MS
    )
    assert "not a position string" in await page.locator("#notice").inner_text()
    await page.locator("#pasted").fill(f"  {position}  ")
    await page.locator("#analyse-position").click()
    await shown_at(page, str(position))
    assert await page.locator("#evaluation").is_hidden()
    assert await page.locator("#next").is_disabled()


async def test_a_lesson_on_the_live_page(emulator: Emulator, spawn_bot: SpawnBot, seed: int):
    """Alice starts the course from the lobby of a phone-sized page: the first lesson's board
    and text; a wrong turn is answered with why and Try again; the right one moves on, and
    Discord's ``/tholos learn`` shows her the next lesson (one course, both faces)."""
    rng = random.Random(seed)
    bot, port = await live_bot(emulator, spawn_bot)
    table = Table(emulator)
    (alice,) = table.people_named("alice")
    await emulator.launch_entry_point(alice, table.channel)
    lesson = COURSE[0]
    turns = lesson.start.legal_turns()
    wrong = rng.choice([turn for turn in turns if not judge(lesson, turn).passed])
    right = rng.choice([turn for turn in turns if judge(lesson, turn).passed])
    async with chromium() as browser:
        page = await open_page(browser, emulator, port, alice, table, size=(390, 844))
        await page.locator("#course").click()
        for turn, passed in ((wrong, False), (right, True)):
            await shown_at(page, str(lesson.start))
            assert await page.locator("#lesson-text").is_visible()
            if not passed:
                await page.screenshot(path=str(SEEN / "lesson-phone.png"))
            path = path_of(lesson.start, turn)
            for depth in range(1, len(path) + 1):
                await page.locator(f'button[data-path="{path[:depth]}"]').click()
            await page.locator("#confirm").click()
            await page.wait_for_function("() => document.body.dataset.verdict", timeout=PATIENCE_MS)
            verdict = await page.evaluate("document.body.dataset.verdict")
            assert verdict == ("right" if passed else "wrong")
            if not passed:
                assert judge(lesson, turn).why is not None
                await page.locator("#try-again").click()
        assert await page.locator("#next-lesson").is_visible()
        await page.locator("#next-lesson").click()
        await shown_at(page, str(COURSE[1].start))
    await table.slash(alice, "tholos learn")
    assert shown_position(await next_lesson(table, alice, 0)) == COURSE[1].start
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()
