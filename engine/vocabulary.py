"""The game's words, defined once: colours, locations, bonuses, ornaments and results.

Pure data and tiny functions, no I/O. Every user-visible text is wrapped in :func:`N_`, which
marks it for translation (Babel extracts it with ``-k N_``) and returns it unchanged::

    >>> location_name(2), bonus_name(0)
    ('γ C', 'move gray')
    >>> print(bonus_description(6))
    move a black top stone from another column onto a third column that isn't full
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from .core import BONUS_OF, LOCATION_LETTERS, LOCATION_SYMBOLS, MOVER_COLOUR, Colour, Location


def N_(text: str) -> str:
    """Mark ``text`` for translation; return it unchanged."""
    return text


Gettext = Callable[[str], str]
"""A message's translation (``N_``, the default, keeps the English)."""


COLOUR_NAMES: Final[tuple[str, str, str]] = (N_("white"), N_("black"), N_("gray"))
"""Indexed by colour: ``WHITE``, ``BLACK``, ``GRAY``."""

BONUS_NAMES: Final[dict[str, str]] = {
    "remove": N_("remove top"),
    "draw": N_("draw stone"),
    "steal": N_("steal stone"),
    "extra": N_("extra stone"),
    "move": N_("move"),
    "quarry": N_("gray from quarry"),
}
"""Each bonus kind in a word or two (the board's plaques)."""

MOVE_NAMES: Final[tuple[str, str, str]] = (N_("move white"), N_("move black"), N_("move gray"))
"""A mover location's bonus, by the colour it moves."""

BONUS_DESCRIPTIONS: Final[dict[str, str]] = {
    "remove": N_("send another column's top stone back to the quarry"),
    "draw": N_("take one stone of any colour from the quarry into your workshop"),
    "steal": N_("take one stone from your rival's workshop into yours"),
    "extra": N_("place one more stone from your workshop on another location"),
    "quarry": N_("put a gray stone from the quarry on another location"),
}
"""Each bonus kind in a short sentence (a mover's is in :data:`MOVE_DESCRIPTIONS`)."""

MOVE_DESCRIPTIONS: Final[tuple[str, str, str]] = (
    N_("move a white top stone from another column onto a third column that isn't full"),
    N_("move a black top stone from another column onto a third column that isn't full"),
    N_("move a gray top stone from another column onto a third column that isn't full"),
)
"""A mover location's bonus in a sentence, by the colour it moves."""

ORNAMENT_TAGS: Final[dict[str, str]] = {
    "plus3": N_("+3 pts"),
    "minority": N_("minority"),
    "graygain": N_("+2 each"),
    "grayloss": N_("−3 each"),
    "graytrigger": N_("triggers"),
    "grayquarry": N_("quarry"),
    "tall": N_("7 high"),
}
"""Each ornament's short label on the board's tags."""

ORNAMENT_NAMES: Final[dict[str, str]] = {
    "plus3": N_("+3"),
    "minority": N_("minority"),
    "graygain": N_("gray +2"),
    "grayloss": N_("gray −3"),
    "graytrigger": N_("gray-trigger"),
    "grayquarry": N_("gray-quarry"),
    "tall": N_("tall"),
}
"""Each ornament's name in text, as in "the gray +2 ornament"."""

ORNAMENT_EFFECTS: Final[dict[str, str]] = {
    "plus3": N_("+3 for the column's winner"),
    "minority": N_("fewer stones win the column"),
    "graygain": N_("gray stones score +2"),
    "grayloss": N_("gray stones score −3"),
    "graytrigger": N_("gray stones trigger the bonus"),
    "grayquarry": N_("bonus may place a gray quarry stone"),
    "tall": N_("holds 7 stones"),
}
"""What each ornament does to its column, in one line."""

RESULT_REASONS: Final[dict[str, str]] = {
    "points": N_("on points"),
    "columns": N_("on columns won (points tied)"),
    "tie": N_("(a draw)"),
    "resignation": N_("by resignation"),
    "timeout": N_("on time — the opponent stopped playing"),
}
"""What decided a game, after "X wins 25–19"."""


MINUS: Final = "\u2212"
"""The minus sign of a negative score (a column may be worth less than nothing): a hyphen
after the en dash of a score pair would read ``23–-3``."""


def signed(value: float, plus: str = "+", digits: int = 0) -> str:
    """Points as players read them: :data:`MINUS` before a negative number, ``plus`` before a
    positive one, ``digits`` decimals (``−2``, ``+3``, ``0``, ``−1.5``)."""
    text = f"{abs(value):.{digits}f}"
    if float(text) == 0:
        return text
    return (MINUS if value < 0 else plus) + text


def points(value: float, digits: int = 0) -> str:
    """A score or total: :func:`signed` without a plus (``23``, ``−3``)."""
    return signed(value, plus="", digits=digits)


def score_pair(first: float, second: float) -> str:
    """Two scores with an en dash between them: ``23–−3``."""
    return f"{points(first)}–{points(second)}"


def colour_name(colour: Colour, t: Gettext = N_) -> str:
    """``white``, ``black`` or ``gray`` (translated by ``t``)."""
    return t(COLOUR_NAMES[colour])


def location_name(location: Location) -> str:
    """A location as its symbol and letter, such as ``α A`` (the same in every language)."""
    return f"{LOCATION_SYMBOLS[location]} {LOCATION_LETTERS[location]}"


def bonus_name(location: Location, t: Gettext = N_) -> str:
    """A location's bonus in a few words; a mover's names its colour (``move gray``)."""
    kind = BONUS_OF[location]
    if kind == "move":
        return t(MOVE_NAMES[MOVER_COLOUR[location]])
    return t(BONUS_NAMES[kind])


def bonus_description(location: Location, t: Gettext = N_) -> str:
    """A location's bonus in a short sentence."""
    kind = BONUS_OF[location]
    if kind == "move":
        return t(MOVE_DESCRIPTIONS[MOVER_COLOUR[location]])
    return t(BONUS_DESCRIPTIONS[kind])
