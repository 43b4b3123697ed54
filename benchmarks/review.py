"""The AI's review of a whole game, in one process as in the bot's review worker.

    python -m benchmarks.review [--games 3] [--turns 70]

Reviews ``--games`` random complete advanced games (5 ornaments) of about ``--turns`` turns at
the review budget and prints the wall time per game and per position. Target: ≤ 60 s for a
70-turn game. (The effect on live games is measured by ``benchmarks.bot_latency --reviews``.)
"""

from __future__ import annotations

import argparse
import random
import time

from engine.newgame import new_game
from engine.play import random_game
from engine.review import review_game


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.review")
    parser.add_argument("--games", type=int, default=3, help="games to review")
    parser.add_argument("--turns", type=int, default=70, help="their length, about")
    args = parser.parse_args()
    candidates = []
    for seed in range(200):
        start = new_game("advanced", ornaments=5, seed=seed)
        turns = random_game(start, random.Random(seed)).turns
        candidates.append((abs(len(turns) - args.turns), seed, start, turns))
    for _, seed, start, turns in sorted(candidates, key=lambda c: (c[0], c[1]))[: args.games]:
        began = time.perf_counter()
        review = review_game(start, turns, seed=seed)
        seconds = time.perf_counter() - began
        white, black = review.accuracy
        print(
            f"seed {seed}: {len(turns)} turns reviewed in {seconds:.1f} s "
            f"({seconds / (len(turns) + 1) * 1000:.0f} ms a position); accuracy "
            f"{white:.0%} / {black:.0%}"
        )


if __name__ == "__main__":
    main()
