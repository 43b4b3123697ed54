"""What to show besides the position: the players, the last turn, the end of the game."""

from __future__ import annotations

from dataclasses import dataclass

from engine import (
    BLACK,
    COLOUR_LETTERS,
    WHITE,
    Colour,
    Draw,
    Extra,
    GrayFromQuarry,
    Move,
    Position,
    Remove,
    Steal,
    Take,
    Turn,
)

from .translator import ENGLISH, Translator


@dataclass(frozen=True, slots=True)
class BoardView:
    """The players' names, the turn that led to the position, and whether the game is over.

    Names may be any text (emoji, right-to-left scripts, very long); the image shows what its
    fonts can draw, shortened to fit. ``last_turn`` is the turn that led to the position shown,
    played by the side *not* to move. The final scoring shows when the temple is full or when
    ``final`` is set (a game that ended early). ``note``, such as "Bob resigned: Ana wins",
    replaces the headline (whose turn it is, or the result by points); in a final view with a
    note, the players' cards do not name a winner, since the note does. ``translator`` is the
    language of every word the board says (names stay as they are).
    """

    white_name: str = ""
    black_name: str = ""
    last_turn: Turn | None = None
    final: bool = False
    note: str | None = None
    translator: Translator = ENGLISH

    def name(self, player: Colour) -> str:
        """The name of the player playing ``player``."""
        return self.white_name if player == WHITE else self.black_name

    def is_final(self, position: Position) -> bool:
        """Whether to show the final scoring."""
        return self.final or position.is_over()


@dataclass(frozen=True, slots=True)
class Marks:
    """Where the last turn shows on the board."""

    player: Colour
    """Who played it."""
    stones: frozenset[tuple[int, int]] = frozenset()
    """Column stones it put in place, as ``(location, index from the bottom)``."""
    vacated: tuple[int, int] | None = None
    """The slot a stone left (removed or moved), as ``(location, index)``."""
    moved_to: tuple[int, int] | None = None
    """Where a moved stone went (it came from ``vacated``)."""
    workshop: tuple[int, int, int] = (0, 0, 0)
    """Stones of each colour that arrived in the player's workshop."""


def last_player(position: Position) -> Colour:
    """The side that played the turn leading to ``position`` (the side not to move)."""
    return BLACK if position.turn == WHITE else WHITE


def last_turn_marks(position: Position, turn: Turn | None) -> Marks | None:
    """Where ``turn``, which led to ``position``, shows: ``None`` when there is no turn."""
    if turn is None:
        return None
    player = last_player(position)
    arrived = [0, 0, 0]
    if isinstance(turn, Take):
        arrived[turn.colour] = turn.count
        return Marks(player, workshop=_clip(position, player, arrived))
    columns = position.columns
    stones = {_top(columns, turn.location)}
    vacated = moved_to = None
    match turn.bonus:
        case Extra(target=target) | GrayFromQuarry(target=target):
            stones.add(_top(columns, target))
        case Remove(source):
            vacated = (source, len(columns[source]))
        case Move(source, target):
            moved_to = _top(columns, target)
            stones.add(moved_to)
            vacated = (source, len(columns[source]))
        case Draw(colour) | Steal(colour):
            arrived[colour] += 1
    return Marks(
        player,
        frozenset(stone for stone in stones if stone[1] >= 0),
        vacated,
        moved_to,
        _clip(position, player, arrived),
    )


def _top(columns: tuple[str, ...], location: int) -> tuple[int, int]:
    return (location, len(columns[location]) - 1)


def _clip(position: Position, player: Colour, arrived: list[int]) -> tuple[int, int, int]:
    """Arrivals no larger than what the workshop holds (for turns that do not fit the position)."""
    held = position.workshops[player]
    white, black, gray = (min(count, held[colour]) for colour, count in enumerate(arrived))
    return (white, black, gray)


def workshop_stones(workshop: tuple[int, int, int]) -> str:
    """A workshop's stones in slot order, as colour letters (white, then black, then gray)."""
    return "".join(letter * count for letter, count in zip(COLOUR_LETTERS, workshop, strict=True))
