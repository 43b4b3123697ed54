"""Puzzles: positions where the side to move has exactly **one** turn that wins — or, where no
turn wins, exactly one that keeps the best result (a draw) — proven by exhaustive search of the
rest of the game, never by the AI's estimate. Pure: the positions come from the caller (finished
games) or from self-play (:func:`self_play_puzzles`).

A puzzle's **difficulty** is how many legal turns the side to move has: the choices among which
the one answer has to be seen.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .ai import exact_values, make_player
from .newgame import new_game
from .position import Position
from .turns import Turn, parse_turn

WIN, DRAW, LOSS = 1.0, 0.5, 0.0
LATE = 6
"""Puzzles are looked for when at most this many places are left in the temple: late enough
for an exhaustive search to finish in a moment, early enough to leave a real choice."""
MIN_CHOICES = 3
"""A position with fewer legal turns is no puzzle: one of two is a coin toss."""
NODE_LIMIT = 2_000_000
"""A search that needs more nodes than this is given up (the position is skipped)."""


@dataclass(frozen=True, slots=True)
class Puzzle:
    """A position, its one answer and why."""

    position: Position
    answer: Turn
    best: float
    """The result the answer keeps for the side to move: :data:`WIN` or :data:`DRAW`."""
    alternative: float
    """The best result any other turn keeps (less than ``best``)."""
    source: str
    """Where the position comes from (``self-play 17, ply 38``, ``game 1234, ply 40``)."""
    difficulty: int
    """How many legal turns the side to move has."""

    def to_json(self) -> str:
        """One line of a puzzle file."""
        return json.dumps(
            {
                "position": str(self.position),
                "answer": str(self.answer),
                "best": self.best,
                "alternative": self.alternative,
                "source": self.source,
                "difficulty": self.difficulty,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, line: str) -> Puzzle:
        """A puzzle from one line of a puzzle file (checked to parse, not re-proven: see
        :func:`verify`)."""
        data = json.loads(line)
        position = Position.parse(data["position"])
        return cls(
            position,
            parse_turn(data["answer"]),
            float(data["best"]),
            float(data["alternative"]),
            str(data["source"]),
            int(data["difficulty"]),
        )


def puzzle_in(position: Position, source: str, limit: int = NODE_LIMIT) -> Puzzle | None:
    """The puzzle ``position`` makes, if its side to move has exactly one turn that wins (or,
    with none winning, exactly one that draws) among at least :data:`MIN_CHOICES`; ``None``
    otherwise, or if the search would take more than ``limit`` nodes."""
    if position.is_over() or len(position.legal_turns()) < MIN_CHOICES:
        return None
    values = exact_values(position, limit)
    if values is None:
        return None
    best = max(values.values())
    answers = [turn for turn, value in values.items() if value == best]
    if best == LOSS or len(answers) != 1:
        return None
    alternative = max(value for turn, value in values.items() if turn != answers[0])
    return Puzzle(position, answers[0], best, alternative, source, len(values))


def verify(puzzle: Puzzle, limit: int = NODE_LIMIT) -> bool:
    """Whether ``puzzle`` is what it says, by a new exhaustive search: its answer is legal, the
    only turn that keeps ``best``, and the best other turn keeps ``alternative``."""
    found = puzzle_in(puzzle.position, puzzle.source, limit)
    return found is not None and (found.answer, found.best, found.alternative) == (
        puzzle.answer,
        puzzle.best,
        puzzle.alternative,
    )


def first_puzzle(
    positions: Iterable[tuple[int, Position]],
    source: str,
    *,
    late: int = LATE,
    limit: int = NODE_LIMIT,
) -> Puzzle | None:
    """Of a game's positions (each with its ply), the first with at most ``late`` places left
    that makes a puzzle (within ``limit`` nodes of search) — at most one a game, so that a set
    does not repeat one ending; its source is ``source`` and the ply. ``positions`` is read
    only as far as needed."""
    for ply, position in positions:
        if position.places_left() <= late:
            found = puzzle_in(position, f"{source}, ply {ply}", limit)
            if found is not None:
                return found
    return None


def game_positions(start: Position, turns: Iterable[Turn]) -> Iterator[tuple[int, Position]]:
    """The positions of a game played from ``start`` (each turn checked), before each turn and
    at the end, with their ply."""
    position = start
    ply = 0
    yield ply, position
    for turn in turns:
        position = position.apply(turn)
        ply += 1
        yield ply, position


def self_play_puzzles(seed: int, *, late: int = LATE) -> Iterator[Puzzle]:
    """The puzzle of one self-play game (the greedy player against itself, a random mode and
    ornaments from ``seed``), as :func:`first_puzzle` finds it; none if it makes none."""
    rng = random.Random(seed)
    mode = rng.choice(("basic", "advanced"))
    start = new_game(mode, ornaments=rng.randint(1, 5) if mode == "advanced" else 0, seed=seed)
    found = first_puzzle(_self_play(start, rng), f"self-play {seed}", late=late)
    if found is not None:
        yield found


def _self_play(position: Position, rng: random.Random) -> Iterator[tuple[int, Position]]:
    """The positions of the greedy player's game against itself, played as they are read."""
    player = make_player("greedy")
    ply = 0
    while True:
        yield ply, position
        if position.is_over():
            return
        position = position.apply(player.choose(position, rng.randrange(2**31)))
        ply += 1
