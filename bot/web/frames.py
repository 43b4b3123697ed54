"""The live board's face of the board value: the JSON frames the page draws.

Like the Discord layout, a thin translation of :class:`~bot.board.Board`; it adds what a page
that draws the board itself needs: the image's geometry and colours (the same
:mod:`rendering.layout` and :mod:`rendering.style` the picture is made from), the workshops and
the quarry, where the last turn shows, and — for the player to move — every step of every legal
turn, so that the page composes a turn with no rules of its own."""

from __future__ import annotations

import dataclasses
from typing import Any

from engine import COLOUR_LETTERS, LOCATION_LETTERS, Position
from engine.core import BONUS_OF
from engine.scoring import ColumnScore, score
from engine.vocabulary import BONUS_NAMES, ORNAMENT_EFFECTS, ORNAMENT_NAMES, ORNAMENT_TAGS
from rendering import style
from rendering.describe import badge_text, effect_text, headline, turn_lines
from rendering.layout import COLUMN_STONE, SMALL_STONE, board_layout
from rendering.view import last_player, last_turn_marks
from rendering.words import Words

from ..board import Board, Choice, TurnStep, turn_steps
from ..puzzle_board import puzzle_board, puzzle_game
from ..storage.puzzles import Attempt

COLOURS = ("white", "black", "gray")
JSON = dict[str, Any]


def board_frame(
    board: Board, t: Words, steps: tuple[TurnStep, ...] | None, now: float
) -> JSON:
    """The frame of ``board`` sent at ``now``; ``steps`` for the player to move (``None`` for
    the others)."""
    position = board.position_value
    view = board.image
    marks = last_turn_marks(position, view.last_turn)
    scores = score(position)
    make, named = headline(position, view, scores)
    last = view.last_turn
    return {
        "type": "board",
        "game": board.game_id,
        "version": board.version,
        "ply": board.ply,
        "phase": board.phase,
        "title": board.title,
        "to_move": COLOURS[position.turn] if board.phase != "over" else None,
        "status": board.status,
        "headline": make("" if named is None else view.name(named)),
        "turn_lines": [] if last is None else turn_lines(last, view.name(last_player(position)), t),
        "last_turn": board.last_turn,
        "marks": None if marks is None else {
            "player": COLOURS[marks.player],
            "stones": sorted(marks.stones),
            "vacated": marks.vacated,
            "moved_to": marks.moved_to,
            "workshop": marks.workshop,
        },
        "sides": [
            {"colour": COLOURS[side.colour], "user": str(side.user_id), "name": side.name,
             "colour_name": side.colour_name, "points": side.points,
             "workshop": list(position.workshops[side.colour])}
            for side in board.sides
        ],
        "quarry": list(position.quarry),
        "columns": [_column(board, t, position, scores.columns[index])
                    for index in range(len(board.columns))],
        "projection": board.projection,
        "scoring": board.scoring,
        "ornaments": board.ornaments,
        "headings": board.headings,
        "position": board.position,
        "small_print": board.small_print,
        "steps": None if steps is None else [_step(step) for step in steps],
        "clocks": _clocks(board, now),
    }  # fmt: skip


def puzzle_frame(attempt: Attempt, t: Words, name: str) -> JSON:
    """The frame of a member's puzzle (``name``: theirs): a board like a game's, its steps
    the answer's, and the attempt the answer is for."""
    game = puzzle_game(attempt, t, lambda user: name)
    frame = board_frame(puzzle_board(attempt, game, t), t, turn_steps(game, t), 0.0)
    frame["puzzle"] = attempt.id
    frame["geometry"] = geometry(game.position)
    return frame


def _clocks(board: Board, now: float) -> JSON | None:
    """A live game's clocks: seconds left per side (``None``: no clock), whose runs and in
    how many seconds it runs out from the frame's sending (the page counts down from its own
    receipt, whatever its machine's clock says)."""
    clocks = board.clocks
    if clocks is None:
        return None
    running = None if clocks.running is None else COLOURS[clocks.running]
    runs_out_in = None if clocks.runs_out_at is None else max(0.0, clocks.runs_out_at - now)
    return {"control": clocks.control, "left": list(clocks.left), "running": running,
            "runs_out_in": runs_out_in}  # fmt: skip


def _column(board: Board, t: Words, position: Position, scored: ColumnScore) -> JSON:
    index = scored.location
    column = board.columns[index]
    ornament = position.ornaments[index]
    return {
        "letter": LOCATION_LETTERS[index],
        "location": column.location,
        "bonus": t(BONUS_NAMES[BONUS_OF[index]]),
        "stones": column.stones,
        "capacity": column.capacity,
        "winner": None if column.winner is None else COLOURS[column.winner],
        "points": column.points,
        "line": column.line,
        "badge": badge_text(scored, t),
        "effect": effect_text(scored, t),
        "ornament": None if not ornament else {
            "tag": t(ORNAMENT_TAGS[ornament]), "name": t(ORNAMENT_NAMES[ornament]),
            "effect": t(ORNAMENT_EFFECTS[ornament]),
        },
    }  # fmt: skip


def _step(step: TurnStep) -> JSON:
    return {"path": step.path, "kind": step.kind, "prompt": step.prompt,
            "options": [_choice(option) for option in step.options]}  # fmt: skip


def _choice(choice: Choice) -> JSON:
    return {key: value for key, value in dataclasses.asdict(choice).items() if value is not None}


def geometry(position: Position) -> JSON:
    """Where the image draws each part, on its canvas: the page draws there too."""
    layout = board_layout(position.capacities)
    return {
        "size": [layout.width, layout.height],
        "stone": COLUMN_STONE,
        "small": SMALL_STONE,
        "platform": layout.platform,
        "status": layout.status,
        "title": layout.title,
        "sites": [
            {"stones": site.stones, "column": site.column, "tag": site.tag,
             "plaque": site.plaque, "badge": site.badge, "effect": site.effect}
            for site in layout.sites
        ],
        "cards": [{"box": card.box, "stone": card.stone, "workshop": card.workshop}
                  for card in layout.cards],
        "quarry": {"box": layout.quarry.box, "piles": [pile[0] for pile in layout.quarry.piles]},
    }  # fmt: skip


def palette() -> JSON:
    """The image's colours, as CSS colours."""
    def css(rgb: tuple[int, ...]) -> str:
        return "#" + "".join(f"{channel:02x}" for channel in rgb)

    return {
        "stones": [{"side": css(look.side), "top": css(look.top), "outline": css(look.outline)}
                   for look in style.STONES],
        **{name.lower(): css(getattr(style, name)) for name in (
            "BACKGROUND", "PANEL", "PANEL_EDGE", "FLOOR", "FLOOR_LINE", "SHAFT", "SHAFT_EDGE",
            "MARBLE", "INK", "INK_SOFT", "TEXT", "TEXT_SOFT", "TERRACOTTA", "TERRACOTTA_EDGE",
            "CREAM", "GOLD", "HIGHLIGHT", "TIE", "TIE_EDGE",
        )},
        "letters": COLOUR_LETTERS,
    }  # fmt: skip
