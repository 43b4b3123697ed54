"""How fast /leaderboard and /tholos stats answer with a large history.

Fills a database with finished games among many players (at most :data:`PLAYING` of them),
rebuilds their ratings (timed), gives every other player a rating row directly (one
transaction), then starts the real bot against the test emulator and measures the
acknowledgement latency of ``/leaderboard`` (first, middle and last pages, Next from the first
and from the middle page) and ``/tholos stats``.

    .venv/bin/python -m benchmarks.leaderboard [--games 10000] [--players 500] [--runs 30]
    .venv/bin/python -m benchmarks.leaderboard --players 200000 --runs 20
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from bot.features.ratings.rebuild import rebuild_ratings
from bot.storage import open_database
from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.table import Table

PLAYING = 500
"""Finished games are played among the first this many players; the rest only have a rating."""


async def fill(
    path: Path, guild_id: int, games: int, players: list[int], seed: int
) -> tuple[float, Counter[int]]:
    """Insert ``games`` finished games among ``players``; return the rebuild's seconds and how
    many games each player has."""
    rng = random.Random(seed)
    database = await open_database(str(path))
    rows = []
    games_of: Counter[int] = Counter()
    playing = players[:PLAYING]
    now = time.time()
    for number in range(games):
        white, black = rng.sample(playing, 2)
        games_of.update((white, black))
        result = rng.choices(("white", "black", "draw"), weights=(45, 45, 10))[0]
        reason = "tie" if result == "draw" else rng.choice(("points", "columns", "resignation"))
        points = (rng.randint(-5, 40), rng.randint(-5, 40))
        rows.append(
            (
                guild_id,
                10_000 + number,
                white,
                black,
                f"p{white}",
                f"p{black}",
                result,
                reason,
                *points,
                now - games + number,  # a second apart, up to now: settled ratings
            )
        )
    async with database.transaction() as connection:
        await connection.executemany(
            "INSERT INTO games (guild_id, channel_id, white_id, black_id, white_name, black_name, "
            "mode, seed, start_position, position, status, result, reason, white_points, "
            "black_points, created_at, updated_at, last_move_at, finished_at, version, "
            "board_version) VALUES (?, ?, ?, ?, ?, ?, 'basic', 0, '-', '-', 'finished', ?, ?, ?, "
            "?, 0, 0, 0, ?, 1, 1)",
            rows,
        )
    began = time.perf_counter()
    await rebuild_ratings(database)
    seconds = time.perf_counter() - began
    # The players without games: settled ratings drawn on a coarse grid, so that many tie.
    rated = [
        (user_id, 1500.0 + rng.randint(-400, 400) * 0.5, 60.0, 0.06, now)
        for user_id in players[PLAYING:]
    ]
    async with database.transaction() as connection:
        await connection.executemany(
            "INSERT INTO member_ratings (pool, user_id, rating, deviation, volatility, games, "
            "wins, losses, draws, updated_at) "
            "VALUES ('correspondence', ?, ?, ?, ?, 30, 15, 15, 0, ?)",
            rated,
        )
        await connection.executemany(
            "INSERT INTO server_players (guild_id, user_id) VALUES (?, ?)",
            [(guild_id, user_id) for user_id in players[PLAYING:]],
        )
    await database.close()
    return seconds, games_of


def summary(name: str, latencies: list[float]) -> str:
    """p50 / p95 / max in milliseconds."""
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"{name:<28} p50 {statistics.median(ordered) * 1000:6.1f} ms   "
        f"p95 {p95 * 1000:6.1f} ms   max {ordered[-1] * 1000:6.1f} ms   (n={len(ordered)})"
    )


async def main(games: int, player_count: int, runs: int, seed: int) -> None:
    """Fill, start the bot, measure."""
    with tempfile.TemporaryDirectory(prefix="tholos-bench-") as directory:
        await measure(Path(directory), games, player_count, runs, seed)


async def measure(workdir: Path, games: int, player_count: int, runs: int, seed: int) -> None:
    """Fill a database in ``workdir``, start the bot on it, time the commands."""
    async with Emulator() as emulator:
        table = Table(emulator)
        alice = emulator.member("alice")
        players = [alice.id, *range(1, player_count)]
        rebuild, games_of = await fill(workdir / "t.db", emulator.guild.id, games, players, seed)
        print(
            f"{games} finished games among {player_count} players; rating rebuild {rebuild:.2f} s"
        )
        bot = BotProcess(
            "bot", emulator, workdir / "t.db", workdir / "bot.log", env={"THOLOS_THREADS": "off"}
        )
        try:
            await bot.start(sync=True)
            last_page = -(-player_count // 10)
            middle_page = (last_page + 1) // 2
            names = (
                "/leaderboard page 1",
                f"/leaderboard page {last_page} (last)",
                f"/leaderboard page {middle_page} (middle)",
                "Next from page 1",
                f"Next from page {middle_page}",
                "/tholos stats",
            )
            timings: dict[str, list[float]] = {name: [] for name in names}
            for _ in range(runs):
                first = await table.slash(alice, "leaderboard")
                timings[names[0]].append(first.latency)
                last = await table.slash(alice, "leaderboard", page=last_page)
                timings[names[1]].append(last.latency)
                middle = await table.slash(alice, "leaderboard", page=middle_page)
                timings[names[2]].append(middle.latency)
                for name, shown in ((names[3], first), (names[4], middle)):
                    assert shown.original is not None
                    step = await table.click(
                        alice, shown.original, table.labelled(shown.original, "Next")
                    )
                    timings[name].append(step.latency)
                stats = await table.slash(alice, "tholos stats")
                timings[names[5]].append(stats.latency)
            for name, latencies in timings.items():
                print(summary(name, latencies))
            print(
                f"(alice has {games_of[alice.id]} finished games; acknowledgement window: 3000 ms)"
            )
            assert not table.failed() and emulator.violations == [], emulator.violations
            await bot.stop()
        finally:
            bot.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.games, arguments.players, arguments.runs, arguments.seed))
