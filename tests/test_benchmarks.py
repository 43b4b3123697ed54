"""Every benchmark script still imports: a benchmark reaches into the bot's modules, and a move
that breaks one is found here, not the next time someone measures."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from benchmarks.ai_levels import EARLIER, RESULTS, SCHEDULE, fitted
from engine.ai import LEVEL_RATINGS

BENCHMARKS = sorted(
    path.stem
    for path in (Path(__file__).resolve().parent.parent / "benchmarks").glob("*.py")
    if path.stem != "__init__"
)


def test_there_are_benchmarks():
    assert "bot_latency" in BENCHMARKS


@pytest.mark.parametrize("name", BENCHMARKS)
def test_a_benchmark_imports(name: str):
    module = importlib.import_module(f"benchmarks.{name}")
    assert module.__doc__, f"benchmarks/{name}.py says what it measures"


def test_the_levels_ratings_are_the_fit_of_the_games_kept():
    """``LEVEL_RATINGS`` is what the kept games say: every scheduled pair is in
    benchmarks/ai_levels.json, and each level's rating lies in its fitted 95% interval (a level
    new in the fit at its value rounded to 10)."""
    pairs = json.loads(RESULTS.read_text())
    played = {(pair["a"], pair["b"], pair["seed"], pair["games"]) for pair in pairs}
    assert {(a, b, seed, games) for a, b, games, seed in SCHEDULE} <= played
    ratings = fitted(pairs + EARLIER)
    for level, rating in LEVEL_RATINGS.items():
        estimate = ratings[level]
        assert estimate.low <= rating <= estimate.high, (level, rating, estimate)
    for level in ("challenging", "expert", "master"):
        assert LEVEL_RATINGS[level] == round(ratings[level].value, -1), level
