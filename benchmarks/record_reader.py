"""The record reader on hostile records: time and memory against the input's size.

    python -m benchmarks.record_reader [--sizes 10000 40000 160000]

For each size n: a complete game's record whose first turn line has a run of n spaces between
the turn and the position (and n after the clock-less line), read with ``read_record``; and a
header tag of n characters (refused past ``TAG_LENGTH``, so its cost is the refusal's). Prints
the time and the peak of memory allocated (tracemalloc). Linear: n × 4 costs about × 4.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import time
import tracemalloc
from collections.abc import Callable

from engine.newgame import new_game
from engine.play import random_game
from engine.record import GameRecord, RecordError, read_record, write_record
from engine.scoring import score


def record_text() -> str:
    start = new_game(seed=1)
    game = random_game(start, random.Random(1))
    outcome = score(game.final).outcome
    assert outcome is not None
    result = {0: "1-0", 1: "0-1", None: "1/2-1/2"}[outcome.winner]
    record = GameRecord(
        "Ana", "Bob", "2026-11-29", "basic", 1, start, tuple(game.turns), outcome.reason, result
    )
    return write_record(record)


def measure(read: Callable[[], object]) -> tuple[float, int]:
    """Seconds and peak bytes allocated by one read."""
    tracemalloc.start()
    began = time.perf_counter()
    read()
    seconds = time.perf_counter() - began
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.record_reader")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 40_000, 160_000])
    args = parser.parse_args()
    text = record_text()
    print(f"{'n':>8} {'spaces: s':>10} {'peak MB':>8} {'long tag: s':>12} {'peak MB':>8}")
    for n in args.sizes:
        spaced = text.replace("  ", " " * n, 1)

        def long_tag(n: int = n) -> None:
            with contextlib.suppress(RecordError):
                read_record(text.replace('[White "', '[White "' + "x" * n, 1))

        spaces, spaces_peak = measure(lambda spaced=spaced: read_record(spaced))
        tag, tag_peak = measure(long_tag)
        print(
            f"{n:>8} {spaces:>10.4f} {spaces_peak / 1e6:>8.2f} {tag:>12.4f} {tag_peak / 1e6:>8.2f}"
        )


if __name__ == "__main__":
    main()
