"""The live page fits a phone at the hardest step of a turn, in a real Chromium: the gray
quarry's bonus choice (the most options under the board, two rows of them or three) on a board
with a tall column (the tallest board), for positions drawn from the seed, in English, Spanish
and German, upright and on its side; and the position a CI run once found drawn at 9.9 px.

The page is the real one (``bot/web/static``) and its frames the server's own
(:func:`bot.web.frames.board_frame` of :func:`bot.words.board.board_of`, the steps of
:func:`bot.words.steps.turn_steps`); only the server is played here (its socket and the two
calls before it), so that a position is chosen instead of played to — the end-to-end test
(``tests/features/live/test_e2e_layout.py``) gets only the ornaments the bot draws."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, Route, WebSocketRoute

from bot.base.game import Game
from bot.i18n.catalogues import translator
from bot.web.frames import JSON, board_frame, geometries, palette
from bot.web.words import page_words
from bot.words.board import board_of
from bot.words.steps import turn_steps
from engine import Position
from engine.newgame import new_game
from tests.browser import chromium
from tests.features.live.test_e2e_layout import (
    FRAMES,
    HARDEST,
    MEASURE,
    Frame,
    check_fits,
    click_to,
)

STATIC = Path(__file__).resolve().parents[2] / "bot" / "web" / "static"
ORIGIN = "http://tholos.test"
MEMBER, OTHER = 11, 22
NAMES = {MEMBER: "Alice", OTHER: "Bob"}
POSITIONS = 6
"""Positions drawn per run (each measured at every bonus choice it has)."""
FOUND_IN_CI = (
    Position.parse("-/-/b/b/b/wb/- b bb b A=graygain,B=minority,E=tall,G=grayquarry"),
    "PbG",
)
"""German, upright: its bonus choice's options took three rows, Invite one more, and the board
drew "rücken" at 9.92 px."""


def hard_positions(rng: random.Random) -> list[Position]:
    """:data:`POSITIONS` positions of advanced games with :data:`HARDEST` among their
    ornaments, some turns in, with the gray quarry's bonus choice to make."""
    found: list[Position] = []
    while len(found) < POSITIONS:
        position = new_game("advanced", ornaments=5, seed=rng.randrange(2**31))
        if not HARDEST.issubset(position.ornaments):
            continue
        for _ in range(rng.randint(0, 12)):
            turns = position.legal_turns()
            if not turns:
                break
            position = position.apply(rng.choice(turns))
        if bonus_choices(position):
            found.append(position)
    return found


def bonus_choices(position: Position) -> list[str]:
    """The paths to every bonus choice of ``position`` (one a colour placed there)."""
    if not position.legal_turns():
        return []
    steps = turn_steps(game_at(position), translator("en"))
    return [step.path for step in steps if step.kind == "bonus-choice"]


def game_at(position: Position) -> Game:
    """A game at ``position`` whose player to move is :data:`MEMBER` (the page's member)."""
    white, black = (MEMBER, OTHER) if position.turn == 0 else (OTHER, MEMBER)
    return Game(
        white_id=white,
        black_id=black,
        white_name=NAMES[white],
        black_name=NAMES[black],
        mode="advanced",
        start_position=position,
        position=position,
        id=5,
        plies=7,
    )


def frame_of(position: Position, language: str, version: int) -> JSON:
    """The board frame the server sends the player to move of ``position``."""
    t = translator(language)
    game = dataclasses.replace(game_at(position), version=version)
    board = board_of(game, t, who=NAMES.__getitem__)
    frame = board_frame(board, t, turn_steps(game, t), 0.0)
    frame["geometries"] = geometries(position)
    frame["pace"] = None
    return frame


class Server:
    """The live board's server, played for one page of :data:`MEMBER`: its static files,
    ``/api/config``, ``/api/session`` and the socket's welcome, then the boards it is given."""

    def __init__(self, page: Page, language: str) -> None:
        self.page = page
        self.language = language
        self.socket: WebSocketRoute | None = None
        self.version = 0

    async def serve(self, route: Route) -> None:
        path = route.request.url.removeprefix(ORIGIN).split("?")[0]
        if path == "/api/config":
            await route.fulfill(json={"client_id": "1", "words": {}, "language": self.language})
        elif path == "/api/session":
            await route.fulfill(json={"session": "s", "user": str(MEMBER), "access_token": "a"})
        else:
            file = STATIC / path.removeprefix("/static/") if path != "/" else STATIC / "index.html"
            kind = "text/javascript" if file.suffix in (".js", ".mjs") else None
            await route.fulfill(path=file, content_type=kind)

    def connect(self, socket: WebSocketRoute) -> None:
        self.socket = socket
        t = translator(self.language)
        welcome = {
            "type": "welcome",
            "user": str(MEMBER),
            "name": NAMES[MEMBER],
            "language": self.language,
            "words": page_words(t, {}),  # (the features' own words are the lobby's)
            "palette": palette(),
        }
        socket.on_message(lambda _hello: socket.send(json.dumps(welcome)))

    async def show(self, position: Position) -> None:
        """``position``'s board on the page, a new version of the game (no step chosen)."""
        assert self.socket is not None
        self.version += 1
        self.socket.send(json.dumps(frame_of(position, self.language, self.version)))
        await self.page.wait_for_function(
            "version => document.body.dataset.version === String(version)", arg=self.version
        )


@asynccontextmanager
async def page_at(browser: Browser, frame: Frame, language: str) -> AsyncIterator[Server]:
    """A page of ``frame``'s size, its server played in ``language``."""
    context = await browser.new_context(
        viewport={"width": frame.width, "height": frame.height},
        is_mobile=frame.phone,
        has_touch=frame.phone,
        device_scale_factor=2,
    )
    try:
        page = await context.new_page()
        server = Server(page, language)
        await page.route_web_socket("**/api/live", server.connect)
        await page.route(f"{ORIGIN}/**", server.serve)
        await page.goto(f"{ORIGIN}/?instance_id=i-1&guild_id=3&channel_id=9&code=c")
        await page.wait_for_function("() => document.body.dataset.connection === 'open'")
        yield server
    finally:
        await context.close()


async def fits(server: Server, frame: Frame, position: Position, path: str) -> float:
    """Show ``position`` and click to ``path``: the page fits (:func:`check_fits`); the
    smallest text of the board, in px."""
    await server.show(position)
    await click_to(server.page, path)
    measured = await server.page.evaluate(MEASURE)
    check_fits(measured, frame, player=True, position=str(position))
    return measured["smallest"][0]


PHONES = [frame for frame in FRAMES if frame.phone]


@pytest.mark.parametrize("language", ["en", "es", "de"])
async def test_the_bonus_choice_fits_a_phone(seed: int, language: str) -> None:
    """Every bonus choice of the positions drawn, upright and on its side."""
    positions = hard_positions(random.Random(seed))
    smallest: dict[str, float] = {}
    async with chromium() as browser:
        for frame in PHONES:
            async with page_at(browser, frame, language) as server:
                for position in positions:
                    for path in bonus_choices(position):
                        print(f"{frame.name}: {path} of {position}")
                        size = await fits(server, frame, position, path)
                        smallest[frame.name] = min(size, smallest.get(frame.name, size))
    print(f"smallest text: {smallest}")


async def test_the_position_the_ci_found_fits_an_upright_phone() -> None:
    """Its German bonus choice draws the board's text at 10 px or more (Invite steps aside
    while a turn is composed)."""
    position, path = FOUND_IN_CI
    upright = next(frame for frame in PHONES if frame.height > frame.width)
    async with chromium() as browser, page_at(browser, upright, "de") as server:
        await fits(server, upright, position, path)
