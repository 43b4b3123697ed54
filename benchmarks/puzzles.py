"""How long finding and proving a puzzle takes: ``--games`` (40) self-play games from
``--first-seed``, each searched for its puzzle (exhaustive search of every late position, at
most ``--late`` places left, until one makes a puzzle); then every puzzle found is proven again
(``verify``). Prints the time per game, per puzzle found and per verification (mean, p95, max).

    .venv/bin/python -m benchmarks.puzzles
    .venv/bin/python -m benchmarks.puzzles --games 100 --late 5
"""

from __future__ import annotations

import argparse
import statistics
import time

from engine.puzzles import LATE, self_play_puzzles, verify


def summary(seconds: list[float]) -> str:
    """Mean, p95 and max, in seconds."""
    if not seconds:
        return "none"
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"mean {statistics.fmean(ordered):.2f} s, p95 {p95:.2f} s, max {ordered[-1]:.2f} s "
        f"({len(ordered)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.puzzles")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--late", type=int, default=LATE)
    args = parser.parse_args()
    games, puzzles, proofs = [], [], []
    found = []
    for seed in range(args.first_seed, args.first_seed + args.games):
        began = time.perf_counter()
        found += list(self_play_puzzles(seed, late=args.late))
        games.append(time.perf_counter() - began)
    for puzzle in found:
        began = time.perf_counter()
        assert verify(puzzle), puzzle
        proofs.append(time.perf_counter() - began)
    total = sum(games)
    puzzles = [total / len(found)] if found else []
    print(
        f"{args.games} self-play games (seeds {args.first_seed}–"
        f"{args.first_seed + args.games - 1}), at most {args.late} places left"
    )
    print(f"  searching a game:   {summary(games)}")
    print(
        f"  puzzles found:      {len(found)} ({len(found) / args.games:.0%} of the games; "
        f"{puzzles[0] if puzzles else float('nan'):.2f} s of search a puzzle)"
    )
    print(f"  proving a puzzle:   {summary(proofs)}")
    wins = sum(1 for puzzle in found if puzzle.best == 1.0)
    print(
        f"  kinds:              {wins} to win, {len(found) - wins} to save a draw; "
        f"choices (difficulty) {sorted(p.difficulty for p in found)}"
    )


if __name__ == "__main__":
    main()
