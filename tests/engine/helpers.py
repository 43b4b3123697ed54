"""Shared helpers for the engine tests."""

from __future__ import annotations

import random

from engine import Position
from engine.newgame import new_game


def legal(position: str | Position) -> set[str]:
    """The legal turns of a position, as canonical strings."""
    if isinstance(position, str):
        position = Position.parse(position)
    return {str(turn) for turn in position.legal_turns()}


def starting_with(position: str | Position, prefix: str) -> set[str]:
    """The legal turns whose notation starts with ``prefix``."""
    return {turn for turn in legal(position) if turn.startswith(prefix)}


def play_randomly(start: Position, plies: int, seed: int) -> Position:
    """The position after up to ``plies`` uniformly random turns from ``start``."""
    rng = random.Random(seed)
    position = start
    for _ in range(plies):
        turns = position.legal_turns()
        if not turns:
            break
        position = position.apply_unchecked(rng.choice(turns))
    return position


def random_reachable(seed: int, plies: int, ornaments: int) -> Position:
    """A position reached by random play from a new game with ``ornaments`` ornaments."""
    mode = "advanced" if ornaments else "basic"
    start = new_game(mode, ornaments=ornaments or 2, seed=seed, first=seed % 2)
    return play_randomly(start, plies, seed)


def random_endgame(seed: int, places: int, ornaments: int) -> Position:
    """A position reached by random play, the first with at most ``places`` places left in the
    temple (it may be over)."""
    mode = "advanced" if ornaments else "basic"
    position = new_game(mode, ornaments=ornaments or 2, seed=seed, first=seed % 2)
    rng = random.Random(seed)
    while not position.is_over() and position.places_left() > places:
        position = position.apply_unchecked(rng.choice(position.legal_turns()))
    return position
