"""Scoring: each column's winner and points, the totals and the result with its tie-breaks.

>>> from engine import Position
>>> s = score(Position.parse("wwgbg/wbbww/gwwgw/wwbbg/bbbww/wbgwb/ggwbb - - w -"))
>>> [column.points for column in s.columns][:3]
[1, 9, -1]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from .core import BLACK, COLOUR_LETTERS, LOCATION_LETTERS, WHITE, Colour, Location
from .vocabulary import ORNAMENT_EFFECTS, ORNAMENT_NAMES, colour_name

Result = Literal["white", "black", "draw"]
"""Who won a game: White, Black, or neither (a draw)."""
Reason = Literal["points", "columns", "tie", "resignation", "timeout"]
"""What decided a game: more points, more columns won (points tied), neither (a ``tie``: a
draw), a player's resignation, or their clock run out."""


class Scorable(Protocol):
    """What scoring reads of a position (a :class:`~engine.position.Position` is one; this
    module does not import it, since positions score themselves)."""

    @property
    def columns(self) -> tuple[str, ...]:
        """Each location's stack, bottom to top."""
        ...

    @property
    def ornaments(self) -> tuple[str | None, ...]:
        """Each location's ornament."""
        ...

    def is_over(self) -> bool:
        """Whether the game is over."""
        ...


@dataclass(frozen=True, slots=True)
class ColumnScore:
    """How one column scores."""

    location: Location
    stones: str
    """The stack bottom to top."""
    ornament: str | None
    winner: Colour | None
    """``WHITE``, ``BLACK``, or ``None`` when nobody wins the column."""
    points: int
    """What the winner scores for it (may be negative; 0 when nobody wins)."""
    effect: str | None
    """What the ornament changed in this column's score, in words; ``None`` when nothing."""

    def count(self, colour: Colour) -> int:
        """Stones of ``colour`` in the column."""
        return self.stones.count(COLOUR_LETTERS[colour])


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the winner (``None`` for a draw), what decided it and the points."""

    winner: Colour | None
    reason: Reason
    """Scoring decides by ``points``, ``columns`` (points tied, more columns won) or ``tie``
    (a draw); a game also ends by ``resignation`` or ``timeout``."""
    points: tuple[int, int]
    """White's and Black's points."""

    @property
    def result(self) -> Result:
        """``"white"``, ``"black"`` or ``"draw"``."""
        return "draw" if self.winner is None else "white" if self.winner == WHITE else "black"


@dataclass(frozen=True, slots=True)
class Score:
    """The score of a position, as if the game ended now when it is not over."""

    columns: tuple[ColumnScore, ...]
    totals: tuple[int, int]
    """White's and Black's points."""
    columns_won: tuple[int, int]
    leader: Outcome
    """Who is ahead, with the tie-breaks: the result if the game ended now."""
    over: bool

    @property
    def outcome(self) -> Outcome | None:
        """The result of a finished game; ``None`` while it goes on."""
        return self.leader if self.over else None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (the ``score`` command's output)."""
        return {
            "columns": {
                LOCATION_LETTERS[column.location]: {
                    "winner": None if column.winner is None else COLOUR_LETTERS[column.winner],
                    "points": column.points,
                    "stones": column.stones,
                    "white": column.count(WHITE),
                    "black": column.count(BLACK),
                    "gray": column.stones.count("g"),
                    "ornament": column.ornament,
                    "effect": column.effect,
                }
                for column in self.columns
            },
            "totals": {"w": self.totals[WHITE], "b": self.totals[BLACK]},
            "columns_won": {"w": self.columns_won[WHITE], "b": self.columns_won[BLACK]},
            "result": self.leader.result,
            "decided_by": self.leader.reason,
            "over": self.over,
        }


def column_points(stones: str, ornament: str | None = None) -> tuple[Colour | None, int]:
    """The winner of a column (``None`` on a tie) and the points the winner scores."""
    white, black, gray = stones.count("w"), stones.count("b"), stones.count("g")
    if white == black:
        return None, 0
    white_wins = white > black
    if ornament == "minority":
        white_wins = not white_wins
    own, rival = (white, black) if white_wins else (black, white)
    gray_value = {"graygain": 2, "grayloss": -3}.get(ornament or "", -2)
    points = own + 3 * rival + gray_value * gray + (3 if ornament == "plus3" else 0)
    return (WHITE if white_wins else BLACK), points


def _effect(stones: str, ornament: str | None) -> str | None:
    """Say what ``ornament`` changed in the column's score, or ``None``."""
    winner, points = column_points(stones, ornament)
    plain_winner, plain_points = column_points(stones)
    if ornament is None or (winner, points) == (plain_winner, plain_points):
        return None
    name = f"{ORNAMENT_NAMES[ornament]} ornament: "
    if ornament == "plus3":
        return name + ORNAMENT_EFFECTS[ornament]
    if ornament == "minority" and winner is not None and plain_winner is not None:
        return (
            f"{name}{ORNAMENT_EFFECTS[ornament]}, so {colour_name(winner)} takes it instead of "
            f"{colour_name(plain_winner)}"
        )
    gray = stones.count("g")
    per_stone = 2 if ornament == "graygain" else -3
    return (
        f"{name}{gray} gray stone{'s' * (gray != 1)} score {per_stone * gray:+d} "
        f"instead of {-2 * gray:+d}"
    )


def score(position: Scorable) -> Score:
    """Score ``position``: per column, totals, columns won and the leader with tie-breaks."""
    columns = []
    totals = [0, 0]
    won = [0, 0]
    for location, stones in enumerate(position.columns):
        ornament = position.ornaments[location]
        winner, points = column_points(stones, ornament)
        if winner is not None:
            totals[winner] += points
            won[winner] += 1
        columns.append(
            ColumnScore(location, stones, ornament, winner, points, _effect(stones, ornament))
        )
    white, black = totals
    if white != black:
        leader = Outcome(WHITE if white > black else BLACK, "points", (white, black))
    elif won[WHITE] != won[BLACK]:
        leader = Outcome(WHITE if won[WHITE] > won[BLACK] else BLACK, "columns", (white, black))
    else:
        leader = Outcome(None, "tie", (white, black))
    return Score(tuple(columns), (white, black), (won[0], won[1]), leader, position.is_over())
