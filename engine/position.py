"""The position: an immutable value with its notation, JSON form, legal turns and ``apply``.

>>> pos = Position.parse("-/-/-/-/-/-/- ww bb w -")
>>> len(pos.legal_turns())
20
>>> print(pos.apply(parse_turn("w@D/+g")))
-/-/-/w/-/-/- wg bb b -
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from .core import (
    BASE_CAPACITY,
    BLACK,
    BONUS_OF,
    COLOUR_LETTERS,
    COLOURS,
    GRAY,
    LOCATION_LETTERS,
    LOCATIONS,
    MAX_ORNAMENTS,
    MOVER_COLOUR,
    ORNAMENTS,
    STONES_IN_PLAY,
    TALL_CAPACITY,
    WHITE,
    WORKSHOP_SLOTS,
    Colour,
    IllegalTurnError,
    InvalidPositionError,
    Location,
    Mode,
    take_limit,
)
from .scoring import Outcome, score
from .turns import (
    Bonus,
    Draw,
    Extra,
    GrayFromQuarry,
    Move,
    Place,
    Remove,
    Steal,
    Take,
    Turn,
    parse_turn,
)
from .vocabulary import (
    BONUS_NAMES,
    ORNAMENT_NAMES,
    bonus_description,
    bonus_name,
    colour_name,
    location_name,
)

JSON_FORMAT = 1
"""Version of :meth:`Position.to_json`'s format; bumped on any incompatible change."""

Workshop = tuple[int, int, int]
"""Stones in a workshop, counted by colour (white, black, gray)."""

_NO_ORNAMENTS: tuple[str | None, ...] = (None,) * 7
_COLUMN_RE = re.compile(r"-|[wbg]+")
_WORKSHOP_RE = re.compile(r"-|[wbg]{1,3}")


@dataclass(frozen=True, slots=True)
class Position:
    """A position: the temple's columns, both workshops, the side to move and the ornaments.

    The quarry is what remains of the 15 white, 15 black and 10 gray stones in play. Building a
    position validates it and raises :class:`InvalidPositionError` saying what is wrong.
    """

    columns: tuple[str, ...]
    """The seven stacks A .. G, bottom to top, as colour letters (``""`` when empty)."""
    workshops: tuple[Workshop, Workshop]
    """White's and Black's workshops."""
    turn: Colour
    """The side to move: ``WHITE`` or ``BLACK``."""
    ornaments: tuple[str | None, ...] = _NO_ORNAMENTS
    """The ornament id at each location A .. G, or ``None``."""
    quarry: Workshop = field(init=False, compare=False, repr=False)
    """Stones left in the quarry by colour (derived)."""
    capacities: tuple[int, ...] = field(init=False, compare=False, repr=False)
    """Capacity of each location (derived: 7 with ``tall``, else 5)."""

    def __post_init__(self) -> None:
        _validate_shape(self)
        capacities = tuple(
            TALL_CAPACITY if ornament == "tall" else BASE_CAPACITY for ornament in self.ornaments
        )
        for location, column in enumerate(self.columns):
            if len(column) > capacities[location]:
                raise InvalidPositionError(
                    f"column {LOCATION_LETTERS[location]} holds {len(column)} stones but its "
                    f"capacity is {capacities[location]}"
                )
        quarry = []
        for colour in COLOURS:
            letter = COLOUR_LETTERS[colour]
            used = sum(column.count(letter) for column in self.columns)
            used += self.workshops[WHITE][colour] + self.workshops[BLACK][colour]
            if used > STONES_IN_PLAY[colour]:
                raise InvalidPositionError(
                    f"{used} {colour_name(colour)} stones are in the temple and workshops, but "
                    f"only {STONES_IN_PLAY[colour]} are in play"
                )
            quarry.append(STONES_IN_PLAY[colour] - used)
        object.__setattr__(self, "quarry", tuple(quarry))
        object.__setattr__(self, "capacities", capacities)

    # -- notation -------------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> Position:
        """Parse the canonical position notation.

        Workshop stones and ornaments may come in any order. Raises
        :class:`InvalidPositionError` saying what is wrong.
        """
        if not isinstance(text, str):
            raise InvalidPositionError(f"a position must be a string, not {type(text).__name__}")
        fields = text.split(" ")
        if len(fields) != 5 or not all(fields):
            raise InvalidPositionError(
                f"a position has 5 fields separated by single spaces (columns, white workshop, "
                f"black workshop, side to move, ornaments), got {text!r}"
            )
        column_field, white_field, black_field, side_field, ornament_field = fields
        stacks = column_field.split("/")
        if len(stacks) != 7:
            raise InvalidPositionError(
                f"the columns field needs 7 stacks A..G separated by '/', got {len(stacks)}"
            )
        for location, stack in enumerate(stacks):
            if not _COLUMN_RE.fullmatch(stack):
                raise InvalidPositionError(
                    f"column {LOCATION_LETTERS[location]} is {stack!r}: expected '-' or stones "
                    "w, b, g from bottom to top"
                )
        workshops = (
            _parse_workshop(white_field, "white"),
            _parse_workshop(black_field, "black"),
        )
        if side_field not in ("w", "b"):
            raise InvalidPositionError(f"side to move is {side_field!r}: expected 'w' or 'b'")
        return cls(
            columns=tuple("" if stack == "-" else stack for stack in stacks),
            workshops=workshops,
            turn=WHITE if side_field == "w" else BLACK,
            ornaments=_parse_ornaments(ornament_field),
        )

    def __str__(self) -> str:
        columns = "/".join(column or "-" for column in self.columns)
        workshops = " ".join(_format_workshop(workshop) for workshop in self.workshops)
        ornaments = ",".join(
            f"{LOCATION_LETTERS[location]}={ornament}"
            for location, ornament in enumerate(self.ornaments)
            if ornament is not None
        )
        return f"{columns} {workshops} {COLOUR_LETTERS[self.turn]} {ornaments or '-'}"

    def __repr__(self) -> str:
        return f"Position.parse({str(self)!r})"

    # -- JSON -----------------------------------------------------------------------------------

    def to_json(self) -> str:
        """Serialise for storage: a JSON object with a ``format`` version."""
        return json.dumps(
            {
                "format": JSON_FORMAT,
                "columns": list(self.columns),
                "workshops": {
                    "w": _format_workshop(self.workshops[WHITE], empty=""),
                    "b": _format_workshop(self.workshops[BLACK], empty=""),
                },
                "to_move": COLOUR_LETTERS[self.turn],
                "ornaments": {
                    LOCATION_LETTERS[location]: ornament
                    for location, ornament in enumerate(self.ornaments)
                    if ornament is not None
                },
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Position:
        """Load what :meth:`to_json` wrote; raises :class:`InvalidPositionError`."""
        try:
            data = json.loads(text)
        except (ValueError, TypeError) as error:
            raise InvalidPositionError(f"position JSON is not valid JSON: {error}") from None
        if not isinstance(data, dict):
            raise InvalidPositionError("position JSON must be an object")
        if data.get("format") != JSON_FORMAT:
            raise InvalidPositionError(
                f"position JSON has format {data.get('format')!r}; this engine reads {JSON_FORMAT}"
            )
        expected = {"format", "columns", "workshops", "to_move", "ornaments"}
        if set(data) != expected:
            raise InvalidPositionError(
                f"position JSON needs exactly the keys {sorted(expected)}, got {sorted(data)}"
            )
        columns, workshops, ornaments = data["columns"], data["workshops"], data["ornaments"]
        if not (isinstance(columns, list) and all(isinstance(c, str) for c in columns)):
            raise InvalidPositionError("position JSON 'columns' must be a list of 7 strings")
        if not (isinstance(workshops, dict) and set(workshops) == {"w", "b"}):
            raise InvalidPositionError("position JSON 'workshops' must be an object with w and b")
        if not (
            isinstance(ornaments, dict) and all(isinstance(v, str) for v in ornaments.values())
        ):
            raise InvalidPositionError("position JSON 'ornaments' must map locations to ids")
        notation = " ".join(
            [
                "/".join(column or "-" for column in columns),
                _json_workshop(workshops["w"], "w"),
                _json_workshop(workshops["b"], "b"),
                str(data["to_move"]),
                ",".join(f"{location}={ornament}" for location, ornament in ornaments.items())
                or "-",
            ]
        )
        return cls.parse(notation)

    # -- questions ------------------------------------------------------------------------------

    @property
    def mode(self) -> Mode:
        """``"advanced"`` when the temple has ornaments, else ``"basic"``."""
        return "advanced" if any(self.ornaments) else "basic"

    def is_over(self) -> bool:
        """Whether the game has ended: every column is at its capacity."""
        columns, capacities = self.columns, self.capacities
        return all(len(columns[location]) == capacities[location] for location in LOCATIONS)

    def places_left(self) -> int:
        """How many more stones the temple holds before the game ends.

        >>> Position.parse("-/-/-/-/-/-/- ww bb w C=tall").places_left()
        37
        """
        return sum(self.capacities) - sum(len(column) for column in self.columns)

    def outcome(self) -> Outcome | None:
        """The result of the game, with its final points; ``None`` until the game is over."""
        return score(self).outcome

    def triggers_bonus(self, colour: Colour, location: Location) -> bool:
        """Whether placing ``colour`` on ``location`` (by the side to move) offers its bonus.

        Own colour triggers; gray does on a ``graytrigger`` location; and no bonus follows a
        placement that fills the temple's last free place.
        """
        triggers = _triggers(colour, self.turn, self.ornaments)
        return triggers[location] and not self._fills_temple(location)

    def _fills_temple(self, location: Location) -> bool:
        """Whether a stone on ``location`` fills the temple's last free place."""
        columns, capacities = self.columns, self.capacities
        return len(columns[location]) + 1 == capacities[location] and all(
            len(columns[other]) == capacities[other] for other in LOCATIONS if other != location
        )

    # -- legal turns ----------------------------------------------------------------------------

    def legal_turns(self) -> list[Turn]:
        """All distinct legal turns (none when the game is over)."""
        columns, capacities = self.columns, self.capacities
        valid = [
            location for location in LOCATIONS if len(columns[location]) < capacities[location]
        ]
        if not valid:
            return []
        me = self.turn
        workshop = self.workshops[me]
        quarry = self.quarry
        turns: list[Turn] = []
        free = WORKSHOP_SLOTS - workshop[0] - workshop[1] - workshop[2]
        if free:
            for colour in COLOURS:
                most = min(_LIMITS[me][colour], free, quarry[colour])
                if most > 0:
                    turns += _TAKES[colour][:most]
        fills_last = len(valid) == 1 and self._fills_temple(valid[0])
        ornaments = self.ornaments
        for colour in COLOURS:
            if not workshop[colour]:
                continue
            plain = _PLAIN[colour]
            triggers = _NOWHERE if fills_last else _triggers(colour, me, ornaments)
            for location in valid:
                turns.append(plain[location])
                if triggers[location]:
                    self._add_bonus_turns(colour, location, valid, turns)
        return turns

    def _add_bonus_turns(
        self, colour: Colour, location: Location, valid: list[Location], turns: list[Turn]
    ) -> None:
        """Append the placements of ``colour`` on ``location`` that use a bonus."""
        kind = BONUS_OF[location]
        table = _BONUS_TURNS[colour][location]
        columns = self.columns
        if kind == "move":
            letter = _MOVER_LETTER[location]
            for source in LOCATIONS:
                column = columns[source]
                if source != location and column and column[-1] == letter:
                    row = table[source]
                    turns += [row[target] for target in valid if target not in (location, source)]
        elif kind == "remove":
            turns += [
                table[source] for source in LOCATIONS if source != location and columns[source]
            ]
        elif kind == "draw":
            quarry = self.quarry
            turns += [table[other] for other in COLOURS if quarry[other]]
        elif kind == "steal":
            rival = self.workshops[1 - self.turn]
            turns += [table[other] for other in COLOURS if rival[other]]
        else:  # extra
            workshop = self.workshops[self.turn]
            for other in COLOURS:
                if workshop[other] > (other == colour):
                    row = table[other]
                    turns += [row[target] for target in valid if target != location]
        if self.ornaments[location] == "grayquarry" and self.quarry[GRAY]:
            row = _QUARRY_TURNS[colour][location]
            turns += [row[target] for target in valid if target != location]

    # -- playing --------------------------------------------------------------------------------

    def why_illegal(self, turn: Turn) -> str | None:
        """Why ``turn`` is not legal here, in a sentence; ``None`` when it is legal."""
        if self.is_over():
            return "the game is over"
        me = self.turn
        workshop = self.workshops[me]
        if isinstance(turn, Take):
            return self._why_take_illegal(turn, workshop)
        colour, location, bonus = turn.colour, turn.location, turn.bonus
        if not workshop[colour]:
            return f"there is no {colour_name(colour)} stone in your workshop"
        if reason := self._why_full(location):
            return reason
        if bonus is None:
            return None
        if self.triggers_bonus(colour, location):
            return self._why_bonus_illegal(colour, location, bonus)
        if self._fills_temple(location):
            return "this placement fills the temple's last place, so the game ends without a bonus"
        return (
            f"a {colour_name(colour)} stone on {LOCATION_LETTERS[location]} does not trigger its "
            f"bonus: only your own colour does (or gray, with the {ORNAMENT_NAMES['graytrigger']} "
            "ornament)"
        )

    def _why_take_illegal(self, turn: Take, workshop: Workshop) -> str | None:
        colour, count = turn.colour, turn.count
        free = WORKSHOP_SLOTS - sum(workshop)
        limit = take_limit(colour, self.turn)
        name = colour_name(colour)
        if count > limit:
            whose = {GRAY: "", self.turn: " of your colour"}.get(colour, " of your rival's colour")
            return f"you may take at most {limit} {name} stone{'s' * (limit > 1)}{whose}"
        if count > free:
            return f"your workshop has {free} free slot{'s' * (free != 1)}"
        if count > self.quarry[colour]:
            return f"the quarry has {self.quarry[colour]} {name} stones"
        return None

    def _why_full(self, location: Location) -> str | None:
        height, capacity = len(self.columns[location]), self.capacities[location]
        if height >= capacity:
            return f"location {LOCATION_LETTERS[location]} is full ({height}/{capacity})"
        return None

    def _why_bonus_illegal(self, colour: Colour, location: Location, bonus: Bonus) -> str | None:
        if isinstance(bonus, GrayFromQuarry):
            if self.ornaments[location] != "grayquarry":
                return (
                    f"only a location with the {ORNAMENT_NAMES['grayquarry']} ornament offers "
                    f"{BONUS_NAMES[bonus.kind]} (q>), not {LOCATION_LETTERS[location]}"
                )
            if not self.quarry[GRAY]:
                return "the quarry has no gray stone left"
            return self._why_bad_target(bonus.target, location)
        if bonus.kind != BONUS_OF[location]:
            return (
                f"{location_name(location)} offers {bonus_name(location)}, not "
                f"{BONUS_NAMES[bonus.kind]}: {bonus_description(location)}"
            )
        match bonus:
            case Remove(source):
                return self._why_bad_source(source, location)
            case Draw(other):
                if not self.quarry[other]:
                    return f"the quarry has no {colour_name(other)} stone left"
            case Steal(other):
                if not self.workshops[1 - self.turn][other]:
                    return f"your rival's workshop has no {colour_name(other)} stone"
            case Extra(other, target):
                if self.workshops[self.turn][other] - (other == colour) <= 0:
                    return (
                        f"no {colour_name(other)} stone is left in your workshop for the extra "
                        "placement"
                    )
                return self._why_bad_target(target, location)
            case Move(source, target):
                if reason := self._why_bad_source(source, location):
                    return reason
                top, mover = self.columns[source][-1], MOVER_COLOUR[location]
                if top != COLOUR_LETTERS[mover]:
                    return (
                        f"{LOCATION_LETTERS[location]} moves {colour_name(mover)} stones, but the "
                        f"top of {LOCATION_LETTERS[source]} is "
                        f"{colour_name(COLOUR_LETTERS.index(top))}"
                    )
                if target == source:
                    return "the stone must move to a third location, not back onto its own"
                return self._why_bad_target(target, location)
        return None

    def _why_bad_source(self, source: Location, location: Location) -> str | None:
        if source == location:
            return f"the stone must come from another location than {LOCATION_LETTERS[location]}"
        if not self.columns[source]:
            return f"location {LOCATION_LETTERS[source]} is empty"
        return None

    def _why_bad_target(self, target: Location, location: Location) -> str | None:
        if target == location:
            return f"the bonus must use another location than {LOCATION_LETTERS[location]}"
        return self._why_full(target)

    def apply(self, turn: Turn | str) -> Position:
        """The position after ``turn`` (a :data:`Turn` or its notation).

        Raises :class:`IllegalTurnError` saying why when the turn is not legal here, and
        :class:`~engine.InvalidTurnError` when its notation is malformed.
        """
        if isinstance(turn, str):
            turn = parse_turn(turn)
        reason = self.why_illegal(turn)
        if reason is not None:
            raise IllegalTurnError(f"illegal turn {turn}: {reason}")
        return self.apply_unchecked(turn)

    def apply_unchecked(self, turn: Turn) -> Position:
        """The position after a turn known to be legal (from :meth:`legal_turns`); no checks."""
        workshops = [list(self.workshops[0]), list(self.workshops[1])]
        mine = workshops[self.turn]
        if type(turn) is Take:
            mine[turn.colour] += turn.count
            taken = list(self.quarry)
            taken[turn.colour] -= turn.count
            return self._child(self.columns, workshops, tuple(taken))
        colour = turn.colour
        columns = list(self.columns)
        mine[colour] -= 1
        columns[turn.location] += COLOUR_LETTERS[colour]
        bonus = turn.bonus
        if bonus is None:
            return self._child(tuple(columns), workshops, self.quarry)
        quarry = list(self.quarry)
        # type() tests dispatch fastest: a match statement made this 25% slower
        if type(bonus) is Move:
            stone = columns[bonus.source][-1]
            columns[bonus.source] = columns[bonus.source][:-1]
            columns[bonus.target] += stone
        elif type(bonus) is Remove:
            stone = columns[bonus.source][-1]
            columns[bonus.source] = columns[bonus.source][:-1]
            quarry[COLOUR_LETTERS.index(stone)] += 1
        elif type(bonus) is Draw:
            quarry[bonus.colour] -= 1
            mine[bonus.colour] += 1
        elif type(bonus) is Steal:
            workshops[1 - self.turn][bonus.colour] -= 1
            mine[bonus.colour] += 1
        elif type(bonus) is Extra:
            mine[bonus.colour] -= 1
            columns[bonus.target] += COLOUR_LETTERS[bonus.colour]
        else:
            quarry[GRAY] -= 1
            columns[bonus.target] += "g"
        return self._child(tuple(columns), workshops, tuple(quarry))

    def _child(
        self, columns: tuple[str, ...], workshops: list[list[int]], quarry: tuple[int, ...]
    ) -> Position:
        """A successor built without validation: the side to move alternates."""
        child = object.__new__(Position)
        _set = object.__setattr__
        _set(child, "columns", columns)
        _set(child, "workshops", (tuple(workshops[0]), tuple(workshops[1])))
        _set(child, "turn", 1 - self.turn)
        _set(child, "ornaments", self.ornaments)
        _set(child, "quarry", quarry)
        _set(child, "capacities", self.capacities)
        return child


def position_key(position: Position) -> int:
    """A 64-bit key of ``position`` (signed, as SQL's ``BIGINT`` holds it): a hash of its
    canonical notation, so that two ways of writing one position (the order of workshop
    stones or of ornaments) share it. Distinct positions collide with odds of about 2**-64.

    >>> position_key(Position.parse("-/-/-/-/-/-/- bw bb w -")) == position_key(
    ...     Position.parse("-/-/-/-/-/-/- wb bb w -"))
    True
    """
    digest = hashlib.blake2b(str(position).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def successors(position: Position) -> set[Position]:
    """The distinct positions one legal turn from ``position`` (none when it is over)."""
    return {position.apply_unchecked(turn) for turn in position.legal_turns()}


_EVERYWHERE = (True,) * 7
_NOWHERE = (False,) * 7


def _triggers(
    colour: Colour, player: Colour, ornaments: tuple[str | None, ...]
) -> tuple[bool, ...]:
    """At each location, whether ``player`` placing ``colour`` there triggers its bonus (unless
    the placement ends the game): their own colour does, and gray does on ``graytrigger``."""
    if colour == player:
        return _EVERYWHERE
    if colour == GRAY and "graytrigger" in ornaments:
        return tuple(ornament == "graytrigger" for ornament in ornaments)
    return _NOWHERE


# Every turn object the generator hands out is built once here and shared (they are immutable).
_LIMITS = tuple(
    tuple(take_limit(colour, player) for colour in COLOURS) for player in (WHITE, BLACK)
)
_TAKES = tuple(tuple(Take(colour, count) for count in (1, 2, 3)) for colour in COLOURS)
_PLAIN = tuple(tuple(Place(colour, location) for location in LOCATIONS) for colour in COLOURS)
_MOVER_LETTER = {location: COLOUR_LETTERS[colour] for location, colour in MOVER_COLOUR.items()}


def _bonus_table(colour: Colour, location: Location) -> Any:
    """Prebuilt placements of ``colour`` on ``location`` with each bonus of that location."""
    kind = BONUS_OF[location]

    def place(bonus: Bonus) -> Place:
        return Place(colour, location, bonus)

    if kind == "move":
        return [[place(Move(x, y)) for y in LOCATIONS] for x in LOCATIONS]
    if kind == "remove":
        return [place(Remove(x)) for x in LOCATIONS]
    if kind in ("draw", "steal"):
        return [place((Draw if kind == "draw" else Steal)(other)) for other in COLOURS]
    return [[place(Extra(other, y)) for y in LOCATIONS] for other in COLOURS]


_BONUS_TURNS = [[_bonus_table(colour, location) for location in LOCATIONS] for colour in COLOURS]
_QUARRY_TURNS = [
    [[Place(colour, location, GrayFromQuarry(y)) for y in LOCATIONS] for location in LOCATIONS]
    for colour in COLOURS
]


def _validate_shape(position: Position) -> None:
    """Check the field types and the per-field rules; raise :class:`InvalidPositionError`."""
    columns, workshops, ornaments = position.columns, position.workshops, position.ornaments
    if not (isinstance(columns, tuple) and len(columns) == 7):
        raise InvalidPositionError("columns must be a tuple of 7 stacks A..G")
    for location, column in enumerate(columns):
        if not isinstance(column, str) or column.strip("wbg"):
            raise InvalidPositionError(
                f"column {LOCATION_LETTERS[location]} must be a string of w, b, g, got {column!r}"
            )
    if not (isinstance(workshops, tuple) and len(workshops) == 2):
        raise InvalidPositionError("workshops must be a pair (white's, black's)")
    for player, workshop in zip(("white", "black"), workshops, strict=True):
        if not (
            isinstance(workshop, tuple)
            and len(workshop) == 3
            and all(type(count) is int and count >= 0 for count in workshop)
        ):
            raise InvalidPositionError(
                f"{player}'s workshop must be 3 counts (white, black, gray), got {workshop!r}"
            )
        if sum(workshop) > WORKSHOP_SLOTS:
            raise InvalidPositionError(
                f"{player}'s workshop holds {sum(workshop)} stones but has {WORKSHOP_SLOTS} slots"
            )
    if position.turn not in (WHITE, BLACK) or type(position.turn) is not int:
        raise InvalidPositionError(
            f"the side to move must be WHITE or BLACK, got {position.turn!r}"
        )
    if not (isinstance(ornaments, tuple) and len(ornaments) == 7):
        raise InvalidPositionError("ornaments must be a tuple of 7 entries (id or None)")
    placed = [ornament for ornament in ornaments if ornament is not None]
    for ornament in placed:
        if ornament not in ORNAMENTS:
            raise InvalidPositionError(
                f"unknown ornament {ornament!r}: expected one of {', '.join(ORNAMENTS)}"
            )
    if len(set(placed)) != len(placed):
        raise InvalidPositionError("each ornament may be used at most once")
    if len(placed) > MAX_ORNAMENTS:
        raise InvalidPositionError(f"at most {MAX_ORNAMENTS} ornaments, got {len(placed)}")


def _parse_workshop(text: str, player: str) -> Workshop:
    if not _WORKSHOP_RE.fullmatch(text):
        raise InvalidPositionError(
            f"{player}'s workshop is {text!r}: expected '-' or 1 to {WORKSHOP_SLOTS} stones w, b, g"
        )
    if text == "-":
        return (0, 0, 0)
    return (text.count("w"), text.count("b"), text.count("g"))


def _format_workshop(workshop: Workshop, empty: str = "-") -> str:
    text = "".join(letter * count for letter, count in zip(COLOUR_LETTERS, workshop, strict=True))
    return text or empty


def _json_workshop(value: Any, player: str) -> str:
    if not isinstance(value, str):
        raise InvalidPositionError(f"position JSON workshop {player!r} must be a string")
    return value or "-"


def _parse_ornaments(text: str) -> tuple[str | None, ...]:
    ornaments: list[str | None] = [None] * 7
    if text == "-":
        return tuple(ornaments)
    for item in text.split(","):
        location_text, equals, ornament = item.partition("=")
        if not equals or location_text not in LOCATION_LETTERS or len(location_text) != 1:
            raise InvalidPositionError(
                f"ornament {item!r}: expected LOCATION=id such as C=minority"
            )
        location = LOCATION_LETTERS.index(location_text)
        if ornaments[location] is not None:
            raise InvalidPositionError(f"location {location_text} has more than one ornament")
        if ornament not in ORNAMENTS:
            raise InvalidPositionError(
                f"unknown ornament {ornament!r}: expected one of {', '.join(ORNAMENTS)}"
            )
        ornaments[location] = ornament
    return tuple(ornaments)
