"""The boards' drawing worker: the same bytes as drawn here, from another process; a killed
worker is replaced; a board abandoned lets the worker be; a worker that cannot start leaves
the boards to a thread, and is not tried again at every board."""

from __future__ import annotations

import asyncio
import os
import random
import signal
from concurrent.futures import ProcessPoolExecutor

import pytest

from bot.i18n.catalogues import translator
from bot.workers.ai import SPAWN
from bot.workers.renderer import Renderer
from engine import Position
from engine.newgame import new_game
from engine.play import random_game
from engine.puzzles import game_positions
from rendering.board import render_board
from rendering.describe import describe_board
from rendering.view import BoardView


def a_board(seed: int) -> tuple[Position, BoardView]:
    """A position of a random game with its last turn, in Spanish."""
    rng = random.Random(seed)
    game = random_game(new_game(), rng)
    ply = rng.randrange(1, len(game.turns))
    *_, (_, position) = game_positions(game.start, game.turns[:ply])
    view = BoardView("Ana", "Bob", last_turn=game.turns[ply - 1], translator=translator("es"))
    return position, view


async def test_boards_drawn_in_the_worker_are_the_boards_drawn_here(seed: int) -> None:
    renderer = Renderer()
    try:
        for offset in range(3):
            position, view = a_board(seed + offset)
            png, alt = await renderer.image(position, view)
            assert png == render_board(position, view)
            assert alt == describe_board(position, view)[:1024] and "Ana" in alt
        [worker] = renderer.pids()
        assert worker != os.getpid()
    finally:
        renderer.close()


async def test_a_killed_worker_is_replaced(seed: int) -> None:
    renderer = Renderer()
    position, view = a_board(seed)
    try:
        await renderer.warm_up()
        [worker] = renderer.pids()
        os.kill(worker, signal.SIGKILL)
        png, _ = await renderer.image(position, view)
        assert png == render_board(position, view)
        assert renderer.pids() not in ([], [worker])
    finally:
        renderer.close()


async def test_a_board_abandoned_lets_the_worker_be(seed: int) -> None:
    """A board nobody waits for any more is a few milliseconds: the worker finishes it and
    draws the next one (a new process would cost a start)."""
    renderer = Renderer()
    position, view = a_board(seed)
    try:
        await renderer.warm_up()
        [worker] = renderer.pids()
        drawing = asyncio.create_task(renderer.image(position, view))
        await asyncio.sleep(0)  # under way
        drawing.cancel()
        await asyncio.wait([drawing])
        png, _ = await renderer.image(position, view)
        assert png == render_board(position, view)
        assert renderer.pids() == [worker]
    finally:
        renderer.close()


def _refuse_to_start() -> None:
    raise RuntimeError("no worker here")


async def test_a_worker_that_cannot_start_leaves_the_boards_to_a_thread(
    seed: int, caplog: pytest.LogCaptureFixture
) -> None:
    renderer = Renderer()
    assert renderer._worker is not None
    starts = []

    def failing_pool() -> ProcessPoolExecutor:
        starts.append(1)
        return ProcessPoolExecutor(1, mp_context=SPAWN, initializer=_refuse_to_start)

    renderer._worker._start = failing_pool
    position, view = a_board(seed)
    try:
        for _ in range(3):
            png, _ = await renderer.image(position, view)
            assert png == render_board(position, view)
        assert len(starts) == 2, "a worker and its replacement, then a thread for a while"
        assert "boards drawn on a thread for a while" in caplog.text
    finally:
        renderer.close()
