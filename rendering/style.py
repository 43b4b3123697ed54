"""Colours and type sizes of the board image.

Stones differ by lightness and by outline, never by hue alone: white is near-white with a dark
outline, black is near-black with a light outline, gray is mid-gray with a dark outline and a
light inner rim. The last-turn highlight is a bright amber that stands out on all three.
"""

from __future__ import annotations

from dataclasses import dataclass

Rgb = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class StoneStyle:
    """How a stone of one colour is painted."""

    side: Rgb
    """The colour of the stone's side; it shows at the stone's centre."""
    top: Rgb
    outline: Rgb
    rim: Rgb | None = None
    """A second, inner outline (gray stones only)."""


STONES: tuple[StoneStyle, StoneStyle, StoneStyle] = (
    StoneStyle(side=(244, 242, 236), top=(255, 254, 250), outline=(44, 40, 36)),
    StoneStyle(side=(32, 32, 36), top=(64, 64, 70), outline=(214, 208, 196)),
    StoneStyle(
        side=(134, 134, 132), top=(166, 166, 163), outline=(28, 28, 28), rim=(200, 200, 196)
    ),
)
"""Indexed by colour: white, black, gray."""

BACKGROUND: Rgb = (30, 36, 46)
PANEL: Rgb = (42, 50, 63)
PANEL_EDGE: Rgb = (70, 81, 98)
FLOOR: Rgb = (206, 196, 176)
FLOOR_LINE: Rgb = (186, 175, 154)
STEPS: tuple[Rgb, ...] = ((170, 158, 137), (146, 135, 116), (120, 110, 94))
"""The platform's steps, top to bottom."""
SHAFT: Rgb = (216, 206, 186)
SHAFT_EDGE: Rgb = (132, 120, 100)
SHAFT_JOINT: Rgb = FLOOR_LINE
SLOT_EDGE: Rgb = (92, 104, 122)
MARBLE: Rgb = (234, 226, 208)
MARBLE_EDGE: Rgb = STEPS[1]
INK: Rgb = (44, 36, 28)
INK_SOFT: Rgb = (110, 98, 84)
TEXT: Rgb = (240, 236, 226)
TEXT_SOFT: Rgb = (164, 174, 190)
TERRACOTTA: Rgb = (164, 78, 46)
TERRACOTTA_EDGE: Rgb = (110, 48, 26)
CREAM: Rgb = (250, 238, 214)
GOLD: Rgb = (232, 190, 84)
HIGHLIGHT: Rgb = (255, 170, 0)
"""The last turn's marks and the side to move."""
TIE: Rgb = STEPS[0]
TIE_EDGE: Rgb = (96, 86, 70)

SIZE_NAME = 30
SIZE_NAME_MIN = 20
SIZE_ROLE = 19
SIZE_TOTAL = 50
SIZE_SYMBOL = 32
SIZE_LETTER = 17
SIZE_LABEL = 15
SIZE_LABEL_MIN = 12
SIZE_BADGE = 21
SIZE_STATUS = 26
SIZE_STATUS_MIN = 18
SIZE_STATUS_SMALL = 18
SIZE_COUNT = 24
SIZE_HEADING = 15
SIZE_EFFECT = 13
SIZE_TITLE = 26
SIZE_MODE = 16
SIZE_CAPTION = 14

KEY_COLOURS: tuple[Rgb, ...] = (
    *(colour for look in STONES for colour in (look.side, look.top, look.outline)),
    *(look.rim for look in STONES if look.rim is not None),
    BACKGROUND,
    PANEL,
    PANEL_EDGE,
    FLOOR,
    FLOOR_LINE,
    *STEPS,
    SHAFT,
    SHAFT_EDGE,
    SHAFT_JOINT,
    SLOT_EDGE,
    MARBLE,
    MARBLE_EDGE,
    INK,
    INK_SOFT,
    TEXT,
    TEXT_SOFT,
    TERRACOTTA,
    TERRACOTTA_EDGE,
    CREAM,
    GOLD,
    HIGHLIGHT,
    TIE,
    TIE_EDGE,
)
"""The colours the image's palette holds exactly (the rest of it is fitted to the antialiasing)."""
