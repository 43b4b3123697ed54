"""The board in words: the same information as the image, for embed text and alt text.

Names are cut to 32 characters and the note to 60, which keeps the text within 1024 characters
(Discord's limit for an attachment's description; an embed's description allows 4096). The
locations' bonuses are the same in every game, so the text leaves them to the image.
"""

from __future__ import annotations

import unicodedata

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
from engine.scoring import ColumnScore, Score, column_points, score
from engine.vocabulary import ORNAMENT_NAMES, colour_name, location_name

from .view import BoardView, last_player, workshop_stones

NAME_LIMIT = 32
NOTE_LIMIT = 60
_DROPPED = {"Cc", "Cs"}
"""Control characters and lone surrogates: never sent on."""


def describe_board(position: Position, view: BoardView | None = None) -> str:
    """The position and view in plain text: the turn or result, the players, every column."""
    view = view or BoardView()
    scores = score(position)
    final = view.is_final(position)
    names = (_name(view, WHITE), _name(view, BLACK))
    note = _clean(view.note or "", NOTE_LIMIT)
    if note:
        lines = [note]
    elif final:
        lines = [result_line(scores, names) + "."]
    else:
        lines = [f"{names[position.turn]} to move."]
    if view.last_turn is not None:
        player = colour_name(last_player(position)).capitalize()
        lines.append("Last turn: " + ", ".join(turn_lines(view.last_turn, player)) + ".")
    points = "; ".join(
        f"{colour_name(player).capitalize()}, {names[player]}: {scores.totals[player]}"
        for player in (WHITE, BLACK)
    )
    lines.append(f"{'Final points' if final else 'Points if the game ended now'}: {points}.")
    workshops = "; ".join(
        f"{colour_name(player).capitalize()} has "
        f"{_stone_words(workshop_stones(position.workshops[player]))}"
        for player in (WHITE, BLACK)
    )
    lines.append(f"Workshops: {workshops}.")
    quarry = ", ".join(f"{count} {colour_name(c)}" for c, count in enumerate(position.quarry))
    lines.append(f"Quarry: {quarry}.")
    lines.append("Columns, stones bottom to top:")
    lines += [_column_line(position, column) for column in scores.columns]
    return "\n".join(lines)


def _column_line(position: Position, column: ColumnScore) -> str:
    location = column.location
    text = location_name(location)
    if column.ornament is not None:
        text += f", {ORNAMENT_NAMES[column.ornament]} ornament"
    text += (
        f": {_stone_words(column.stones)} ({len(column.stones)}/{position.capacities[location]})"
    )
    if column.winner is not None:
        points = signed(column.points, plus="")
        text += f"; {colour_name(column.winner).capitalize()} {points}"
        change = ornament_change(column)
        if change is not None:
            text += f" (ornament {change})"
    elif column.stones:
        text += "; tied"
    return text + "."


def _stone_words(stones: str) -> str:
    return ", ".join(colour_name(COLOUR_LETTERS.index(s)) for s in stones) or "empty"


def ornament_change(column: ColumnScore) -> str | None:
    """What a column's ornament changes in its score: ``reversed`` when it changes the winner,
    else the points it adds (``+3``, ``−2``); ``None`` when it changes nothing."""
    if column.effect is None:
        return None
    plain_winner, plain_points = column_points(column.stones)
    if plain_winner != column.winner:
        return "reversed"
    return signed(column.points - plain_points)


def signed(value: int, plus: str = "+") -> str:
    """A number with a typographic minus, and ``plus`` before positive numbers."""
    return f"−{-value}" if value < 0 else f"{plus if value else ''}{value}"


def turn_lines(turn: Turn, name: str) -> list[str]:
    """The parts of a turn in words: who did what, then its bonus."""
    if isinstance(turn, Take):
        plural = "s" * (turn.count != 1)
        return [f"{name} took {turn.count} {colour_name(turn.colour)} stone{plural}"]
    lines = [f"{name} placed {colour_name(turn.colour)} on {location_name(turn.location)}"]
    match turn.bonus:
        case Remove(source):
            lines.append(f"removed the top of {location_name(source)}")
        case Draw(colour):
            lines.append(f"drew {colour_name(colour)} from the quarry")
        case Steal(colour):
            lines.append(f"took {colour_name(colour)} from the rival")
        case Extra(colour, target):
            lines.append(f"placed {colour_name(colour)} on {location_name(target)}")
        case Move(source, target):
            lines.append(f"moved {location_name(source)} → {location_name(target)}")
        case GrayFromQuarry(target):
            lines.append(f"put quarry gray on {location_name(target)}")
    return lines


def result_line(scores: Score, names: tuple[str, str]) -> str:
    """The result in one line, such as ``Ana wins 31–24``; ``names`` are White's and Black's."""
    white, black = scores.totals
    outcome = scores.leader
    if outcome.winner is None:
        return f"Draw {white}–{black}"
    line = f"{names[outcome.winner]} wins {max(white, black)}–{min(white, black)}"
    if outcome.decided_by == "columns":
        won = scores.columns_won
        line += f" on columns {max(won)}–{min(won)}"
    return line


def _name(view: BoardView, player: Colour) -> str:
    return _clean(view.name(player), NAME_LIMIT) or colour_name(player).capitalize()


def _clean(text: str, limit: int) -> str:
    """``text`` on one line without control characters or lone surrogates, cut to ``limit``."""
    spaced = (" " if char.isspace() else char for char in text)
    line = " ".join("".join(c for c in spaced if unicodedata.category(c) not in _DROPPED).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
