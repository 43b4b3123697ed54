"""Pixel fingerprints of a fixed set of sample boards, to show that a change to the drawing or
the encoding leaves every board as the players see it (the PNG bytes may differ).

    .venv/bin/python -m benchmarks.board_pixels > after.txt
    git stash; .venv/bin/python -m benchmarks.board_pixels > before.txt; git stash pop
    diff before.txt after.txt        # empty: the same pixels

The boards: random games from seeds 0 … N − 1 (``--games``, 12), basic and advanced (one to
five ornaments), in English, Spanish and German, with short, long, right-to-left, CJK, emoji
and empty names; every third turn drawn, with the last turn marked, final scorings and notes.
Each line: seed, ply, a hash of the decoded RGB pixels, the PNG's size in bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import random

from PIL import Image

from bot.i18n.catalogues import translator
from engine.newgame import new_game
from rendering.board import render_board
from rendering.view import BoardView

NAMES = [
    ("Ana", "Bob"),
    ("Maximilian Alexander von Hohenzollern-Sigmaringen", "李小龍"),
    ("محمد", "🎲 Zoë"),
    ("", ""),
]


def fingerprints(games: int) -> list[str]:
    lines = []
    for seed in range(games):
        rng = random.Random(seed)
        advanced = seed % 2 == 1
        position = (
            new_game("advanced", ornaments=1 + seed % 5, seed=seed) if advanced else new_game()
        )
        language = ("en", "es", "de")[seed % 3]
        white, black = NAMES[seed % len(NAMES)]
        ply = 0
        while not position.is_over():
            turn = rng.choice(position.legal_turns())
            position = position.apply(turn)
            ply += 1
            if ply % 3 and not position.is_over():
                continue
            over = position.is_over()
            view = BoardView(
                white,
                black,
                last_turn=turn,
                final=over and seed % 5 == 0,
                note="Bob resigned" if over and seed % 4 == 3 else None,
                translator=translator(language),
            )
            png = render_board(position, view)
            pixels = Image.open(io.BytesIO(png)).convert("RGB").tobytes()
            lines.append(f"{seed} {ply} {hashlib.sha256(pixels).hexdigest()[:16]} {len(png)}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.board_pixels")
    parser.add_argument("--games", type=int, default=12, help="sample games (12)")
    print("\n".join(fingerprints(parser.parse_args().games)))


if __name__ == "__main__":
    main()
