"""Walking the game tree: perft, uniformly random turns and random games."""

from __future__ import annotations

import random
from dataclasses import dataclass

from .position import Position
from .turns import Turn


def perft(position: Position, depth: int) -> int:
    """Count the leaf positions ``depth`` turns deep (the last level is counted in bulk).

    ``perft(p, 0) == 1``; a finished position has no children. Raises ``ValueError`` for a
    negative depth.
    """
    if depth < 0:
        raise ValueError(f"perft depth must be 0 or more, got {depth}")
    if depth == 0:
        return 1
    turns = position.legal_turns()
    if depth == 1:
        return len(turns)
    return sum(perft(position.apply_unchecked(turn), depth - 1) for turn in turns)


@dataclass(frozen=True, slots=True)
class RandomGame:
    """A game played by uniformly random turns from ``start``."""

    start: Position
    turns: tuple[Turn, ...]
    final: Position


def random_game(start: Position, rng: random.Random) -> RandomGame:
    """Play uniformly random legal turns from ``start`` until the game is over.

    Every game ends: the temple never loses a stone over a turn (a placement adds one, a bonus
    removes at most one), and the turns that keep it level either take stones into a workshop or
    grow column C, so a game cannot go on for ever.
    """
    position = start
    played: list[Turn] = []
    choice = rng.choice
    while turns := position.legal_turns():
        turn = choice(turns)
        played.append(turn)
        position = position.apply_unchecked(turn)
    return RandomGame(start, tuple(played), position)
