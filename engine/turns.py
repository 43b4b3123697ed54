"""Turns as values, and their canonical notation.

A turn is either a :class:`Take` (stones of one colour from the quarry into the workshop) or a
:class:`Place` (one stone from the workshop onto a location, with an optional :data:`Bonus`).
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
from typing import ClassVar, final

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


def _colour(value: object, what: str) -> None:
    """Raise :class:`InvalidTurnError` unless ``value`` is a colour."""
    if type(value) is not int or value not in COLOURS:
        raise InvalidTurnError(f"{what} must be a colour 0, 1 or 2 (w, b, g), got {value!r}")


def _location(value: object, what: str) -> None:
    """Raise :class:`InvalidTurnError` unless ``value`` is a location."""
    if type(value) is not int or value not in LOCATIONS:
        raise InvalidTurnError(f"{what} must be a location 0 to 6 (A to G), got {value!r}")


@final
@dataclass(frozen=True, slots=True)
class Remove:
    """C's bonus: the top stone of ``source`` goes back to the quarry.

    Raises :class:`InvalidTurnError` unless ``source`` is a location.
    """

    kind: ClassVar[str] = "remove"
    source: Location

    def __post_init__(self) -> None:
        _location(self.source, "a removal's source")

    def __str__(self) -> str:
        return "x" + LOCATION_LETTERS[self.source]


@final
@dataclass(frozen=True, slots=True)
class Draw:
    """D's bonus: a stone of ``colour`` from the quarry to the workshop.

    Raises :class:`InvalidTurnError` unless ``colour`` is a colour.
    """

    kind: ClassVar[str] = "draw"
    colour: Colour

    def __post_init__(self) -> None:
        _colour(self.colour, "a drawn stone")

    def __str__(self) -> str:
        return "+" + COLOUR_LETTERS[self.colour]


@final
@dataclass(frozen=True, slots=True)
class Steal:
    """E's bonus: a stone of ``colour`` from the rival's workshop to the workshop.

    Raises :class:`InvalidTurnError` unless ``colour`` is a colour.
    """

    kind: ClassVar[str] = "steal"
    colour: Colour

    def __post_init__(self) -> None:
        _colour(self.colour, "a stolen stone")

    def __str__(self) -> str:
        return "<" + COLOUR_LETTERS[self.colour]


@final
@dataclass(frozen=True, slots=True)
class Extra:
    """F's bonus: one more stone of ``colour`` from the workshop onto ``target``.

    Raises :class:`InvalidTurnError` unless ``colour`` is a colour and ``target`` a location.
    """

    kind: ClassVar[str] = "extra"
    colour: Colour
    target: Location

    def __post_init__(self) -> None:
        _colour(self.colour, "an extra stone")
        _location(self.target, "an extra stone's target")

    def __str__(self) -> str:
        return f"{COLOUR_LETTERS[self.colour]}@{LOCATION_LETTERS[self.target]}"


@final
@dataclass(frozen=True, slots=True)
class Move:
    """A mover's bonus (A, B, G): the top stone of ``source`` onto ``target``.

    Raises :class:`InvalidTurnError` unless both are locations.
    """

    kind: ClassVar[str] = "move"
    source: Location
    target: Location

    def __post_init__(self) -> None:
        _location(self.source, "a move's source")
        _location(self.target, "a move's target")

    def __str__(self) -> str:
        return f"{LOCATION_LETTERS[self.source]}>{LOCATION_LETTERS[self.target]}"


@final
@dataclass(frozen=True, slots=True)
class GrayFromQuarry:
    """The ``grayquarry`` ornament's alternative bonus: a gray quarry stone onto ``target``.

    Raises :class:`InvalidTurnError` unless ``target`` is a location.
    """

    kind: ClassVar[str] = "quarry"
    target: Location

    def __post_init__(self) -> None:
        _location(self.target, "a gray quarry stone's target")

    def __str__(self) -> str:
        return "q>" + LOCATION_LETTERS[self.target]


Bonus = Remove | Draw | Steal | Extra | Move | GrayFromQuarry
"""What a placement's bonus does: one class per kind, each with its notation and ``kind``."""


@final
@dataclass(frozen=True, slots=True)
class Take:
    """Take ``count`` stones of ``colour`` from the quarry into the workshop.

    Raises :class:`InvalidTurnError` unless ``colour`` is a colour and ``count`` 1 to 3.
    """

    colour: Colour
    count: int

    def __post_init__(self) -> None:
        _colour(self.colour, "a take's colour")
        if type(self.count) is not int or not 1 <= self.count <= WORKSHOP_SLOTS:
            raise InvalidTurnError(f"a take is 1 to {WORKSHOP_SLOTS} stones, got {self.count!r}")

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


@final
@dataclass(frozen=True, slots=True)
class Place:
    """Place a ``colour`` stone from the workshop on ``location``, then maybe a ``bonus``.

    Raises :class:`InvalidTurnError` unless the fields are a colour, a location and a
    :data:`Bonus` or ``None``.
    """

    colour: Colour
    location: Location
    bonus: Bonus | None = None

    def __post_init__(self) -> None:
        _colour(self.colour, "a placed stone")
        _location(self.location, "a placement's location")
        if self.bonus is not None and not isinstance(self.bonus, Bonus):
            raise InvalidTurnError(f"a bonus must be a Bonus or None, got {self.bonus!r}")

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
_BONUS_RES: tuple[tuple[re.Pattern[str], type[Bonus]], ...] = (
    (re.compile(rf"x({_L})"), Remove),
    (re.compile(rf"\+({_C})"), Draw),
    (re.compile(rf"<({_C})"), Steal),
    (re.compile(rf"({_C})@({_L})"), Extra),
    (re.compile(rf"({_L})>({_L})"), Move),
    (re.compile(rf"q>({_L})"), GrayFromQuarry),
)
_BONUS_FORMS = "xE, +g, <b, b@D, C>E or q>E"


def _letter_value(letter: str) -> int:
    """The colour a lowercase letter names, or the location an uppercase one names."""
    return COLOUR_LETTERS.index(letter) if letter.islower() else LOCATION_LETTERS.index(letter)


def _parse_bonus(text: str, turn_text: str) -> Bonus:
    for pattern, kind in _BONUS_RES:
        match = pattern.fullmatch(text)
        if match is not None:
            return kind(*(_letter_value(letter) for letter in match.groups()))
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
    bonuses: list[Bonus] = [Remove(x) for x in LOCATIONS]
    bonuses += [Draw(c) for c in COLOURS] + [Steal(c) for c in COLOURS]
    bonuses += [Extra(c, y) for c in COLOURS for y in LOCATIONS]
    bonuses += [Move(x, y) for x in LOCATIONS for y in LOCATIONS]
    bonuses += [GrayFromQuarry(y) for y in LOCATIONS]
    for colour in COLOURS:
        for location in LOCATIONS:
            turns.append(Place(colour, location))
            turns += [Place(colour, location, bonus) for bonus in bonuses]
    return turns
