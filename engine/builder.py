"""Building a turn step by step, as a player does with buttons.

A path is the tuple of tokens chosen so far. Each step offers the whole domain of its choice
(every location, every colour ...) with the impossible options disabled; the complete paths are
exactly the legal turns, because the steps are read off :meth:`Position.legal_turns`::

    >>> builder = TurnBuilder(Position.parse("-/-/-/-/-/-/- ww bb w -"))
    >>> builder.step().kind, [o.token for o in builder.step().options if o.enabled]
    ('action', ['T', 'P'])
    >>> builder.choose("P").choose("w").choose("D").step().kind
    'draw'
    >>> str(builder.choose("P").choose("w").choose("D").choose("g").turn)
    'w@D/+g'

Tokens: ``T``/``P`` (take or place), colour letters ``w b g``, counts ``1 2 3``, location
letters ``A``..``G``, ``-`` (skip the bonus), ``L``/``q`` (with the ``grayquarry`` ornament:
the location's own bonus, or a gray stone from the quarry).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from .core import BONUS_OF, COLOUR_LETTERS, LOCATION_LETTERS, Colour, IllegalTurnError, Location
from .position import Position
from .turns import Draw, Extra, GrayFromQuarry, Move, Remove, Steal, Take, Turn

StepKind = Literal[
    "action",
    "take-colour",
    "take-count",
    "stone",
    "location",
    "bonus-choice",
    "remove",
    "draw",
    "steal",
    "extra-stone",
    "extra-location",
    "move-source",
    "move-target",
    "quarry-target",
]
SKIP = "-"
"""The token that ends the turn without using the offered bonus."""
OWN_BONUS = "L"
GRAY_FROM_QUARRY = "q"

_DOMAINS: dict[StepKind, str] = {
    "action": "TP",
    "take-colour": COLOUR_LETTERS,
    "take-count": "123",
    "stone": COLOUR_LETTERS,
    "location": LOCATION_LETTERS,
    "bonus-choice": OWN_BONUS + GRAY_FROM_QUARRY,
    "remove": LOCATION_LETTERS,
    "draw": COLOUR_LETTERS,
    "steal": COLOUR_LETTERS,
    "extra-stone": COLOUR_LETTERS,
    "extra-location": LOCATION_LETTERS,
    "move-source": LOCATION_LETTERS,
    "move-target": LOCATION_LETTERS,
    "quarry-target": LOCATION_LETTERS,
}
_FIRST_BONUS_STEP: dict[str, StepKind] = {
    "remove": "remove",
    "draw": "draw",
    "steal": "steal",
    "extra": "extra-stone",
    "move": "move-source",
}
_SECOND_BONUS_STEP: dict[str, StepKind] = {"extra": "extra-location", "move": "move-target"}

Path = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Option:
    """One choice of a step: its token, and whether it can be chosen now."""

    token: str
    enabled: bool


@dataclass(frozen=True, slots=True)
class Step:
    """The next choice to make: its kind and its options (the whole domain, in order)."""

    kind: StepKind
    options: tuple[Option, ...]

    def enabled_tokens(self) -> list[str]:
        """The tokens that can be chosen."""
        return [option.token for option in self.options if option.enabled]


def turn_path(position: Position, turn: Turn) -> Path:
    """The tokens that build ``turn`` in ``position``, without a trailing skip."""
    if isinstance(turn, Take):
        return ("T", COLOUR_LETTERS[turn.colour], str(turn.count))
    path: Path = ("P", COLOUR_LETTERS[turn.colour], LOCATION_LETTERS[turn.location])
    bonus = turn.bonus
    if bonus is None:
        return path
    if isinstance(bonus, GrayFromQuarry):
        return (*path, GRAY_FROM_QUARRY, LOCATION_LETTERS[bonus.target])
    if position.ornaments[turn.location] == "grayquarry":
        path = (*path, OWN_BONUS)
    match bonus:
        case Remove(source):
            return (*path, LOCATION_LETTERS[source])
        case Draw(colour) | Steal(colour):
            return (*path, COLOUR_LETTERS[colour])
        case Extra(colour, target):
            return (*path, COLOUR_LETTERS[colour], LOCATION_LETTERS[target])
        case Move(source, target):
            return (*path, LOCATION_LETTERS[source], LOCATION_LETTERS[target])


def chosen_path(position: Position, turn: Turn) -> Path:
    """The tokens a player chooses to build ``turn`` (legal in ``position``): its
    :func:`turn_path`, and the skip that declines a bonus its placement offered.

    >>> from engine.turns import parse_turn
    >>> chosen_path(Position.parse("-/w/-/-/bb/-/w www wb w -"), parse_turn("w@E"))
    ('P', 'w', 'E', '-')
    """
    path = turn_path(position, turn)
    return path if path in _tree(position).turns else (*path, SKIP)


@dataclass(frozen=True, slots=True)
class _Tree:
    """The legal turns of a position as a trie of paths."""

    children: dict[Path, list[str]]
    turns: dict[Path, Turn]


@lru_cache(maxsize=256)
def _tree(position: Position) -> _Tree:
    children: dict[Path, list[str]] = {}
    turns: dict[Path, Turn] = {}
    for turn in position.legal_turns():
        path = turn_path(position, turn)
        turns[path] = turn
        for depth in range(len(path)):
            children.setdefault(path[:depth], []).append(path[depth])
    children = {node: list(dict.fromkeys(tokens)) for node, tokens in children.items()}
    for path in [path for path in turns if path in children]:  # a placement with bonus options
        children[path].append(SKIP)
        turns[(*path, SKIP)] = turns.pop(path)
    return _Tree(children, turns)


def _step_kind(position: Position, path: Path) -> StepKind:
    action = path[0] if path else None
    if action is None:
        return "action"
    if action == "T":
        return ("take-colour", "take-count")[len(path) - 1]
    if len(path) < 3:
        return ("stone", "location")[len(path) - 1]
    location = LOCATION_LETTERS.index(path[2])
    rest = path[3:]
    if position.ornaments[location] == "grayquarry":
        if not rest:
            return "bonus-choice"
        if rest[0] == GRAY_FROM_QUARRY:
            return "quarry-target"
        rest = rest[1:]
    bonus = BONUS_OF[location]
    return _SECOND_BONUS_STEP[bonus] if rest else _FIRST_BONUS_STEP[bonus]


@dataclass(frozen=True, slots=True)
class TurnBuilder:
    """A turn under construction: a position and the tokens chosen so far.

    Building one checks every token of ``path`` and raises :class:`IllegalTurnError` when a
    token is not available at its step (a stale or forged choice).
    """

    position: Position
    path: Path = ()

    def __post_init__(self) -> None:
        tree = _tree(self.position)
        for depth, token in enumerate(self.path):
            prefix = self.path[:depth]
            if token not in tree.children.get(prefix, ()):
                raise IllegalTurnError(
                    f"choice {token!r} is not available after {'.'.join(prefix) or 'the start'}"
                )

    @property
    def turn(self) -> Turn | None:
        """The turn the path completes, or ``None`` while choices remain."""
        return _tree(self.position).turns.get(self.path)

    def step(self) -> Step | None:
        """The next choice, or ``None`` when the path is a complete turn (or the game is over)."""
        tree = _tree(self.position)
        available = tree.children.get(self.path)
        if available is None:
            return None
        kind = _step_kind(self.position, self.path)
        options = [Option(SKIP, True)] if SKIP in available else []
        options += [Option(token, token in available) for token in _DOMAINS[kind]]
        return Step(kind, tuple(options))

    def chosen(self, kind: StepKind) -> str | None:
        """The token chosen at the step of ``kind`` on this path, or ``None``.

        >>> builder = TurnBuilder(Position.parse("w/-/-/-/-/-/- ww bb w -"), ("P", "w", "B"))
        >>> builder.chosen("stone"), builder.location, builder.choose("A").source
        ('w', 1, 0)
        """
        for depth, token in enumerate(self.path):
            if _step_kind(self.position, self.path[:depth]) == kind:
                return token
        return None

    @property
    def colour(self) -> Colour | None:
        """The colour being taken or placed, once chosen."""
        token = self.chosen("take-colour") or self.chosen("stone")
        return None if token is None else COLOUR_LETTERS.index(token)

    @property
    def location(self) -> Location | None:
        """Where the stone is placed (the location whose bonus may follow), once chosen."""
        token = self.chosen("location")
        return None if token is None else LOCATION_LETTERS.index(token)

    @property
    def extra_colour(self) -> Colour | None:
        """The colour of the extra stone (F's bonus), once chosen."""
        token = self.chosen("extra-stone")
        return None if token is None else COLOUR_LETTERS.index(token)

    @property
    def source(self) -> Location | None:
        """The column whose top stone a mover moves, once chosen."""
        token = self.chosen("move-source")
        return None if token is None else LOCATION_LETTERS.index(token)

    def choose(self, token: str) -> TurnBuilder:
        """The builder one choice further; raises :class:`IllegalTurnError` if unavailable."""
        return TurnBuilder(self.position, (*self.path, token))

    def back(self) -> TurnBuilder:
        """The builder one choice back (the start stays the start)."""
        return TurnBuilder(self.position, self.path[:-1])
