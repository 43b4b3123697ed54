"""The animated replay of a whole game: the start, one frame per turn (the position after it,
the turn highlighted and told in words, "Turn 12 of 70" in the corner), and the final scoring,
shown longer. It loops.

The format is GIF: Discord plays it inline everywhere (in embeds and as an attachment), and
since every board is drawn in the same fixed 256-colour palette (:func:`board._palette`), each
frame maps onto it exactly — no dithering, no per-frame palette — and Pillow stores only the
rectangle that changed since the previous frame, so a 70-turn game stays around two megabytes.
(Animated WebP was larger at the same quality and slower to encode here.)
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, replace

from PIL import Image, ImageDraw

from engine import Position, Turn

from . import style
from .board import _LOCK, _palette, board_image
from .fonts import Face, font
from .view import BoardView

FIRST_MS = 1500
TURN_MS = 1000
FINAL_MS = 4000
"""How long the start, each turn and the final scoring are shown."""
CAPTION_SIZE = 18
SCALE = 0.8
"""Frames are drawn at 80 % of the board's size (800 px wide): still sharp in Discord's
embed, which shows images at about 400–550 px, and a third smaller to download."""


@dataclass(frozen=True, slots=True)
class Replay:
    """An animated image of a game."""

    data: bytes
    format: str
    """The file extension (``gif``)."""
    frames: int
    duration_ms: int


def render_replay(
    start: Position,
    turns: Sequence[Turn],
    view: BoardView,
    *,
    note: str | None = None,
    clocks: Sequence[str] | None = None,
) -> Replay:
    """The replay of the game that ``turns`` play from ``start`` (names and language from
    ``view``; ``note``, such as a resignation, heads the final frame; ``clocks``, the clocks
    in words at the start and after each turn of a live game, follow each frame's caption)."""

    def captioned(caption: str, number: int) -> str:
        return caption if not clocks else f"{caption} · {clocks[min(number, len(clocks) - 1)]}"

    t = view.translator
    palette = _palette()
    frames: list[Image.Image] = []
    durations: list[int] = []
    position = start
    total = len(turns)
    shown = replace(view, last_turn=None, final=False, note=None)
    frames.append(_frame(position, shown, captioned(t("Start"), 0), palette))
    durations.append(FIRST_MS)
    for number, turn in enumerate(turns, start=1):
        position = position.apply(turn)
        shown = replace(view, last_turn=turn, final=False, note=None)
        caption = t("Turn {number} of {total}", number=number, total=total)
        frames.append(_frame(position, shown, captioned(caption, number), palette))
        durations.append(TURN_MS)
    final = replace(view, last_turn=turns[-1] if turns else None, final=True, note=note)
    frames.append(_frame(position, final, captioned(t("Final scoring"), total), palette))
    durations.append(FINAL_MS)
    buffer = io.BytesIO()
    frames[0].save(
        buffer,
        format="GIF",
        save_all=True,
        append_images=frames[1:],
        duration=durations,
        loop=0,
        optimize=False,
        disposal=1,
    )
    return Replay(buffer.getvalue(), "gif", len(frames), sum(durations))


def _frame(position: Position, view: BoardView, caption: str, palette: Image.Image) -> Image.Image:
    """One frame: the board with ``caption`` in its top right corner, in the board's palette."""
    image = board_image(position, view)
    with _LOCK:
        draw = ImageDraw.Draw(image)
        draw.text(
            (image.width - 18, 34),
            caption,
            font=font(Face.BOLD, CAPTION_SIZE),
            fill=style.GOLD,
            anchor="rs",
        )
    size = (round(image.width * SCALE), round(image.height * SCALE))
    return image.resize(size, Image.Resampling.BOX).quantize(
        palette=palette, dither=Image.Dither.NONE
    )
