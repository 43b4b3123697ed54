"""Command line: ``python -m engine
perft|moves|apply|score|random-game|bench|arena|replay|puzzles``.

Positions and turns use the canonical notation; a position is one (quoted) argument. Bad input
exits with status 2 and a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from . import arena
from .ai import PLAYERS
from .core import COLOUR_LETTERS, Mode
from .newgame import new_game
from .play import perft, random_game
from .position import Position
from .puzzles import LATE, Puzzle, self_play_puzzles, verify
from .record import read_record
from .scoring import score


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _position(text: str) -> Position:
    return Position.parse(text)


def _depth(text: str) -> int:
    if not text.isdigit():
        raise ValueError(f"depth must be a whole number 0 or more, got {text!r}")
    return int(text)


def _cmd_perft(args: argparse.Namespace) -> None:
    print(perft(_position(args.position), _depth(args.depth)))


def _cmd_moves(args: argparse.Namespace) -> None:
    for text in sorted(str(turn) for turn in _position(args.position).legal_turns()):
        print(text)


def _cmd_apply(args: argparse.Namespace) -> None:
    print(_position(args.position).apply(args.turn))


def _cmd_score(args: argparse.Namespace) -> None:
    print(json.dumps(score(_position(args.position)).to_dict()))


def _cmd_replay(args: argparse.Namespace) -> None:
    """Check a game record turn by turn; print the final position and its score."""
    if args.file == "-":
        text = sys.stdin.read()
    else:
        try:
            with open(args.file, encoding="utf-8") as source:
                text = source.read()
        except OSError as error:
            raise ValueError(f"cannot read {args.file}: {error.strerror}") from None
    record = read_record(text)
    final = record.positions()[-1]
    print(final)
    print(json.dumps(score(final).to_dict()))


def _cmd_puzzles(args: argparse.Namespace) -> None:
    """Find puzzles in self-play games and append them to a file, with progress on stderr; run
    again, it goes on after the last game it found one in. ``--verify``: prove every puzzle of
    the file again by exhaustive search."""
    path = Path(args.file)
    known = _read_puzzles(path) if path.exists() else []
    if args.verify:
        wrong = [index for index, puzzle in enumerate(known, start=1) if not verify(puzzle)]
        print(
            f"{len(known) - len(wrong)} of {len(known)} puzzles proven; wrong: "
            f"{', '.join(map(str, wrong)) or 'none'}"
        )
        if wrong:
            raise ValueError(f"{len(wrong)} puzzles of {path} are not what they say")
        return
    seeds = [
        int(p.source.split()[1].rstrip(",")) for p in known if p.source.startswith("self-play ")
    ]
    first = max(seeds, default=args.first_seed - 1) + 1
    started, found = time.perf_counter(), 0
    with path.open("a", encoding="utf-8") as out:
        for seed in range(first, first + args.games):
            for puzzle in self_play_puzzles(seed, late=args.late):
                out.write(puzzle.to_json() + "\n")
                out.flush()
                found += 1
            done = seed - first + 1
            print(
                f"\rgame {done}/{args.games} (seed {seed}): {found} new puzzles, "
                f"{time.perf_counter() - started:.0f} s",
                end="",
                file=sys.stderr,
                flush=True,
            )
    print(file=sys.stderr)
    print(f"{found} new puzzles in {args.games} games; {len(known) + found} in {path}")


def _read_puzzles(path: Path) -> list[Puzzle]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror}") from None
    return [Puzzle.from_json(line) for line in lines if line.strip()]


def _cmd_random_game(args: argparse.Namespace) -> None:
    mode: Mode = "advanced" if args.ornaments else "basic"
    start = new_game(mode, ornaments=args.ornaments, seed=args.seed)
    game = random_game(start, random.Random(args.seed))
    print(f"start {game.start}")
    for ply, turn in enumerate(game.turns, start=1):
        print(f"{ply} {COLOUR_LETTERS[(game.start.turn + ply - 1) % 2]} {turn}")
    print(f"final {game.final}")
    leader = score(game.final).leader
    white, black = leader.points
    print(f"result {leader.result} {white}-{black} ({leader.reason})")


def _timed(function: Callable[[], object], repeats: int) -> float:
    """The median wall time of ``repeats`` calls, in seconds."""
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def _cmd_bench(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    start = new_game()
    games = plies = 0
    began = time.perf_counter()
    while (elapsed := time.perf_counter() - began) < args.seconds or games == 0:
        plies += len(random_game(start, rng).turns)
        games += 1
    print(f"random games: {games / elapsed:,.0f} full games/s ({games} games in {elapsed:.2f} s)")
    print(f"mean plies per game: {plies / games:.1f} ({elapsed / plies * 1e6:.1f} us per ply)")
    depth = 4
    leaves = perft(start, depth)
    seconds = _timed(lambda: perft(start, depth), repeats=3)
    print(f"perft({depth}) from the start: {leaves:,} leaves, {leaves / seconds:,.0f} leaves/s")


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number 1 or more, got {text!r}")
    return int(text)


def _cmd_arena(args: argparse.Namespace) -> None:
    began = last = time.perf_counter()

    def progress(done: list[arena.GameRecord]) -> None:
        nonlocal last
        now = time.perf_counter()
        if now - last >= 5 or len(done) == args.games:
            last = now
            so_far = arena.summarise(done)
            print(
                f"arena: {len(done)}/{args.games} games, A {so_far.wins} wins {so_far.losses} "
                f"losses {so_far.draws} draws, {now - began:.0f} s",
                file=sys.stderr,
                flush=True,
            )

    records = arena.run_arena(
        args.a,
        args.b,
        games=args.games,
        seed=args.seed,
        ornaments=args.ornaments,
        jobs=args.jobs,
        capped=not args.uncapped,
        progress=progress,
    )
    summary = arena.summarise(records)
    print(arena.report(args.a, args.b, summary, args.games, time.perf_counter() - began))


_POSITIONAL_COMMANDS = ("perft", "moves", "apply", "score")


def _build_parser() -> _Parser:
    parser = _Parser(prog="python -m engine", description="The Tholos rules engine.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    command = commands.add_parser("perft", help="count leaf positions DEPTH turns deep")
    command.add_argument("position", help="a position in canonical notation (one argument)")
    command.add_argument("depth")
    command.set_defaults(run=_cmd_perft)
    command = commands.add_parser("moves", help="list the legal turns, one a line, sorted")
    command.add_argument("position")
    command.set_defaults(run=_cmd_moves)
    command = commands.add_parser("apply", help="print the position after a turn")
    command.add_argument("position")
    command.add_argument("turn")
    command.set_defaults(run=_cmd_apply)
    command = commands.add_parser("score", help="print the score as JSON")
    command.add_argument("position")
    command.set_defaults(run=_cmd_score)
    command = commands.add_parser("random-game", help="play a game of uniformly random turns")
    command.add_argument("--seed", type=int, required=True)
    command.add_argument("--ornaments", type=int, default=0, choices=range(6), metavar="K")
    command.set_defaults(run=_cmd_random_game)
    command = commands.add_parser("bench", help="measure the engine's speed")
    command.add_argument("--seconds", type=float, default=3.0, help="time for random games")
    command.add_argument("--seed", type=int, default=1)
    command.set_defaults(run=_cmd_bench)
    command = commands.add_parser("arena", help="play games between two players, print results")
    command.add_argument("--a", required=True, choices=PLAYERS, help="player A")
    command.add_argument("--b", required=True, choices=PLAYERS, help="player B")
    command.add_argument("--games", type=_positive, required=True, metavar="N")
    command.add_argument("--seed", type=int, required=True, metavar="S")
    command.add_argument("--ornaments", type=int, default=0, choices=range(6), metavar="K")
    command.add_argument(
        "--jobs", type=_positive, default=arena.default_jobs(), metavar="J", help="processes"
    )
    command.add_argument(
        "--uncapped", action="store_true", help="search levels without their time caps"
    )
    command.set_defaults(run=_cmd_arena)
    command = commands.add_parser(
        "replay", help="check a game record turn by turn; print the final position and score"
    )
    command.add_argument("file", help="the record (a text file, or - for standard input)")
    command.set_defaults(run=_cmd_replay)
    command = commands.add_parser(
        "puzzles", help="find puzzles in self-play games (proven by exhaustive search)"
    )
    command.add_argument("file", help="the puzzle file (JSON lines), appended to")
    command.add_argument("--games", type=_positive, default=100, metavar="N")
    command.add_argument(
        "--first-seed",
        type=int,
        default=1,
        metavar="S",
        help="the first game's seed (a file with puzzles goes on after its last)",
    )
    command.add_argument(
        "--late",
        type=_positive,
        default=LATE,
        metavar="K",
        help="look at positions with at most K places left",
    )
    command.add_argument(
        "--verify", action="store_true", help="prove every puzzle of the file again instead"
    )
    command.set_defaults(run=_cmd_puzzles)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in _POSITIONAL_COMMANDS and "--" not in argv:
        argv.insert(1, "--")  # a position such as "-/-/-/-/-/-/-" is not an option
    args = parser.parse_args(argv)
    try:
        args.run(args)
    except ValueError as error:  # the engine's errors are all ValueErrors
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
