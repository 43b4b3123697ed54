"""Every benchmark script still imports: a benchmark reaches into the bot's modules, and a move
that breaks one is found here, not the next time someone measures."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

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
