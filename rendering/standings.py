"""A tournament's standings as an image: a title, a subtitle, and a table — one header row and
one row per player, the podium's places in gold, silver and bronze. The words come translated
from the caller; player names are fitted into their column (see :mod:`.fonts`)."""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

from . import style
from .fonts import Face, fit, font, printable

WIDTH = 760
ROW = 34
TOP = 92
SIDE = 24
MEDALS: tuple[style.Rgb, ...] = ((232, 190, 84), (196, 202, 210), (205, 140, 82))
"""The podium's colours: first, second, third."""
NAME_COLUMN = 1
"""The column that takes the room the others leave."""


def render_standings(
    title: str,
    subtitle: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    ranks: Sequence[int],
) -> bytes:
    """A PNG of the standings: ``headers`` over ``rows`` (the second column is the player's
    name); ``ranks``: each row's rank (1-3 get a medal's colour)."""
    height = TOP + ROW * (len(rows) + 1) + SIDE
    image = Image.new("RGB", (WIDTH, height), style.BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text(
        (SIDE, 18),
        fit(printable(title, Face.SERIF), Face.SERIF, 28, WIDTH - 2 * SIDE),
        font=font(Face.SERIF, 28),
        fill=style.GOLD,
    )
    draw.text(
        (SIDE, 56),
        fit(subtitle, Face.TEXT, 17, WIDTH - 2 * SIDE),
        font=font(Face.TEXT, 17),
        fill=style.TEXT_SOFT,
    )
    widths = _widths(len(headers))
    lefts = [SIDE + sum(widths[:index]) for index in range(len(widths))]
    draw.rectangle((SIDE - 8, TOP, WIDTH - SIDE + 8, TOP + ROW), fill=style.PANEL_EDGE)
    bold, text = font(Face.BOLD, 16), font(Face.TEXT, 18)
    for index, header in enumerate(headers):
        _cell(
            draw, header, lefts[index], widths[index], TOP, bold, Face.BOLD, 16, index, style.TEXT
        )
    for number, (row, rank) in enumerate(zip(rows, ranks, strict=True)):
        y = TOP + ROW * (number + 1)
        fill = style.PANEL if number % 2 == 0 else style.BACKGROUND
        draw.rectangle((SIDE - 8, y, WIDTH - SIDE + 8, y + ROW), fill=fill)
        colour = MEDALS[rank - 1] if 1 <= rank <= len(MEDALS) else style.TEXT
        for index, value in enumerate(row):
            shown = printable(value, Face.TEXT) if index == NAME_COLUMN else value
            _cell(
                draw,
                shown,
                lefts[index],
                widths[index],
                y,
                text,
                Face.TEXT,
                18,
                index,
                colour if index <= NAME_COLUMN else style.TEXT,
            )
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def _widths(columns: int) -> list[int]:
    """The rank column narrow, the name wide, the numbers alike."""
    rank, number = 56, 104
    name = WIDTH - 2 * SIDE - rank - number * (columns - 2)
    return [rank, name, *[number] * (columns - 2)]


def _cell(
    draw: ImageDraw.ImageDraw,
    value: str,
    left: int,
    width: int,
    top: int,
    typeface: ImageFont.FreeTypeFont,
    face: Face,
    size: int,
    index: int,
    colour: style.Rgb,
) -> None:
    """One cell: the name left-aligned, numbers right-aligned."""
    shown = fit(value, face, size, width - 12)
    middle = top + ROW / 2
    if index == NAME_COLUMN:
        draw.text((left + 4, middle), shown, font=typeface, fill=colour, anchor="lm")
    else:
        draw.text((left + width - 10, middle), shown, font=typeface, fill=colour, anchor="rm")
