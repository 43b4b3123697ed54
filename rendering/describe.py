"""The board in words: the same information as the image, for embed text and alt text.

Names are cut to 32 characters and the note to 60, which keeps the text within 1024 characters
(Discord's limit for an attachment's description; an embed's description allows 4096). The
locations' bonuses are the same in every game, so the text leaves them to the image.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

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
from engine.vocabulary import ORNAMENT_NAMES, colour_name, location_name, points, signed

from .translator import ENGLISH, Translator
from .view import BoardView, last_player, workshop_stones

NAME_LIMIT = 32
NOTE_LIMIT = 60
_DROPPED = {"Cc", "Cs"}
"""Control characters and lone surrogates: never sent on."""


def describe_board(position: Position, view: BoardView | None = None) -> str:
    """The position and view in plain text: the turn or result, the players, every column."""
    view = view or BoardView()
    t = view.translator
    scores = score(position)
    final = view.is_final(position)
    names = (_name(view, WHITE), _name(view, BLACK))
    note = _clean(view.note or "", NOTE_LIMIT)
    if note:
        lines = [note]
    elif final:
        lines = [t("{result}.", result=result_line(scores, names, t))]
    else:
        lines = [t("{name} to move.", name=names[position.turn])]
    if view.last_turn is not None:
        player = colour_name(last_player(position), t).capitalize()
        turn = ", ".join(turn_lines(view.last_turn, player, t))
        lines.append(t("Last turn: {turn}.", turn=turn))
    totals = "; ".join(
        t(
            "{colour}, {name}: {points}",
            colour=colour_name(player, t).capitalize(),
            name=names[player],
            points=points(scores.totals[player]),
        )
        for player in (WHITE, BLACK)
    )
    if final:
        lines.append(t("Final points: {points}.", points=totals))
    else:
        lines.append(t("Points if the game ended now: {points}.", points=totals))
    workshops = "; ".join(_workshop_words(position, player, t) for player in (WHITE, BLACK))
    lines.append(t("Workshops: {workshops}.", workshops=workshops))
    quarry = ", ".join(f"{count} {colour_name(c, t)}" for c, count in enumerate(position.quarry))
    lines.append(t("Quarry: {stones}.", stones=quarry))
    lines.append(t("Columns, stones bottom to top:"))
    lines += [_column_line(position, column, t) for column in scores.columns]
    return "\n".join(lines)


def _column_line(position: Position, column: ColumnScore, t: Translator) -> str:
    location = column.location
    text = location_name(location)
    if column.ornament is not None:
        text += ", " + t("{ornament} ornament", ornament=t(ORNAMENT_NAMES[column.ornament]))
    text += (
        f": {_stone_words(column.stones, t)} ({len(column.stones)}/{position.capacities[location]})"
    )
    if column.winner is not None:
        text += f"; {colour_name(column.winner, t).capitalize()} {points(column.points)}"
        change = ornament_change(column, t)
        if change is not None:
            text += " " + t("(ornament {change})", change=change)
    elif column.stones:
        text += "; " + t("tied")
    return text + "."


def _workshop_words(position: Position, player: Colour, t: Translator) -> str:
    """``White has white, black``, or ``Black has none``."""
    colour = colour_name(player, t).capitalize()
    stones = workshop_stones(position.workshops[player])
    if not stones:
        return t("{colour} has none", colour=colour)
    return t("{colour} has {stones}", colour=colour, stones=_stone_words(stones, t))


def _stone_words(stones: str, t: Translator) -> str:
    return ", ".join(colour_name(COLOUR_LETTERS.index(s), t) for s in stones) or t("empty")


def ornament_change(column: ColumnScore, t: Translator = ENGLISH) -> str | None:
    """What a column's ornament changes in its score: ``reversed`` when it changes the winner,
    else the points it adds (``+3``, ``−2``); ``None`` when it changes nothing."""
    if column.effect is None:
        return None
    plain_winner, plain_points = column_points(column.stones)
    if plain_winner != column.winner:
        return t("reversed")
    return signed(column.points - plain_points)


def turn_lines(turn: Turn, name: str, t: Translator = ENGLISH) -> list[str]:
    """The parts of a turn in words: who did what, then its bonus."""
    if isinstance(turn, Take):
        colour = colour_name(turn.colour, t)
        took = t.plural(
            "{name} took {count} {colour} stone",
            "{name} took {count} {colour} stones",
            turn.count,
            name=name,
            colour=colour,
        )
        return [took]
    lines = [
        t(
            "{name} placed {colour} on {location}",
            name=name,
            colour=colour_name(turn.colour, t),
            location=location_name(turn.location),
        )
    ]
    match turn.bonus:
        case Remove(source):
            lines.append(t("removed the top of {location}", location=location_name(source)))
        case Draw(colour):
            lines.append(t("drew {colour} from the quarry", colour=colour_name(colour, t)))
        case Steal(colour):
            lines.append(t("took {colour} from the rival", colour=colour_name(colour, t)))
        case Extra(colour, target):
            lines.append(
                t(
                    "placed {colour} on {location}",
                    colour=colour_name(colour, t),
                    location=location_name(target),
                )
            )
        case Move(source, target):
            lines.append(
                t(
                    "moved {source} → {target}",
                    source=location_name(source),
                    target=location_name(target),
                )
            )
        case GrayFromQuarry(target):
            lines.append(t("put quarry gray on {location}", location=location_name(target)))
    return lines


def turn_text(turn: Turn, name: str, t: Translator = ENGLISH) -> str:
    """A turn in one line, ``name`` (a player's name or mention) doing it, e.g. ``Ariadne
    placed white on γ C, removed the top of α A``."""
    return ", ".join(turn_lines(turn, name, t))


def scoring_lines(scores: Score, t: Translator = ENGLISH) -> str:
    """Each column's winner, points and ornament change, one line each."""
    lines = []
    for column in scores.columns:
        location = location_name(column.location)
        if column.winner is None:
            line = t("{location}: nobody", location=location)
        else:
            colour = colour_name(column.winner, t).capitalize()
            line = t(
                "{location}: {colour} {points}",
                location=location,
                colour=colour,
                points=signed(column.points),
            )
        change = ornament_change(column, t)
        if change is not None and column.ornament is not None:
            ornament = t(ORNAMENT_NAMES[column.ornament])
            line += " — " + t("{ornament} ornament: {change}", ornament=ornament, change=change)
        lines.append(line)
    return "\n".join(lines)


def result_line(scores: Score, names: tuple[str, str], t: Translator = ENGLISH) -> str:
    """The result in one line, such as ``Ana wins 31–24``; ``names`` are White's and Black's."""
    white, black = scores.totals
    outcome = scores.leader
    if outcome.winner is None:
        return t("Draw {white}–{black}", white=points(white), black=points(black))
    high, low = points(max(white, black)), points(min(white, black))
    if outcome.reason == "columns":
        won = scores.columns_won
        return t(
            "{name} wins {high}–{low} on columns {won}–{lost}",
            name=names[outcome.winner],
            high=high,
            low=low,
            won=max(won),
            lost=min(won),
        )
    return t("{name} wins {high}–{low}", name=names[outcome.winner], high=high, low=low)


def badge_text(column: ColumnScore, t: Translator = ENGLISH) -> str | None:
    """A column's badge: the points it gives its leader now, ``tie``, or nothing when empty."""
    if not column.stones:
        return None
    return t("tie") if column.winner is None else signed(column.points)


def effect_text(column: ColumnScore, t: Translator = ENGLISH) -> str | None:
    """Under a led column's badge: what its ornament changes in those points, if anything."""
    if column.winner is None or column.effect is None:
        return None
    change = ornament_change(column) or ""
    return t("reversed") if change == "reversed" else t("incl. {change}", change=change)


def headline(
    position: Position, view: BoardView, scores: Score
) -> tuple[Callable[[str], str], Colour | None]:
    """The middle of the board's first line: a maker of it from a player's name, and whose
    name (``None``: no name, the note). The image shortens the name to fit; a page does not."""
    t = view.translator
    if view.note:
        note = view.note
        return (lambda _: note), None
    if view.is_final(position):
        return (lambda name: result_line(scores, (name, name), t)), scores.leader.winner
    return (lambda name: t("{name} to move", name=name)), position.turn


def _name(view: BoardView, player: Colour) -> str:
    return (
        _clean(view.name(player), NAME_LIMIT) or colour_name(player, view.translator).capitalize()
    )


def _clean(text: str, limit: int) -> str:
    """``text`` on one line without control characters or lone surrogates, cut to ``limit``."""
    spaced = (" " if char.isspace() else char for char in text)
    line = " ".join("".join(c for c in spaced if unicodedata.category(c) not in _DROPPED).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
