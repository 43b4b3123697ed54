"""The chart of a reviewed game: the expected result for White after each turn, as the AI saw
it — above the middle line White is ahead, below it Black. Mistakes are marked on the curve."""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw

from . import style
from .fonts import Face, fit, font
from .translator import ENGLISH, Translator

WIDTH, HEIGHT = 800, 260
MARGIN = (76, 18, 18, 34)
"""Left, top, right, bottom: room for the axis labels."""


def render_chart(
    expected_white: Sequence[float], marks: Sequence[int] = (), t: Translator = ENGLISH
) -> bytes:
    """A PNG of ``expected_white`` (values in [0, 1], one per ply from the start) with a dot
    at each ply in ``marks`` (the turns that were mistakes)."""
    image = Image.new("RGB", (WIDTH, HEIGHT), style.BACKGROUND)
    draw = ImageDraw.Draw(image)
    left, top = MARGIN[0], MARGIN[1]
    right, bottom = WIDTH - MARGIN[2], HEIGHT - MARGIN[3]
    draw.rectangle((left, top, right, bottom), fill=style.PANEL, outline=style.PANEL_EDGE)
    middle = (top + bottom) / 2
    draw.line((left, middle, right, middle), fill=style.PANEL_EDGE, width=1)
    label_font = font(Face.BOLD, 13)
    for text, y, anchor in (
        (t("White"), top + 4, "rt"),
        (t("even"), middle, "rm"),
        (t("Black"), bottom - 4, "rb"),
    ):
        draw.text(
            (left - 6, y),
            fit(text, Face.BOLD, 13, left - 8),
            font=label_font,
            fill=style.TEXT_SOFT,
            anchor=anchor,
        )
    count = max(len(expected_white) - 1, 1)

    def point(ply: int) -> tuple[float, float]:
        value = min(max(expected_white[ply], 0.0), 1.0)
        return left + (right - left) * ply / count, bottom - (bottom - top) * value

    points = [point(ply) for ply in range(len(expected_white))]
    if len(points) >= 2:
        area = [(left, middle), *points, (points[-1][0], middle)]
        shade = Image.new("L", image.size, 0)
        ImageDraw.Draw(shade).polygon(area, fill=70)
        image.paste(style.STONES[0].side, (0, 0), shade)
        draw = ImageDraw.Draw(image)
        draw.line(points, fill=style.GOLD, width=3, joint="curve")
    for ply in marks:
        if 0 <= ply < len(points):
            x, y = points[ply]
            draw.ellipse((x - 5, y - 5, x + 5, y + 5), fill=style.TERRACOTTA, outline=style.CREAM)
    axis = t("turns 1–{count}", count=count)
    draw.text(
        ((left + right) / 2, bottom + 8), axis, font=label_font, fill=style.TEXT_SOFT, anchor="mt"
    )
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()
