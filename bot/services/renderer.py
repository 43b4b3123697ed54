"""Drawing off the event loop: the boards of games being played on threads of their own,
replays and charts on another, so that a long replay never delays the board of a game being
played."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from bot.words.board import Board
from engine import Position
from engine.newgame import new_game
from rendering.board import render_board
from rendering.describe import describe_board
from rendering.view import BoardView

T = TypeVar("T")

LIVE_THREADS = 2
"""Live boards are rendered on this many threads: enough for 2 cores, and each thread's image
buffers are reused instead of spread over many threads."""
ALT_TEXT_LIMIT = 1024
"""Discord's limit on an attachment's description (alt text)."""


class Renderer:
    """Two pools of drawing threads: the boards of games being played, and the rest (replays,
    charts)."""

    def __init__(self) -> None:
        self._live = ThreadPoolExecutor(LIVE_THREADS, thread_name_prefix="render")
        self._slow = ThreadPoolExecutor(1, thread_name_prefix="render-slow")

    async def board(self, board: Board) -> tuple[bytes, str]:
        """The board's image (PNG) and its alt text."""
        return await self.image(board.position_value, board.image)

    async def image(self, position: Position, view: BoardView) -> tuple[bytes, str]:
        """The image (PNG) of ``position`` as ``view`` shows it, and its alt text."""
        png, alt = await self._run(self._live, _render, position, view)
        return png, alt[:ALT_TEXT_LIMIT]

    async def slow(self, function: Callable[..., T], *arguments: object) -> T:
        """Run ``function(*arguments)`` (a replay, a chart) on the thread that never holds up
        the board of a game being played."""
        return await self._run(self._slow, function, *arguments)

    async def warm_up(self) -> None:
        """Render one board before the first player waits for one (fonts, palette, caches)."""
        await self._run(self._live, _render, new_game(), BoardView())

    def close(self) -> None:
        """Stop the drawing threads."""
        for pool in (self._live, self._slow):
            pool.shutdown(wait=False, cancel_futures=True)

    @staticmethod
    async def _run(pool: ThreadPoolExecutor, function: Callable[..., T], *arguments: object) -> T:
        return await asyncio.get_running_loop().run_in_executor(pool, function, *arguments)


def _render(position: Position, view: BoardView) -> tuple[bytes, str]:
    """The board image and its text description (runs in a drawing thread)."""
    return render_board(position, view), describe_board(position, view)
