"""The AI's levels on the members' rating scale: arena matches between the levels, and against
``greedy`` and ``random``, fitted together into Elo ratings with 95% intervals
(:func:`engine.arena.fit_ratings`), ``medium`` held at 1500 — the rating a newcomer starts at, so
a newcomer's level (``level_for_rating(1500)``) is the level offered by default. These are the
numbers of ``engine.ai.LEVEL_RATINGS``.

Each pair plays games in pairs from the same start with the colours swapped (the arena's rule),
the search levels without their time caps (their iterations alone decide a turn, so a busy
machine does not weaken them). Each pair is written to ``--results`` (JSON) after every second
game, so a run cut short goes on with the pairs not finished (played again from their first
game) and ``--fit-only`` fits every game played so far.

    nice -n 19 .venv/bin/python -m benchmarks.ai_levels --jobs 2   # ~1.5 CPU-hours
    .venv/bin/python -m benchmarks.ai_levels --fit-only --earlier

The results file (``--results``, by default ``benchmarks/ai_levels.json``, kept in the
repository) holds every pair played so far: the first six as recorded by the first run's table
(2026-11-29, 47 minutes), the five of the new levels as this script wrote them. A pair in the
schedule already complete there is not played again.

2026-11-29, this 2-core machine, one process at ``nice 19`` with two jobs: the new levels' five
pairs took 74 minutes. With ``--earlier``, the fit (95% intervals): easy 1242 (1198–1285),
challenging 1703 (1646–1760), hard 1858 (1807–1909), expert 1972 (1889–2055), master 2127
(2026–2229), greedy 541, random −13 — ``LEVEL_RATINGS`` keeps them rounded (hard its published
1870). The games of each pair and the fit: benchmarks/README.md, "the AI's levels on the rating
scale".
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from engine.ai import LEVEL_RATINGS
from engine.arena import (
    Estimate,
    GameRecord,
    Match,
    elo_difference,
    elo_text,
    fit_ratings,
    run_arena,
    summarise,
    wilson,
)

RESULTS = Path(__file__).with_name("ai_levels.json")
"""Every pair played so far (kept in the repository)."""
ANCHOR = ("medium", 1500)
"""The level held fixed, and its rating: the newcomer's 1500."""
SCHEDULE: list[tuple[str, str, int, int]] = [
    ("greedy", "random", 100, 41),
    ("easy", "greedy", 200, 42),
    ("medium", "greedy", 100, 43),
    ("medium", "easy", 200, 44),
    ("hard", "medium", 120, 45),
    ("hard", "easy", 30, 46),
    ("challenging", "medium", 120, 47),
    ("hard", "challenging", 120, 48),
    ("master", "hard", 36, 49),  # cut at 36 of 100 (31–3–2): a level was wanted between
    ("expert", "hard", 100, 51),
    ("master", "expert", 80, 52),
]
"""(A, B, games at ``--scale 1``, seed): adjacent levels, then a level against earlier ones."""
EARLIER: list[dict] = [
    {"a": a, "b": b, "seed": seed, "games": 200, "wins": won, "losses": lost, "draws": drawn}
    | {"a_p95": a_p95, "b_p95": b_p95, "seconds": 0, "source": "engine arena, 2026-11-22"}
    for a, b, seed, won, lost, drawn, a_p95, b_p95 in [
        ("hard", "medium", 32, 179, 16, 5, 0.597, 0.098),
        ("medium", "easy", 31, 162, 32, 6, 0.126, 0.025),
        ("hard", "greedy", 33, 200, 0, 0, 0.591, 0.0),
        ("hard", "random", 34, 200, 0, 0, 0.565, 0.0),
    ]
]
"""The basic games of benchmarks/README.md's arena table (``python -m engine arena``, two
processes, time caps on but not reached): the same search — only its endgame solver's choice
among winning turns changed since — so ``--earlier`` adds them to the fit."""


def play(a: str, b: str, games: int, seed: int, jobs: int, saved: Callable[[dict], None]) -> dict:
    """One pair's games: the result, A's Elo difference with its interval, the move times;
    ``saved`` gets the pair so far after every second game (colours swapped in each two)."""
    began = time.perf_counter()

    def progress(done: list[GameRecord]) -> None:
        if len(done) % 2 == 0 and len(done) < games:
            saved(result(a, b, seed, done, began) | {"complete": False})

    records = run_arena(a, b, games=games, seed=seed, jobs=jobs, capped=False, progress=progress)
    return result(a, b, seed, records, began) | {"complete": True}


def result(a: str, b: str, seed: int, records: list[GameRecord], began: float) -> dict:
    """The pair's games so far, as the results file keeps them."""
    summary = summarise(records)
    return {
        "a": a,
        "b": b,
        "seed": seed,
        "games": len(records),
        "wins": summary.wins,
        "losses": summary.losses,
        "draws": summary.draws,
        "a_p95": round(summary.a_p95, 3),
        "b_p95": round(summary.b_p95, 3),
        "seconds": round(time.perf_counter() - began),
    }


def describe(pair: dict) -> str:
    """One pair's line: the result, the score rate's Elo difference and its interval."""
    games = pair["games"]
    rate = (pair["wins"] + pair["draws"] / 2) / games
    elo = Estimate(*(elo_difference(x) for x in (rate, *wilson(rate, games))))
    took = f"{pair['seconds']} s"
    return (
        f"{pair['a']} vs {pair['b']} (seed {pair['seed']}): {pair['wins']}–{pair['losses']}–"
        f"{pair['draws']} of {pair['games']}{'' if pair.get('complete', True) else ' so far'}, "
        f"{elo_text(elo)} Elo; p95 a move "
        f"{pair['a_p95']:.3f} / {pair['b_p95']:.3f} s; {pair.get('source') or took}"
    )


def fitted(pairs: list[dict]) -> dict[str, Estimate]:
    """Every player's rating with its 95% interval, fitted to all pairs at once."""
    matches = [
        Match(pair["a"], pair["b"], pair["games"], pair["wins"] + pair["draws"] / 2)
        for pair in pairs
    ]
    return fit_ratings(matches, *ANCHOR)


def fit(pairs: list[dict]) -> str:
    """Every player's rating, fitted to all pairs at once, and the levels' table to keep."""
    ratings = fitted(pairs)
    lines = [f"fit ({ANCHOR[0]} = {ANCHOR[1]}; one virtual draw a pair):"]
    for name, estimate in sorted(ratings.items(), key=lambda item: item[1].value):
        lines.append(
            f"  {name:>7}: {estimate.value:6.0f} (95% {estimate.low:.0f} to {estimate.high:.0f})"
        )
    measured = {
        level: round(ratings[level].value, -1) for level in LEVEL_RATINGS if level in ratings
    }
    lines.append(f"LEVEL_RATINGS = {json.dumps({k: int(v) for k, v in measured.items()})}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ai_levels")
    parser.add_argument("--scale", type=float, default=1.0, help="games = scale × the schedule's")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="processes (1: a pair cut short is whole pairs of games)",
    )
    parser.add_argument("--fit-only", action="store_true")
    parser.add_argument("--earlier", action="store_true", help="fit with EARLIER's games too")
    args = parser.parse_args()
    pairs: list[dict] = json.loads(args.results.read_text()) if args.results.exists() else []
    for a, b, games, seed in [] if args.fit_only else SCHEDULE:
        if any(
            (p["a"], p["b"], p["seed"], p.get("complete", True)) == (a, b, seed, True)
            for p in pairs
        ):
            continue
        count = max(2, 2 * round(games * args.scale / 2))
        print(f"playing {a} vs {b}: {count} games …", file=sys.stderr, flush=True)

        def saved(pair: dict, a: str = a, b: str = b, seed: int = seed) -> None:
            kept = [p for p in pairs if (p["a"], p["b"], p["seed"]) != (a, b, seed)]
            pairs[:] = [*kept, pair]
            args.results.write_text(json.dumps(pairs, indent=1))

        saved(play(a, b, count, seed, args.jobs, saved))
        print(describe(pairs[-1]), flush=True)
    if args.fit_only:
        print("\n".join(describe(pair) for pair in pairs))
    if args.earlier:
        print("\n".join(describe(pair) for pair in EARLIER))
    print(fit(pairs + (EARLIER if args.earlier else [])))


if __name__ == "__main__":
    main()
