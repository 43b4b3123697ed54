"""How long pairing one wave of the pool takes (:func:`bot.features.pool.matching.pair_wave`):
``--members`` (10,000) waiting for one pace, ratings normal around 1500 (sd 300), each waiting
0–120 s; one member in ten blocks someone, one in four has a last opponent among the others.
Each of ``--runs`` waves is a new draw; prints p50 / p95 / max and the pairs made.

    .venv/bin/python -m benchmarks.pool_wave [--members 10000] [--runs 30] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bot.features.pool.matching import Waiting, pair_wave

NOW = 1_000_000.0


def draw(rng: random.Random, size: int) -> tuple[list[Waiting], set[tuple[int, int]], dict]:
    """A wave: its members, its blocks and its last opponents."""
    members = [Waiting(i, rng.gauss(1500, 300), NOW - rng.uniform(0, 120)) for i in range(size)]
    blocks = {(rng.randrange(size), rng.randrange(size)) for _ in range(size // 10)}
    last = {rng.randrange(size): rng.randrange(size) for _ in range(size // 4)}
    return members, blocks, last


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pool_wave")
    parser.add_argument("--members", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    times, paired, differences = [], [], []
    for _ in range(args.runs):
        members, blocks, last = draw(rng, args.members)
        began = time.perf_counter()
        result = pair_wave(members, NOW, blocks=blocks, last_opponents=last)
        times.append(1000 * (time.perf_counter() - began))
        paired.append(len(result.pairs))
        rating = {m.id: round(m.rating) for m in members}
        differences += [abs(rating[a] - rating[b]) for a, b in result.pairs]
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    print(f"{args.members} members, {args.runs} waves, seed {args.seed}")
    print(
        f"pairing: p50 {statistics.median(times):.1f} ms, p95 {p95:.1f} ms, max {max(times):.1f} ms"
    )
    print(
        f"pairs a wave: {min(paired)}–{max(paired)} (of {args.members // 2}); difference "
        f"mean {statistics.mean(differences):.2f}, max {max(differences)} points"
    )


if __name__ == "__main__":
    main()
