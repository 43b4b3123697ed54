"""Maintenance while the bot plays: do presses slow down while ``python -m bot rebuild-ratings``
recomputes a large history's ratings beside the live bot?

    .venv/bin/python -m benchmarks.rebuild                       # 100,000 games, SQLite
    .venv/bin/python -m benchmarks.rebuild --backend postgresql
    .venv/bin/python -m benchmarks.rebuild --history 20000 --seconds 20

The database is filled by ``tests.history`` with ``--history`` finished, rated games (with
their turns: 100,000 games are about 5.8 million turns) between ``--players`` players, the
ratings missing, so that the first rebuild writes every row. The bot starts on it; ``--games``
live games (``bot_latency``'s players: random legal turns, ``--think`` seconds between presses)
are played for ``--seconds`` without maintenance, then as long again while rebuilds run one
after another. The report compares "last step press → new board" of the two windows (target:
p95 during the rebuilds ≤ 1.5× without), and gives each rebuild's time, the games it caught
up and its longest write transaction. Checks: every rebuild succeeded, the final ratings equal
Glicko-2 over the whole history (``tests.history.replayed_by_hand``), no emulator violation, no
player problem, a clean bot log.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from bot.base.database_url import redact
from bot.storage import open_database
from tests.e2e.emulator import BotProcess, Emulator
from tests.history import replayed_by_hand, same_ratings, stored_ratings, write_history
from tests.postgres import PostgresServer

from .bot_latency import (
    LiveGames,
    add_tables,
    latency_row,
    lighten_emulator,
    percentile,
    verdict,
)

TARGET_RATIO = 1.5
REPO_ROOT = Path(__file__).resolve().parents[1]
_REPORT = re.compile(
    r"\((\d+) finished during the rebuild\); (\d+) rows changed, the longest write took (\d+) ms"
)


async def rebuild(url: str) -> tuple[float, int, int, int]:
    """Run ``python -m bot rebuild-ratings`` on ``url``: seconds, games caught up, rows
    changed, longest write (ms)."""
    began = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "rebuild-ratings",
        cwd=REPO_ROOT,
        env={"PATH": os.environ.get("PATH", ""), "THOLOS_DB": url},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"rebuild-ratings failed: {err.decode()}")
    found = _REPORT.search(out.decode())
    assert found, out.decode()
    during, changed, longest = (int(number) for number in found.groups())
    return time.perf_counter() - began, during, changed, longest


async def run(args: argparse.Namespace, workdir: Path) -> bool:
    server = None
    if args.backend == "postgresql":
        server = PostgresServer()
        server.start()
        url = await server.create_database()
    else:
        url = str(workdir / "history.db")
    try:
        return await measure(args, workdir, url)
    finally:
        if server is not None:
            server.close()


async def measure(args: argparse.Namespace, workdir: Path, url: str) -> bool:
    lighten_emulator()
    async with Emulator() as emu:
        tables = add_tables(emu, args.games)
        database = await open_database(url)
        history = await write_history(
            database,
            games=args.history,
            players=args.players,
            guild_id=emu.guild.id,
            channel_id=tables[0].channel.id,
            seed=args.seed,
        )
        await database.close()
        print(
            f"history: {history.games} games, {history.turns} turns, {history.players} "
            f"players written in {history.seconds:.0f} s into {redact(url)}"
        )
        bot = BotProcess(
            "bot",
            emu,
            Path(url) if args.backend == "sqlite" else workdir / "unused.db",
            workdir / "bot.log",
            env={"THOLOS_THREADS": "off", "THOLOS_DB": url},
        )
        await bot.start(sync=True)
        live = LiveGames(emu, tables, args.seed, args.think)
        live.start()
        await asyncio.sleep(args.warmup)  # the games started, the caches warm
        quiet_from = time.time()
        await asyncio.sleep(args.seconds)
        rebuilds_from = time.time()
        rebuilds = []
        while time.time() - rebuilds_from < args.seconds or not rebuilds:
            rebuilds.append(await rebuild(url))
        rebuilds_to = time.time()
        await live.stop()
        await bot.settle(0.3)
        exit_code = await bot.stop()
        try:
            bot.assert_clean_log()
            log_clean = True
        except AssertionError:
            log_clean = False
        database = await open_database(url)
        try:
            equal = same_ratings(await stored_ratings(database), await replayed_by_hand(database))
        finally:
            await database.close()
    pressed = list(zip(live.samples.new_board_at, live.samples.new_board, strict=True))
    quiet = [latency for at, latency in pressed if quiet_from <= at < rebuilds_from]
    during = [latency for at, latency in pressed if rebuilds_from <= at <= rebuilds_to]
    print(
        f"Tholos rebuild benchmark: {args.backend}, {args.history} games' history, "
        f"{args.games} live games, --think {args.think:g} s"
    )
    for number, (seconds, caught_up, changed, longest) in enumerate(rebuilds, start=1):
        print(
            f"    rebuild {number}: {seconds:.1f} s, {caught_up} games caught up, {changed} "
            f"rows changed, longest write {longest} ms"
        )
    caught_up = sum(r[1] for r in rebuilds)
    print(
        f"    {len(rebuilds)} rebuilds, {caught_up} games that ended during one caught up, "
        f"longest write {max(r[3] for r in rebuilds)} ms"
    )
    print(f"    {'last step press → new board (ms)':<40}{'n':>6}{'p50':>8}{'p95':>8}{'max':>8}")
    print(latency_row("without maintenance", quiet))
    print(latency_row("while rebuilds ran", during))
    problems = live.problems()
    checks = [
        (equal, "the ratings equal Glicko-2 over the whole history"),
        (not emu.violations, f"no emulator violation ({len(emu.violations)})"),
        (not problems, f"the players had no problem {problems[:2]}"),
        (exit_code == 0 and log_clean, "the bot stopped with 0 and a clean log"),
        (min(len(quiet), len(during)) >= 20, f"enough presses ({len(quiet)}, {len(during)})"),
    ]
    if quiet and during:
        ratio = percentile(during, 95) / percentile(quiet, 95)
        checks.append(
            (
                ratio <= TARGET_RATIO,
                f"p95 during the rebuilds {ratio:.2f}× without (≤ {TARGET_RATIO}×)",
            )
        )
    return verdict(checks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.rebuild", description=__doc__)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--history", type=int, default=100_000, help="finished games (100000)")
    parser.add_argument("--players", type=int, default=2000, help="their players (2000)")
    parser.add_argument("--games", type=int, default=20, help="live games (20)")
    parser.add_argument("--think", type=float, default=0.5, help="mean pause per press (0.5 s)")
    parser.add_argument(
        "--seconds",
        type=float,
        default=40.0,
        help="seconds of play without, then with rebuilds (40)",
    )
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tholos-rebuild-") as workdir:
        return 0 if asyncio.run(run(args, Path(workdir))) else 1


if __name__ == "__main__":
    sys.exit(main())
