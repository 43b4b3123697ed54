"""A hint's answer time, as a player waits for it: the adviser's worker process (the bot's)
asked for a hint in positions of whole games, from the first turn to the last.

    .venv/bin/python -m benchmarks.hints [--games 6] [--seed 1] [--mode basic|advanced]

Plays ``--games`` games from new starts by random turns, asks the :class:`Adviser` for a hint in
every position of each (one at a time, as presses would), and prints p50 / p95 / max of the time
from asking to the hint, for all positions and for the endgame's exact ones (≤ 5 places left),
and how many were exact. The first hint (the worker's start) is reported apart. Every hint is
checked legal; exits with 1 if one is not. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

from bot.workers.ai import Adviser
from engine.hints import EXACT_PLACES
from engine.newgame import new_game
from engine.play import random_game

from .bot_latency import percentile


async def measure(games: int, seed: int, mode: str) -> int:
    rng = random.Random(seed)
    adviser = Adviser()
    try:
        started = time.perf_counter()
        await adviser.hint(new_game(), 0, member=0)
        first = time.perf_counter() - started
        timings: list[float] = []
        exact: list[float] = []
        for _ in range(games):
            start = new_game(mode, seed=rng.randrange(2**31))  # type: ignore[arg-type]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mode", choices=("basic", "advanced"), default="basic")
    args = parser.parse_args()
    raise SystemExit(asyncio.run(measure(args.games, args.seed, args.mode)))


if __name__ == "__main__":
    main()
