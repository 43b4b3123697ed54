"""The analysis board's step: a position of a finished game asked for by the live page, until its
board is there — with the real bot through the emulator.

    .venv/bin/python -m benchmarks.analysis_step [--games 10] [--pages 4] [--seed S]

One bot process (SQLite) serving the live board, its database holding ``--games`` finished games
(random full games, as :func:`benchmarks.bot_latency.prefill` leaves them). ``--pages`` members
each open the live board the real way (the Activity launched in their channel, a code exchanged
for a session) and, over a WebSocket as the page's, analyse every finished game of their server
one after the other: the game's line (``analyse``: its positions, turns and review — which
queues a review, so the review worker runs meanwhile, as it would), then every position of it
stepped through at the page's pace (``analysis_board`` every :data:`STEP_GAP` s, as the page asks
at most), and from every fifth position a random legal turn tried (``analysis_turn``).

Prints, per kind of ask, ask → answer (p50/p95/max) and the board frame's size; checks every
answer is the position asked for (the engine replays the line here) and that the bot's log and
exit are clean. Exits with 1 if the step's p95 is above :data:`TARGET_MS` on a quiet machine or
a check fails. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import tempfile
import time
from pathlib import Path

import aiohttp

from engine import Position
from engine.builder import chosen_path
from tests.e2e.emulator import BotProcess, Emulator

from .bot_latency import (
    BenchmarkError,
    Table,
    add_tables,
    free_port,
    latency_row,
    lighten_emulator,
    percentile,
    prefill,
    run_benchmark,
)
from .live_board import sessions_for

STEP_GAP = 0.3
"""Seconds between a page's asks (the page's ``STEP_GAP_MS``)."""
TARGET_MS = 100.0
"""The step's p95 target: the board there before the next press of a held arrow key."""


class Analyst:
    """One member's page analysing their server's finished games."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse, seed: int) -> None:
        self.socket = socket
        self.rng = random.Random(seed)
        self.times: dict[str, list[float]] = {"open": [], "step": [], "try": []}
        self.sizes: list[int] = []

    async def ask(self, kind: str, message: dict[str, object], answer: str) -> dict:
        """Send ``message``; the first frame of type ``answer`` (timed under ``kind``)."""
        began = time.perf_counter()
        await self.socket.send_str(json.dumps(message))
        while True:
            received = await asyncio.wait_for(self.socket.receive(), 30.0)
            if received.type != aiohttp.WSMsgType.TEXT:
                raise BenchmarkError(f"the page's socket closed: {received}")
            frame = json.loads(received.data)
            if frame["type"] == "error":
                raise BenchmarkError(f"{kind} refused: {frame}")
            if frame["type"] == answer:
                self.times[kind].append(time.perf_counter() - began)
                if answer == "board":
                    self.sizes.append(len(received.data.encode()))
                return frame

    async def analyse(self, game_id: int) -> None:
        """The game's line, then each position of it, and a turn tried from every fifth."""
        line = await self.ask("open", {"type": "analyse", "game": game_id}, "analysis")
        for index, position in enumerate(line["positions"]):
            await asyncio.sleep(STEP_GAP)
            ask = {"type": "analysis_board", "position": position, "game": game_id}
            frame = await self.ask("step", ask, "board")
            if frame["position"] != position:
                raise BenchmarkError(f"asked for {position}, shown {frame['position']}")
            here = Position.parse(position)
            if index % 5 or here.is_over():
                continue
            await asyncio.sleep(STEP_GAP)
            turn = self.rng.choice(here.legal_turns())
            path = "".join(chosen_path(here, turn))
            ask = {"type": "analysis_turn", "position": position, "path": path, "game": game_id}
            tried = await self.ask("try", ask, "board")
            if tried["position"] != str(here.apply(turn)):
                raise BenchmarkError(f"{turn} from {position} shown as {tried['position']}")


async def open_pages(
    emu: Emulator, http: aiohttp.ClientSession, port: int, tables: list[Table], seed: int
) -> list[tuple[Analyst, list[int]]]:
    """Each table's White opens the live board in its channel: a page, and the finished games
    its lobby lists."""
    base = f"http://127.0.0.1:{port}"
    opened = []
    for number, table in enumerate(tables):
        await emu.launch_entry_point(table.white, table.channel)
        instance = emu.activity_instance(table.channel)
        assert instance is not None
        ((_, session),) = await sessions_for(emu, http, base, [table.white], instance)
        socket = await http.ws_connect(f"{base}/api/live")
        await socket.send_str(json.dumps({"type": "hello", "session": session}))
        while True:
            frame = json.loads((await asyncio.wait_for(socket.receive(), 30.0)).data)
            if frame["type"] == "lobby":
                break
        games = [game["id"] for game in frame["finished"]]
        opened.append((Analyst(socket, seed * 100 + number), games))
    return opened


async def main_async(args: argparse.Namespace) -> bool:
    lighten_emulator()
    with tempfile.TemporaryDirectory(prefix="tholos-analysis-") as tmp:
        async with Emulator() as emu:
            emu.enable_activities()
            tables = add_tables(emu, args.pages)
            db = Path(tmp) / "bot.db"
            await prefill(str(db), args.games, tables, args.seed)
            port = free_port()
            env = {"THOLOS_THREADS": "off", "THOLOS_WEB_PORT": str(port)}
            bot = BotProcess("bot", emu, db, Path(tmp) / "bot.log", env=env)
            problems: list[str] = []
            await bot.start(sync=True)
            try:
                async with aiohttp.ClientSession() as http:
                    pages = await open_pages(emu, http, port, tables, args.seed)
                    await asyncio.gather(*(walk(analyst, games) for analyst, games in pages))
                    analysts = [analyst for analyst, _ in pages]
                    for analyst in analysts:
                        await analyst.socket.close()
            finally:  # the reviews the pages queued are still running: stopped on the way
                code = await bot.stop(settle=False)
                try:
                    bot.assert_clean_log()
                except AssertionError as error:
                    problems.append(str(error))
            return report(analysts, problems, code, args)


async def walk(analyst: Analyst, games: list[int]) -> None:
    if not games:
        raise BenchmarkError("a lobby listed no finished game")
    for game_id in games:
        await analyst.analyse(game_id)


def report(
    analysts: list[Analyst], problems: list[str], code: int | None, args: argparse.Namespace
) -> bool:
    print(f"{args.pages} pages analysing {args.games} finished games (seed {args.seed})")
    for kind, label in (
        ("open", "a game's line (analyse) → its frame"),
        ("step", "a position asked for → its board"),
        ("try", "a turn tried → the board after it"),
    ):
        print(latency_row(label, [value for a in analysts for value in a.times[kind]]))
    sizes = sorted(size for a in analysts for size in a.sizes)
    median, largest = sizes[len(sizes) // 2] / 1024, sizes[-1] / 1024
    print(f"board frame: median {median:.1f} KiB, largest {largest:.1f} KiB")
    step_p95 = percentile([value for a in analysts for value in a.times["step"]], 95) * 1000
    checks = [
        (step_p95 <= TARGET_MS, f"step p95 {step_p95:.0f} ms ≤ {TARGET_MS:.0f} ms"),
        (not problems, f"problems: {problems[:3]}"),
        (code == 0, f"bot exit code {code}"),
    ]
    for ok, text in checks:
        print(("✓ " if ok else "✗ ") + text)
    return all(ok for ok, _ in checks)


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--pages", type=int, default=4)
    parser.add_argument("--seed", type=int, default=random.randrange(2**31))
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    return run_benchmark(main_async, arguments(argv))


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        raise SystemExit(main())
