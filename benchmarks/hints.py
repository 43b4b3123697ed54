"""A hint's answer time, as a player waits for it: the adviser's worker process (the bot's)
asked for a hint in positions of whole games, from the first turn to the last.

    .venv/bin/python -m benchmarks.hints [--games 6] [--seed 1] [--mode basic|advanced]
                                         [--exact-games 60]

Plays ``--games`` games from new starts by random turns, asks the :class:`Adviser` for a hint in
every position of each (one at a time, as presses would), and prints p50 / p95 / max of the time
from asking to the hint, for all positions and for those where the exact search is tried (≤ 7
places left). The first hint (the worker's start) is reported apart. Every hint is checked
legal; exits with 1 if one is not. Then the exact search alone (in this process, the hint's node
limit, no time cap) on the positions with 6 and with 7 places left of ``--exact-games`` more
random games: how often it finishes, its nodes and its time, p50 / p95. See
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

from bot.workers.ai import Adviser
from engine.ai import _Solver
from engine.core import Mode
from engine.hints import EXACT_PLACES, HINT_BUDGET
from engine.newgame import new_game
from engine.play import random_game
from engine.position import Position

from .bot_latency import percentile


async def measure(games: int, seed: int, mode: Mode) -> int:
    rng = random.Random(seed)
    adviser = Adviser()
    try:
        started = time.perf_counter()
        await adviser.hint(new_game(), 0, member=0)
        first = time.perf_counter() - started
        timings: list[float] = []
        exact: list[float] = []
        for _ in range(games):
            start = new_game(mode, seed=rng.randrange(2**31))
            game = random_game(start, rng)
            position = start
            for turn in game.turns:
                asked = time.perf_counter()
                found = await adviser.hint(position, rng.randrange(2**31), member=0)
                took = time.perf_counter() - asked
                if found.turn not in position.legal_turns():
                    print(f"not legal: {found.turn} in {position}")
                    return 1
                timings.append(took)
                if position.places_left() <= EXACT_PLACES:
                    exact.append(took)
                position = position.apply(turn)
    finally:
        adviser.close()
    print(
        f"{len(timings)} hints in {games} games ({mode}); the worker's first: {first * 1000:.0f} ms"
    )
    for name, values in (("all positions", timings), (f"≤ {EXACT_PLACES} places left", exact)):
        if values:
            ms = [value * 1000 for value in values]
            print(
                f"{name:>20}: n={len(ms):4d}  p50 {percentile(ms, 50):6.0f} ms  "
                f"p95 {percentile(ms, 95):6.0f} ms  max {max(ms):6.0f} ms"
            )
    return 0


def exact_searches(games: int, seed: int, mode: Mode) -> None:
    """The exact search's nodes and time at 6 and 7 places left, in ``games`` random games."""
    rng = random.Random(seed)
    found: dict[int, list[Position]] = {6: [], 7: []}
    for _ in range(games):
        start = new_game(mode, seed=rng.randrange(2**31))
        position = start
        for turn in random_game(start, rng).turns:
            if position.places_left() in found and len(position.legal_turns()) > 1:
                found[position.places_left()].append(position)
            position = position.apply(turn)
    limit = HINT_BUDGET.solver_nodes
    for places, positions in found.items():
        finished: list[tuple[float, float]] = []
        times: list[float] = []
        for position in positions:
            solver = _Solver(limit, None)
            began = time.perf_counter()
            solved = solver.best(position)
            times.append((time.perf_counter() - began) * 1000)
            finished += [(solver.nodes, times[-1])] if solved is not None else []
        if not finished:
            print(f"exact search, {places} places left: none of {len(positions)} finished")
            continue
        nodes, took = [pair[0] for pair in finished], [pair[1] for pair in finished]
        print(
            f"exact search, {places} places left: {len(finished)} of {len(positions)} finished "
            f"within {limit:,} nodes, their nodes p50 {percentile(nodes, 50):,.0f} p95 "
            f"{percentile(nodes, 95):,.0f}, time p50 {percentile(took, 50):.0f} ms p95 "
            f"{percentile(took, 95):.0f} ms; every search's time p50 "
            f"{percentile(times, 50):.0f} ms p95 {percentile(times, 95):.0f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mode", choices=("basic", "advanced"), default="basic")
    parser.add_argument("--exact-games", type=int, default=60)
    args = parser.parse_args()
    mode: Mode = "advanced" if args.mode == "advanced" else "basic"
    failed = asyncio.run(measure(args.games, args.seed, mode))
    exact_searches(args.exact_games, args.seed, mode)
    raise SystemExit(failed)


if __name__ == "__main__":
    main()
