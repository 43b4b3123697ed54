"""Drawing off the event loop: the boards of games being played in a worker process of their
own, replays and charts on a thread, so that neither a long replay nor the drawing of a hundred
boards a second delays the bot's event loop (a thread would hold its GIL for most of the 3 ms a
board takes)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from bot.i18n.catalogues import translator
from bot.words.board import Board
from engine import Position
from engine.newgame import new_game
from rendering.board import render_board
from rendering.describe import describe_board
from rendering.translator import ENGLISH
from rendering.view import BoardView

from .ai import Worker, new_pool

log = logging.getLogger(__name__)
T = TypeVar("T")

ALT_TEXT_LIMIT = 1024
"""Discord's limit on an attachment's description (alt text)."""
WORKER_RETRY_SECONDS = 60.0
"""After a drawing worker and its replacement died, boards are drawn on a thread this long
before a worker process is tried again (a process that cannot start costs every board two
failed starts)."""


class Renderer:
    """The boards of games being played drawn in a worker process (on a thread if no worker
    process can run: ``in_worker=False``, or after a new one died too), the rest (replays,
    charts) on a thread of its own."""

    def __init__(self, *, in_worker: bool = True) -> None:
        self._worker = Worker("drawing", new_pool, stop_when_abandoned=False) if in_worker else None
        self._worker_again_at = 0.0
        self._threads = ThreadPoolExecutor(1, thread_name_prefix="render")
        self._slow = ThreadPoolExecutor(1, thread_name_prefix="render-slow")

    async def board(self, board: Board) -> tuple[bytes, str]:
        """The board's image (PNG) and its alt text."""
        return await self.image(board.position_value, board.image)

    async def image(self, position: Position, view: BoardView) -> tuple[bytes, str]:
        """The image (PNG) of ``position`` as ``view`` shows it, and its alt text."""
        png, alt = await self._draw(position, view)
        return png, alt[:ALT_TEXT_LIMIT]

    async def slow(self, function: Callable[..., T], *arguments: object) -> T:
        """Run ``function(*arguments)`` (a replay, a chart) on the thread that never holds up
        the board of a game being played."""
        return await self._run(self._slow, function, *arguments)

    async def warm_up(self) -> None:
        """Start the drawing worker and render one board there before the first player waits
        for one (fonts, palette, caches)."""
        await self._draw(new_game(), BoardView())

    def pids(self) -> list[int]:
        """The drawing worker's process id (none before its first board)."""
        return self._worker.pids() if self._worker is not None else []

    def close(self) -> None:
        """Stop the drawing worker and threads."""
        if self._worker is not None:
            self._worker.close()
        for pool in (self._threads, self._slow):
            pool.shutdown(wait=False, cancel_futures=True)

    async def _draw(self, position: Position, view: BoardView) -> tuple[bytes, str]:
        if self._worker is not None and time.monotonic() >= self._worker_again_at:
            language = view.translator.language  # the worker has the catalogues: words by name
            bare = dataclasses.replace(view, translator=ENGLISH)
            try:
                return await self._worker.run(_render_in_worker, position, bare, language)
            except BrokenProcessPool as error:  # a new worker died too, or closing
                self._worker_again_at = time.monotonic() + WORKER_RETRY_SECONDS
                log.warning("boards drawn on a thread for a while: %s", error)
        return await self._run(self._threads, _render, position, view)

    @staticmethod
    async def _run(pool: ThreadPoolExecutor, function: Callable[..., T], *arguments: object) -> T:
        return await asyncio.get_running_loop().run_in_executor(pool, function, *arguments)


def _render(position: Position, view: BoardView) -> tuple[bytes, str]:
    """The board image and its text description."""
    return render_board(position, view), describe_board(position, view)


def _render_in_worker(position: Position, view: BoardView, language: str) -> tuple[bytes, str]:
    """Runs in the drawing worker: the view in ``language``'s words (the same object each
    time, so the board's cached backgrounds are found)."""
    return _render(position, dataclasses.replace(view, translator=translator(language)))
