"""Turns as values, and their canonical notation.

A turn is either a :class:`Take` (stones of one colour from the quarry into the workshop) or a
:class:`Place` (one stone from the workshop onto a location, with an optional :class:`Bonus`).
Each prints to and parses from the canonical notation of the rules::

    >>> parse_turn("w@B/C>E")
    Place.parse('w@B/C>E')
    >>> str(Take(0, 3))  # WHITE takes 3
    '+w3'

Two turns are equal exactly when their canonical strings are equal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .core import (
    COLOUR_LETTERS,
    COLOURS,
    LOCATION_LETTERS,
    LOCATIONS,
    WORKSHOP_SLOTS,
    Colour,
    InvalidTurnError,
    Location,
)

BonusType = Literal["remove", "draw", "steal", "extra", "move", "quarry"]


@dataclass(frozen=True, slots=True)
class Bonus:
    """What a placement's bonus does; build one with the named constructors.

    ``kind`` is one of ``remove`` (C: top of ``source`` to the quarry), ``draw`` (D: a ``colour``
    stone from the quarry), ``steal`` (E: a ``colour`` stone from the rival's workshop), ``extra``
    (F: a ``colour`` stone from the workshop onto ``target``), ``move`` (A/B/G: the top of
    ``source`` onto ``target``) and ``quarry`` (the ``grayquarry`` ornament: a gray stone from the
    quarry onto ``target``).
    """

    kind: BonusType
    colour: Colour | None = None
    source: Location | None = None
    target: Location | None = None

    @classmethod
    def remove(cls, source: Location) -> Bonus:
        """C: the top stone of ``source`` goes back to the quarry."""
        return cls("remove", source=source)

    @classmethod
    def draw(cls, colour: Colour) -> Bonus:
        """D: a stone of ``colour`` from the quarry to the workshop."""
        return cls("draw", colour=colour)

    @classmethod
    def steal(cls, colour: Colour) -> Bonus:
        """E: a stone of ``colour`` from the rival's workshop to the workshop."""
        return cls("steal", colour=colour)

    @classmethod
    def extra(cls, colour: Colour, target: Location) -> Bonus:
        """F: one more stone of ``colour`` from the workshop onto ``target``."""
        return cls("extra", colour=colour, target=target)

    @classmethod
    def move(cls, source: Location, target: Location) -> Bonus:
        """A, B, G: the top stone of ``source`` onto ``target``."""
        return cls("move", source=source, target=target)

    @classmethod
    def gray_from_quarry(cls, target: Location) -> Bonus:
        """The ``grayquarry`` ornament's alternative: a gray quarry stone onto ``target``."""
        return cls("quarry", target=target)

    def __str__(self) -> str:
        kind = self.kind
        if kind == "remove":
            return "x" + LOCATION_LETTERS[self.source]  # type: ignore[index]
        if kind == "draw":
            return "+" + COLOUR_LETTERS[self.colour]  # type: ignore[index]
        if kind == "steal":
            return "<" + COLOUR_LETTERS[self.colour]  # type: ignore[index]
        if kind == "extra":
            return f"{COLOUR_LETTERS[self.colour]}@{LOCATION_LETTERS[self.target]}"  # type: ignore[index]
        if kind == "move":
            return f"{LOCATION_LETTERS[self.source]}>{LOCATION_LETTERS[self.target]}"  # type: ignore[index]
        return "q>" + LOCATION_LETTERS[self.target]  # type: ignore[index]


@dataclass(frozen=True, slots=True)
class Take:
    """Take ``count`` stones of ``colour`` from the quarry into the workshop."""

    colour: Colour
    count: int

    def __str__(self) -> str:
        return f"+{COLOUR_LETTERS[self.colour]}{self.count}"

    def __repr__(self) -> str:
        return f"Take.parse({str(self)!r})"

    @staticmethod
    def parse(text: str) -> Take:
        """Parse a take such as ``+w3``; raises :class:`InvalidTurnError`."""
        turn = parse_turn(text)
        if not isinstance(turn, Take):
            raise InvalidTurnError(f"{text!r} is not a take")
        return turn


@dataclass(frozen=True, slots=True)
class Place:
    """Place a ``colour`` stone from the workshop on ``location``, then maybe a ``bonus``."""

    colour: Colour
    location: Location
    bonus: Bonus | None = None

    def __str__(self) -> str:
        main = f"{COLOUR_LETTERS[self.colour]}@{LOCATION_LETTERS[self.location]}"
        return main if self.bonus is None else f"{main}/{self.bonus}"

    def __repr__(self) -> str:
        return f"Place.parse({str(self)!r})"

    @staticmethod
    def parse(text: str) -> Place:
        """Parse a placement such as ``w@F/b@D``; raises :class:`InvalidTurnError`."""
        turn = parse_turn(text)
        if not isinstance(turn, Place):
            raise InvalidTurnError(f"{text!r} is not a placement")
        return turn


Turn = Take | Place
"""One complete turn."""

_C = "[wbg]"
_L = "[A-G]"
_TAKE_RE = re.compile(rf"\+({_C})([1-9])")
_PLACE_RE = re.compile(rf"({_C})@({_L})(?:/(.*))?")
_BONUS_RES: tuple[tuple[re.Pattern[str], BonusType], ...] = (
    (re.compile(rf"x({_L})"), "remove"),
    (re.compile(rf"\+({_C})"), "draw"),
    (re.compile(rf"<({_C})"), "steal"),
    (re.compile(rf"({_C})@({_L})"), "extra"),
    (re.compile(rf"({_L})>({_L})"), "move"),
    (re.compile(rf"q>({_L})"), "quarry"),
)
_BONUS_FORMS = "xE, +g, <b, b@D, C>E or q>E"


def _parse_bonus(text: str, turn_text: str) -> Bonus:
    for pattern, kind in _BONUS_RES:
        match = pattern.fullmatch(text)
        if match is None:
            continue
        groups = match.groups()
        if kind == "remove":
            return Bonus.remove(LOCATION_LETTERS.index(groups[0]))
        if kind in ("draw", "steal"):
            return Bonus(kind, colour=COLOUR_LETTERS.index(groups[0]))
        if kind == "extra":
            return Bonus.extra(COLOUR_LETTERS.index(groups[0]), LOCATION_LETTERS.index(groups[1]))
        if kind == "move":
            return Bonus.move(LOCATION_LETTERS.index(groups[0]), LOCATION_LETTERS.index(groups[1]))
        return Bonus.gray_from_quarry(LOCATION_LETTERS.index(groups[0]))
    raise InvalidTurnError(
        f"bad bonus {text!r} in turn {turn_text!r}: expected one of the forms {_BONUS_FORMS}"
    )


def parse_turn(text: str) -> Turn:
    """Parse a turn in canonical notation (``+w3``, ``w@C``, ``w@C/xE`` ...).

    Raises :class:`InvalidTurnError` saying what is malformed. Whether the turn is legal is a
    question for a position (:meth:`engine.Position.apply`).
    """
    if not isinstance(text, str):
        raise InvalidTurnError(f"a turn must be a string, not {type(text).__name__}")
    match = _TAKE_RE.fullmatch(text)
    if match is not None:
        count = int(match.group(2))
        if count > WORKSHOP_SLOTS:
            raise InvalidTurnError(
                f"bad turn {text!r}: at most {WORKSHOP_SLOTS} stones can be taken at once"
            )
        return Take(COLOUR_LETTERS.index(match.group(1)), count)
    match = _PLACE_RE.fullmatch(text)
    if match is not None:
        colour = COLOUR_LETTERS.index(match.group(1))
        location = LOCATION_LETTERS.index(match.group(2))
        bonus_text = match.group(3)
        bonus = None if bonus_text is None else _parse_bonus(bonus_text, text)
        return Place(colour, location, bonus)
    raise InvalidTurnError(
        f"bad turn {text!r}: expected a take like +w3 (colour w/b/g, count 1-3) or a placement "
        "like w@C, optionally followed by /bonus"
    )


def well_formed_turns() -> list[Turn]:
    """Every turn the notation can express whatever the position (for exhaustive tests)."""
    turns: list[Turn] = [Take(c, n) for c in COLOURS for n in range(1, WORKSHOP_SLOTS + 1)]
    bonuses: list[Bonus] = [Bonus.remove(x) for x in LOCATIONS]
    bonuses += [Bonus.draw(c) for c in COLOURS] + [Bonus.steal(c) for c in COLOURS]
    bonuses += [Bonus.extra(c, y) for c in COLOURS for y in LOCATIONS]
    bonuses += [Bonus.move(x, y) for x in LOCATIONS for y in LOCATIONS]
    bonuses += [Bonus.gray_from_quarry(y) for y in LOCATIONS]
    for colour in COLOURS:
        for location in LOCATIONS:
            turns.append(Place(colour, location))
            turns += [Place(colour, location, bonus) for bonus in bonuses]
    return turns
