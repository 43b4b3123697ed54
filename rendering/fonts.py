"""The bundled DejaVu fonts, their character coverage, and fitting untrusted text into a width.

Fonts are read once from ``rendering/assets`` (never from the system). Player names come from
Discord and may hold emoji, control characters or scripts the fonts lack: :func:`printable`
keeps only what the fonts can draw, so a missing glyph never shows as a box or raises.
"""

from __future__ import annotations

import struct
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from enum import Enum
from functools import cache, lru_cache
from importlib.resources import files
from io import BytesIO

from PIL import ImageFont

ELLIPSIS = "…"
PRINTABLE_LIMIT = 200
_cuts: ContextVar[list[str] | None] = ContextVar("cuts", default=None)


@contextmanager
def recording_cuts() -> Iterator[list[str]]:
    """Collect every text :func:`fit` shortens while the block runs (in this thread): a board
    drawn with short names must shorten none of its labels, in any language."""
    cuts: list[str] = []
    token = _cuts.set(cuts)
    try:
        yield cuts
    finally:
        _cuts.reset(token)


class Face(Enum):
    """The typefaces the board uses, by role."""

    TEXT = "DejaVuSansCondensed.ttf"
    BOLD = "DejaVuSansCondensed-Bold.ttf"
    SERIF = "DejaVuSerif-Bold.ttf"


@cache
def _font_bytes(face: Face) -> bytes:
    return files("rendering").joinpath("assets", face.value).read_bytes()


@cache
def font(face: Face, size: int) -> ImageFont.FreeTypeFont:
    """The bundled ``face`` at ``size`` pixels (cached; loaded from package data once)."""
    return ImageFont.truetype(BytesIO(_font_bytes(face)), size)


@cache
def coverage(face: Face) -> frozenset[int]:
    """The code points ``face`` has a glyph for, read from its ``cmap`` table."""
    return frozenset(_cmap_code_points(_font_bytes(face)))


def _cmap_code_points(data: bytes) -> set[int]:
    """Code points a TrueType font maps to a glyph, from its full-Unicode ``cmap`` subtable.

    The bundled fonts all have that subtable (platform 3, encoding 10, format 12).
    """
    (num_tables,) = struct.unpack_from(">H", data, 4)
    cmap = next(
        struct.unpack_from(">I", data, 12 + 16 * index + 8)[0]
        for index in range(num_tables)
        if data[12 + 16 * index : 16 + 16 * index] == b"cmap"
    )
    (num_subtables,) = struct.unpack_from(">H", data, cmap + 2)
    start = next(
        cmap + offset
        for platform, encoding, offset in (
            struct.unpack_from(">HHI", data, cmap + 4 + 8 * index) for index in range(num_subtables)
        )
        if (platform, encoding) == (3, 10)
    )
    (groups,) = struct.unpack_from(">I", data, start + 12)
    points: set[int] = set()
    for index in range(groups):
        first, last, glyph = struct.unpack_from(">III", data, start + 16 + 12 * index)
        points.update(range(first + (glyph == 0), last + 1))
    return points


def printable(text: str, face: Face) -> str:
    """``text`` reduced to what ``face`` can draw on one line.

    Control, format and private-use characters and anything without a glyph are dropped,
    whitespace runs become one space, and the ends are trimmed. Only the first
    ``PRINTABLE_LIMIT`` characters are looked at: no line of the board holds more.
    """
    covered = coverage(face)
    kept = []
    for char in text[:PRINTABLE_LIMIT]:
        if char.isspace():
            kept.append(" ")
        elif unicodedata.category(char)[0] != "C" and ord(char) in covered:
            kept.append(char)
    return " ".join("".join(kept).split())


def fit(text: str, face: Face, size: int, width: int) -> str:
    """``text`` cut at the end with an ellipsis so that it is at most ``width`` pixels wide."""
    return _noted(text, _fit(text, face, size, width))


def fit_size(text: str, face: Face, sizes: Sequence[int], width: int) -> tuple[str, int]:
    """The largest of ``sizes`` (largest first) at which ``text`` fits ``width``, else the last
    size with ``text`` ellipsized."""
    fitted, size = _fit_size(text, face, tuple(sizes), width)
    return _noted(text, fitted), size


def _noted(text: str, fitted: str) -> str:
    """``fitted``, after noting that ``text`` was cut (:func:`recording_cuts`) if it was."""
    cuts = _cuts.get()
    if cuts is not None and fitted != text:
        cuts.append(text)
    return fitted


FITTED = 4096
"""Fitted texts remembered (measuring is most of what drawing a board's text costs, and the same
names and labels come back on every board of a game)."""


@lru_cache(maxsize=FITTED)
def _fit(text: str, face: Face, size: int, width: int) -> str:
    typeface = font(face, size)
    if typeface.getlength(text) <= width:
        return text
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if typeface.getlength(text[:middle].rstrip() + ELLIPSIS) <= width:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + ELLIPSIS


@lru_cache(maxsize=FITTED)
def _fit_size(text: str, face: Face, sizes: tuple[int, ...], width: int) -> tuple[str, int]:
    for size in sizes:
        if font(face, size).getlength(text) <= width:
            return text, size
    return _fit(text, face, sizes[-1], width), sizes[-1]
