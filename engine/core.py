"""Constants of the game and the errors the engine raises.

Colours and players are small integers (``WHITE``, ``BLACK``, ``GRAY``), locations are the
integers ``A`` .. ``G`` (0 .. 6), like squares in python-chess; their one-letter names are the
canonical notation.
"""

from __future__ import annotations

from typing import Final, Literal

Colour = int
"""``WHITE``, ``BLACK`` or ``GRAY``. The two players are ``WHITE`` and ``BLACK``."""
Location = int
"""``A`` .. ``G``: the seven locations of the temple, clockwise from the top."""
Mode = Literal["basic", "advanced"]
"""The rulebook's two games: without ornaments, and with them."""

WHITE: Final = 0
BLACK: Final = 1
GRAY: Final = 2
COLOURS: Final = (WHITE, BLACK, GRAY)
COLOUR_LETTERS: Final = "wbg"

A, B, C, D, E, F, G = range(7)
LOCATIONS: Final = (A, B, C, D, E, F, G)
LOCATION_LETTERS: Final = "ABCDEFG"
LOCATION_SYMBOLS: Final = "αβγδπΣΩ"

STONES_IN_PLAY: Final = (15, 15, 10)
"""Stones of each colour in play: one white and one black stone of the box mark the scores."""
WORKSHOP_SLOTS: Final = 3
BASE_CAPACITY: Final = 5
TALL_CAPACITY: Final = 7
START_WORKSHOP: Final = 2
"""Stones of their own colour each workshop holds at the start."""


def take_limit(colour: Colour, player: Colour) -> int:
    """How many stones of ``colour`` ``player`` may take in one turn: own 3, gray 2, rival 1."""
    if colour == GRAY:
        return 2
    return 3 if colour == player else 1


BonusKind = Literal["remove", "draw", "steal", "extra", "move"]
BONUS_OF: Final[tuple[BonusKind, ...]] = (
    "move",
    "move",
    "remove",
    "draw",
    "steal",
    "extra",
    "move",
)
"""The bonus of each location A .. G."""
MOVER_COLOUR: Final[dict[Location, Colour]] = {A: GRAY, B: WHITE, G: BLACK}
"""The colour of the top stones each mover location moves."""

ORNAMENTS: Final = (
    "plus3",
    "minority",
    "graygain",
    "grayloss",
    "graytrigger",
    "grayquarry",
    "tall",
)
"""Ornament ids, in the order of the printed rulebook's numbers (never rely on numbers)."""
MAX_ORNAMENTS: Final = 5


class InvalidPositionError(ValueError):
    """A position (notation, JSON or fields) breaks the rules of what a position can be."""


class InvalidTurnError(ValueError):
    """A turn is malformed: bad notation, or a field that is no colour, location or count."""


class IllegalTurnError(ValueError):
    """A well-formed turn that is not legal in the position it is applied to."""
