"""Command line: draw a board to a PNG file, describe it, or time the renderer.

    python -m rendering board POSITION --out FILE.png [--last TURN] [--names A,B] [--final]
    python -m rendering describe POSITION [--last TURN] [--names A,B] [--final]
    python -m rendering bench [--runs N]

Bad input exits with status 2 and a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from typing import NoReturn

from engine import InvalidPositionError, InvalidTurnError, Position, parse_turn

from . import BoardView, describe_board, render_board

BENCH_CASES = (
    ("mid-game basic board", "wb/wgbbg/wbw/bbw/bb/ww/b g - w -", "b@A/G>B"),
    (
        "full advanced board",
        "gwwbw/gbbgb/wwbwbgb/wggww/ggwww/wggbw/bbbbb wb b b "
        "A=plus3,B=grayloss,C=tall,D=minority,E=graygain",
        "w@D",
    ),
)
"""The benchmark's positions, with the turn that led to each."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """Usage errors: one line on stderr and exit status 2."""
        sys.stderr.write(f"{self.prog}: {message}\n")
        sys.exit(2)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m rendering", description="Draw Tholos boards.")
    commands = parser.add_subparsers(dest="command", required=True)
    board = commands.add_parser("board", help="draw a position to a PNG file")
    describe = commands.add_parser("describe", help="print a position's text description")
    for command in (board, describe):
        command.add_argument("position", help='position notation, e.g. "-/-/-/-/-/-/- ww bb w -"')
        command.add_argument("--last", help="the turn that led to the position, e.g. w@B/C>E")
        command.add_argument("--names", help="White's and Black's names: A,B")
        command.add_argument("--final", action="store_true", help="show the final scoring")
    board.add_argument("--out", required=True, help="the PNG file to write")
    bench = commands.add_parser("bench", help="time render+encode and report PNG sizes")
    bench.add_argument("--runs", type=int, default=50, help="renders per case (default 50)")
    return parser


def _view(arguments: argparse.Namespace) -> BoardView:
    names = ("White", "Black")
    if arguments.names is not None:
        white, comma, black = arguments.names.partition(",")
        if not comma:
            raise ValueError(
                f"--names needs two names separated by a comma, got {arguments.names!r}"
            )
        names = (white, black)
    last = None if arguments.last is None else parse_turn(arguments.last)
    return BoardView(names[0], names[1], last_turn=last, final=arguments.final)


def bench(runs: int) -> list[str]:
    """Median render+encode time and PNG size for each benchmark position, as report lines."""
    lines = []
    for label, notation, last in BENCH_CASES:
        position, view = Position.parse(notation), BoardView("Ana", "Bob", parse_turn(last))
        png = render_board(position, view)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            png = render_board(position, view)
            times.append(time.perf_counter() - start)
        median = statistics.median(times) * 1000
        lines.append(
            f"{label:<22} median {median:6.1f} ms  {len(png) / 1024:6.1f} KB  ({runs} runs)"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    arguments = _parser().parse_args(argv)
    try:
        if arguments.command == "bench":
            if arguments.runs < 1:
                raise ValueError("--runs must be at least 1")
            print("\n".join(bench(arguments.runs)))
            return 0
        position = Position.parse(arguments.position)
        view = _view(arguments)
        if arguments.command == "describe":
            print(describe_board(position, view))
            return 0
        png = render_board(position, view)
        with open(arguments.out, "wb") as file:
            file.write(png)
    except (InvalidPositionError, InvalidTurnError, ValueError, OSError) as error:
        sys.stderr.write(f"python -m rendering: {error}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
