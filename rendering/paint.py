"""Antialiased shapes as small cached RGBA sprites, drawn large and scaled down once.

Pillow's shapes have hard edges; painting them at ``SCALE`` times the size and shrinking gives
smooth ones. Every sprite depends only on its arguments, so it is built once per process and
shared (sprites are never modified after they are made).
"""

from __future__ import annotations

from functools import cache

from PIL import Image, ImageDraw

from .style import Rgb, StoneStyle

SCALE = 4
StoneSize = tuple[int, int, int]
"""Width, top face height and side height of a stone."""


def _shrink(image: Image.Image) -> Image.Image:
    """``image`` at 1 / ``SCALE`` of its size, each pixel the average of the ones it covers."""
    return image.convert("RGBa").reduce(SCALE).convert("RGBA")


def _drum_outline(draw: ImageDraw.ImageDraw, size: StoneSize, inset: float, fill: Rgb) -> None:
    """Fill the silhouette of a drum (top ellipse, side, bottom ellipse), shrunk by ``inset``."""
    width, face, step = (value * SCALE for value in size)
    pad = inset * SCALE
    draw.ellipse((pad, pad, width - pad, face - pad), fill=fill)
    draw.ellipse((pad, step + pad, width - pad, step + face - pad), fill=fill)
    draw.rectangle((pad, face / 2, width - pad, step + face / 2), fill=fill)


@cache
def stone(style: StoneStyle, size: StoneSize) -> Image.Image:
    """A stone seen from the front and a little above: its side, then its top face."""
    width, face, step = size
    big = Image.new("RGBA", (width * SCALE, (face + step) * SCALE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    edge = 2.0
    _drum_outline(draw, size, 0, style.outline)
    _drum_outline(draw, size, edge, style.side)
    if style.rim is not None:
        rim = edge + 1.5
        draw.arc(
            (rim * SCALE, (step + rim) * SCALE, (width - rim) * SCALE, (step + face - rim) * SCALE),
            20,
            160,
            fill=style.rim,
            width=int(1.5 * SCALE),
        )
    top = (edge * SCALE, edge * SCALE, (width - edge) * SCALE, (face - edge) * SCALE)
    draw.ellipse(top, fill=style.top, outline=style.outline, width=int(1.4 * SCALE))
    inner = (1.5 + edge) * SCALE
    if style.rim is not None and top[3] - top[1] > 4 * inner:
        draw.ellipse(
            (top[0] + inner, top[1] + inner, top[2] - inner, top[3] - inner),
            outline=style.rim,
            width=int(1.5 * SCALE),
        )
    return _shrink(big)


@cache
def slot(size: StoneSize, edge: Rgb) -> Image.Image:
    """An empty place for a stone: the outline of a drum."""
    width, face, step = size
    big = Image.new("RGBA", (width * SCALE, (face + step) * SCALE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    line = int(1.5 * SCALE)
    box = (0, step * SCALE, width * SCALE - 1, (step + face) * SCALE - 1)
    draw.arc(box, 0, 180, fill=edge, width=line)
    draw.line((0, face * SCALE / 2, 0, (step + face / 2) * SCALE), fill=edge, width=line)
    right = width * SCALE - line
    draw.line((right, face * SCALE / 2, right, (step + face / 2) * SCALE), fill=edge, width=line)
    draw.ellipse((0, 0, width * SCALE - 1, face * SCALE - 1), outline=edge, width=line)
    return _shrink(big)


@cache
def shaft(size: StoneSize, count: int, pad: int, fill: Rgb, edge: Rgb, joint: Rgb) -> Image.Image:
    """A pale column shaft with room for ``count`` stones of ``size``, joints marking each place."""
    width, face, step = size
    outer = (width + 2 * pad, face + 2 * pad, step * count)
    big = Image.new("RGBA", (outer[0] * SCALE, (outer[1] + outer[2]) * SCALE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    _drum_outline(draw, outer, 0, edge)
    _drum_outline(draw, outer, 1.5, fill)
    line = int(1.5 * SCALE)
    for index in range(count):
        top = (pad + (count - 1 - index) * step) * SCALE
        box = (pad * SCALE, top, (pad + width) * SCALE, top + face * SCALE)
        if index == count - 1:
            draw.ellipse(box, outline=joint, width=line)
        else:
            draw.arc(box, 0, 180, fill=joint, width=line)
    return _shrink(big)


@cache
def ring(size: StoneSize, thickness: int, colour: Rgb) -> Image.Image:
    """A band ``thickness`` wide around the silhouette of a stone of ``size``."""
    width, face, step = size
    outer = (width + 2 * thickness, face + 2 * thickness, step)
    big = Image.new("RGBA", (outer[0] * SCALE, (outer[1] + step) * SCALE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    _drum_outline(draw, outer, 0, colour)
    hole = Image.new("RGBA", big.size, (0, 0, 0, 0))
    _drum_outline(ImageDraw.Draw(hole), outer, thickness - 0.5, (0, 0, 0))
    big.paste((0, 0, 0, 0), (0, 0), hole)
    return _shrink(big)


@cache
def panel(
    size: tuple[int, int], radius: int, fill: Rgb | None, outline: Rgb | None = None, width: int = 0
) -> Image.Image:
    """A rounded rectangle."""
    big = Image.new("RGBA", (size[0] * SCALE, size[1] * SCALE), (0, 0, 0, 0))
    ImageDraw.Draw(big).rounded_rectangle(
        (0, 0, size[0] * SCALE - 1, size[1] * SCALE - 1),
        radius * SCALE,
        fill=fill,
        outline=outline,
        width=width * SCALE,
    )
    return _shrink(big)


@cache
def cross(size: int, fill: Rgb, ink: Rgb) -> Image.Image:
    """A disc of ``fill`` with a cross of ``ink``: the mark of a place a stone left."""
    big = Image.new("RGBA", (size * SCALE, size * SCALE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.ellipse((0, 0, size * SCALE - 1, size * SCALE - 1), fill=fill)
    inset, end = size * SCALE * 3 // 10, size * SCALE * 7 // 10
    draw.line((inset, inset, end, end), fill=ink, width=size * SCALE // 7)
    draw.line((inset, end, end, inset), fill=ink, width=size * SCALE // 7)
    return _shrink(big)


def paste(canvas: Image.Image, sprite: Image.Image, at: tuple[int, int]) -> None:
    """Blend ``sprite`` onto ``canvas`` with its top left corner at ``at``."""
    canvas.paste(sprite, at, sprite)
