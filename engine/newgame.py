"""Setting up a new game: mode, ornaments drawn from a seed, who moves first.

>>> print(new_game("advanced", ornaments=2, seed=7))
-/-/-/-/-/-/- ww bb w D=graygain,F=minority
"""

from __future__ import annotations

import random

from .core import (
    BLACK,
    LOCATIONS,
    MAX_ORNAMENTS,
    ORNAMENTS,
    START_WORKSHOP,
    WHITE,
    Colour,
    Mode,
)
from .position import Position

DEFAULT_ORNAMENTS = 2
"""The rulebook's advanced game: each player draws one ornament."""


def draw_ornaments(count: int, seed: int) -> tuple[str | None, ...]:
    """Draw ``count`` distinct ornaments onto distinct random locations, reproducibly.

    Raises ``ValueError`` unless ``0 <= count <= 5``.
    """
    if not 0 <= count <= MAX_ORNAMENTS:
        raise ValueError(f"a game has 0 to {MAX_ORNAMENTS} ornaments, not {count}")
    rng = random.Random(seed)
    ornaments: list[str | None] = [None] * len(LOCATIONS)
    for ornament, location in zip(
        rng.sample(ORNAMENTS, count), rng.sample(LOCATIONS, count), strict=True
    ):
        ornaments[location] = ornament
    return tuple(ornaments)


def new_game(
    mode: Mode = "basic",
    *,
    ornaments: int = DEFAULT_ORNAMENTS,
    seed: int = 0,
    first: Colour = WHITE,
) -> Position:
    """The starting position: 2 stones in each workshop, ``first`` to move.

    In ``advanced`` mode, ``ornaments`` (1 to 5) are drawn from ``seed``; ``basic`` has none.
    Raises ``ValueError`` for an unknown mode, an ornament count out of range or a bad ``first``.
    """
    if mode == "basic":
        drawn = draw_ornaments(0, seed)
    elif mode == "advanced":
        if not 1 <= ornaments <= MAX_ORNAMENTS:
            raise ValueError(
                f"an advanced game has 1 to {MAX_ORNAMENTS} ornaments, not {ornaments}"
            )
        drawn = draw_ornaments(ornaments, seed)
    else:
        raise ValueError(f"unknown mode {mode!r}: expected 'basic' or 'advanced'")
    if first not in (WHITE, BLACK):
        raise ValueError("first must be WHITE or BLACK")
    return Position(
        columns=("",) * len(LOCATIONS),
        workshops=((START_WORKSHOP, 0, 0), (0, START_WORKSHOP, 0)),
        turn=first,
        ornaments=drawn,
    )
