"""The animated replay: time to draw and encode, and size, for random complete games.

    python -m benchmarks.replay [--games 200] [--turns 70]

Draws the replay of the game closest to ``--turns`` turns and of the longest game among
``--games`` random complete advanced games (5 ornaments), three times each; prints the best
time and the size. Targets: ≤ 2 s and ≤ 4 MB for a 70-turn game; under Discord's 10 MB for any.
"""

from __future__ import annotations

import argparse
import random
import time

from engine.newgame import new_game
from engine.play import random_game
from rendering import BoardView
from rendering.replay import render_replay


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.replay")
    parser.add_argument("--games", type=int, default=200, help="random games to pick from")
    parser.add_argument("--turns", type=int, default=70, help="the typical game's length")
    args = parser.parse_args()
    games = []
    for seed in range(args.games):
        start = new_game("advanced", ornaments=5, seed=seed)
        games.append((start, random_game(start, random.Random(seed)).turns))
    typical = min(games, key=lambda game: abs(len(game[1]) - args.turns))
    longest = max(games, key=lambda game: len(game[1]))
    view = BoardView("Ariadne", "Theseus")
    for label, (start, turns) in (("typical", typical), ("longest", longest)):
        times = []
        for _ in range(3):
            began = time.perf_counter()
            replay = render_replay(start, turns, view)
            times.append(time.perf_counter() - began)
        print(
            f"{label}: {len(turns)} turns, {replay.frames} frames: best {min(times):.2f} s, "
            f"{len(replay.data) / 1e6:.2f} MB ({replay.format}, {replay.duration_ms / 1000:.0f} s "
            "of animation)"
        )


if __name__ == "__main__":
    main()
