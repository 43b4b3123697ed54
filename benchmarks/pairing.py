"""How long pairing a Swiss round takes: a field of ``--players`` (500) with random ratings
plays ``--rounds`` (9) rounds of random results; each round's pairing is timed (and, with
``--exact``, the exact search's, which a field the quick search loses itself in falls back to).

    .venv/bin/python -m benchmarks.pairing
    .venv/bin/python -m benchmarks.pairing --players 64 --rounds 32 --exact
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import bot.features.tournaments.pairing as pairing
from bot.features.tournaments.pairing import Entrant, swiss_round


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pairing")
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--exact", action="store_true", help="time the exact search too")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    entrants = {i: Entrant(i, float(rng.randint(800, 2400))) for i in range(args.players)}
    print(f"{args.players} players, {args.rounds} rounds, seed {args.seed}")
    quick, exact = [], []
    for number in range(1, args.rounds + 1):
        began = time.perf_counter()
        paired = swiss_round(list(entrants.values()))
        quick.append(time.perf_counter() - began)
        line = f"  round {number:2}: {1000 * quick[-1]:8.1f} ms"
        if args.exact:
            budget, pairing.QUICK_BUDGET = pairing.QUICK_BUDGET, 0
            began = time.perf_counter()
            assert swiss_round(list(entrants.values())) == paired
            exact.append(time.perf_counter() - began)
            pairing.QUICK_BUDGET = budget
            line += f"   exact {1000 * exact[-1]:8.1f} ms"
        print(line)
        for white, black in paired.games:
            result = rng.choice((0.0, 0.5, 1.0))
            w, b = entrants[white], entrants[black]
            entrants[white] = Entrant(
                w.id, w.rating, w.score + result, w.opponents | {black}, w.colours + "w", w.had_bye
            )
            entrants[black] = Entrant(
                b.id,
                b.rating,
                b.score + 1 - result,
                b.opponents | {white},
                b.colours + "b",
                b.had_bye,
            )
        if paired.bye is not None:
            e = entrants[paired.bye]
            entrants[paired.bye] = Entrant(
                e.id, e.rating, e.score + 1, e.opponents, e.colours, True
            )
    for label, times in (("quick", quick), ("exact", exact)):
        if times:
            ordered = sorted(times)
            p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
            print(
                f"{label}: mean {1000 * statistics.mean(times):.1f} ms, p95 {1000 * p95:.1f} "
                f"ms, max {1000 * max(times):.1f} ms"
            )


if __name__ == "__main__":
    main()
