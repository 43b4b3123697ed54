"""Known positions for the rendering tests, and a helper that decodes a rendered board."""

from __future__ import annotations

import io

from PIL import Image

from engine import Position, parse_turn
from rendering import BoardView, render_board

START = "-/-/-/-/-/-/- ww bb w -"
MID_BASIC = ("wb/wgbbg/wbw/bbw/bb/ww/b g - w -", "b@A/G>B")
"""A basic game after 26 random turns; the last one moved a black stone from G to B."""
FULL_ADVANCED = (
    "wbgwb/bwwg/wbwbgwb/gbw/bbwg/wgb/gwbw wgg bbg w "
    "A=plus3,B=grayloss,C=tall,D=minority,E=graygain",
    "b@A/E>B",
)
"""Five ornaments, a 7-high tall column, full workshops and no gray stone left in the quarry."""
FINISHED_ADVANCED = (
    "gwwbw/gbbgb/wwbwbgb/wggww/ggwww/wggbw/bbbbb wb b b "
    "A=plus3,B=grayloss,C=tall,D=minority,E=graygain",
    "w@D",
)
OTHER_ORNAMENTS = ("gww/bb/w/-/gg/wb/g - w b C=graytrigger,F=grayquarry", "w@C/xE")
"""The two ornaments the others leave out; the last turn removed a stone from E."""
KNOWN = {
    "start": (START, None),
    "mid basic": MID_BASIC,
    "full advanced": FULL_ADVANCED,
    "finished advanced": FINISHED_ADVANCED,
    "other ornaments": OTHER_ORNAMENTS,
}


def case(name: str) -> tuple[Position, BoardView]:
    """A known position with a view naming Ana (White) and Bob (Black) and its last turn."""
    notation, last = KNOWN[name]
    return Position.parse(notation), BoardView(
        "Ana", "Bob", last_turn=None if last is None else parse_turn(last)
    )


def pixels(position: Position, view: BoardView) -> Image.Image:
    """The rendered PNG, decoded to RGB."""
    return Image.open(io.BytesIO(render_board(position, view))).convert("RGB")
