"""Each level's solve rate on the shipped puzzles (``bot/features/puzzles/shipped.jsonl``): the
AI's absolute yardstick, which does not move when the rating scale's anchor does. A level solves
a puzzle when its turn is the puzzle's one answer (proven by exhaustive search). The search levels
play by their iterations alone (no time cap: a busy machine does not weaken them), seeded by
the puzzle's line; ``random``'s rate is its expectation, the mean of 1 / legal turns.

    nice -n 19 .venv/bin/python -m benchmarks.ai_puzzles [--levels easy medium hard]

2026-11-29 (151 puzzles, 1 to 6 places left; 55 with 6, beyond the endgame solver), solved
(95% Wilson): greedy 29.8% (23.1–37.5%), easy 83.4% (76.7–88.5%), medium 93.4% (88.2–96.4%),
hard 96.0% (91.6–98.2%); with 6 places left easy 61.8%, medium 81.8%, hard 89.1%; random's
expectation 19.1%. More in benchmarks/README.md, "the AI's levels on the rating scale".
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from engine.ai import PLAYERS, Settings
from engine.arena import arena_player, wilson
from engine.puzzles import Puzzle

SOLVE_PLACES = Settings().solve_places
SHIPPED = Path(__file__).resolve().parent.parent / "bot/features/puzzles/shipped.jsonl"


def solved_by(level: str, puzzles: list[Puzzle]) -> tuple[list[bool], float]:
    """Which of ``puzzles`` ``level`` solves, and its p95 seconds a puzzle."""
    player = arena_player(level, capped=False)
    solved, seconds = [], []
    for seed, puzzle in enumerate(puzzles):
        began = time.perf_counter()
        solved.append(player.choose(puzzle.position, seed) == puzzle.answer)
        seconds.append(time.perf_counter() - began)
    return solved, sorted(seconds)[int(0.95 * (len(seconds) - 1))]


def rate(solved: list[bool]) -> str:
    """``solved`` as a count, a rate and its 95% interval."""
    low, high = wilson(sum(solved) / len(solved), len(solved))
    return (
        f"{sum(solved)}/{len(solved)} = {sum(solved) / len(solved):.1%} "
        f"(95% {low:.1%} to {high:.1%})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ai_puzzles")
    parser.add_argument("--levels", nargs="+", choices=PLAYERS[1:], default=list(PLAYERS[1:]))
    args = parser.parse_args()
    lines = SHIPPED.read_text(encoding="utf-8").splitlines()
    puzzles = [Puzzle.from_json(line) for line in lines if line.strip()]
    wins = sum(puzzle.best == 1.0 for puzzle in puzzles)
    print(f"{len(puzzles)} shipped puzzles ({wins} to win, {len(puzzles) - wins} to draw)")
    chance = statistics.fmean(1 / puzzle.difficulty for puzzle in puzzles)
    print(f"   random: {chance:.1%} (expected: the mean of 1 / legal turns)")
    late = [puzzle.position.places_left() > SOLVE_PLACES for puzzle in puzzles]
    print(f"{sum(late)} with more than {SOLVE_PLACES} places left (beyond the endgame solver)")
    for level in args.levels:
        solved, p95 = solved_by(level, puzzles)
        beyond = [done for done, far in zip(solved, late, strict=True) if far]
        print(
            f"{level:>9}: {rate(solved)}; beyond the solver {rate(beyond)}; "
            f"p95 {p95:.3f} s a puzzle",
            flush=True,
        )


if __name__ == "__main__":
    main()
