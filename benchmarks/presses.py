"""Presses a turn takes on Discord's buttons, over the turns of random games: one step a press
(the buttons before :mod:`engine.presses`) against a press of as many steps as fit.

    .venv/bin/python -m benchmarks.presses [--games 100] [--seed S]

Plays ``--games`` uniformly random games in each mode (advanced with 3 ornaments) and counts,
for every turn, the steps of its path (one press each before) and the presses
:func:`engine.presses.presses` makes of it (the Discord face's presses now): the mean and the
distribution of each. The player's uniformly random turns weigh every legal turn alike; people
take stones more often than that, and a take is always one press now.
"""

from __future__ import annotations

import argparse
import collections
import random

from engine.builder import chosen_path
from engine.newgame import new_game
from engine.play import random_game
from engine.presses import MOST_CHOICES, presses


def count(
    mode: str, games: int, rng: random.Random
) -> tuple[collections.Counter, collections.Counter]:
    """Turns by their steps, and by their presses, over ``games`` random games of ``mode``."""
    steps: collections.Counter[int] = collections.Counter()
    made: collections.Counter[int] = collections.Counter()
    for _ in range(games):
        start = new_game(mode, ornaments=3 if mode == "advanced" else 0, seed=rng.randrange(2**31))
        position = start
        for turn in random_game(start, rng).turns:
            path = chosen_path(position, turn)
            steps[len(path)] += 1
            made[len(presses(position, path))] += 1
            position = position.apply(turn)
    return steps, made


def line(label: str, counts: collections.Counter[int]) -> str:
    total = sum(counts.values())
    mean = sum(size * number for size, number in counts.items()) / total
    shares = ", ".join(
        f"{size}: {number} ({100 * number / total:.1f} %)"
        for size, number in sorted(counts.items())
    )
    return f"  {label:<22} mean {mean:.2f}   {shares}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=random.randrange(2**31))
    args = parser.parse_args()
    print(
        f"{args.games} random games a mode, seed {args.seed}, "
        f"at most {MOST_CHOICES} choices a press"
    )
    rng = random.Random(args.seed)
    for mode in ("basic", "advanced"):
        steps, made = count(mode, args.games, rng)
        print(f"{mode}: {sum(steps.values())} turns")
        print(line("a step a press", steps))
        print(line("as many as fit", made))


if __name__ == "__main__":
    main()
