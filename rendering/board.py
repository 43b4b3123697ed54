"""The board image: a cached static background with the position drawn on top, as PNG bytes."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from functools import cache, lru_cache

from PIL import Image, ImageDraw

from engine import (
    BLACK,
    COLOUR_LETTERS,
    GRAY,
    LOCATION_LETTERS,
    LOCATION_SYMBOLS,
    WHITE,
    A,
    B,
    E,
    Move,
    Place,
    Position,
)
from engine.core import BONUS_OF, MOVER_COLOUR
from engine.scoring import Score, score
from engine.vocabulary import BONUS_NAMES, ORNAMENT_TAGS, colour_name, points

from . import style
from .describe import badge_text, effect_text, headline, turn_lines
from .fonts import Face, fit, fit_size, font, printable
from .layout import (
    CARD_STONE,
    COLUMN_STONE,
    SHAFT_PAD,
    SMALL_STONE,
    Box,
    Card,
    Layout,
    Point,
    board_layout,
)
from .paint import cross, panel, paste, ring, shaft, slot, stone
from .png import png
from .translator import Translator
from .view import BoardView, Marks, last_player, last_turn_marks, workshop_stones

ICON_STONE = (24, 9, 8)
ORNAMENT_ICONS = {"plus3": "★", "minority": "<", "tall": "↕"}
"""The glyph on an ornament's tag before its label; the others show a gray stone."""
HIGHLIGHT_WIDTH = 5
CROSS_SIZE = 30
LEFT_TO_RIGHT = "\u200e"
"""A left-to-right mark: sets the direction of a line that starts with a right-to-left name."""
LABEL_PADDING = 5
ARROW_LIFT = 70
ARROW_GAP = (14, 44)
"""How far a move's arrow stays from the place the stone left and from where it went."""
REFERENCE_POSITION = (
    "wbgwb/bwwg/wbwbgwb/gbw/bbwg/wgb/gwbw wgg bbg w A=plus3,B=grayloss,C=tall,D=minority,E=graygain"
)
REFERENCE_VIEW = BoardView("Ana", "Bob", last_turn=Place(BLACK, A, Move(E, B)))
"""A busy board whose colours the palette is fitted to."""
LAST_TURN_SIZES = range(style.SIZE_STATUS_SMALL, style.SIZE_STATUS_SMALL - 4, -1)
"""The last turn in words is set smaller (by up to 3 px) before it is shortened."""
LABEL_SHRINK = 3
"""How many pixels smaller than its style a label may be set to fit its box."""
_LOCK = threading.Lock()
"""Pillow's FreeType faces are shared between threads: drawing holds this lock."""


def render_board(position: Position, view: BoardView | None = None) -> bytes:
    """The board as PNG bytes: the same position and view always give the same bytes."""
    return encode(board_image(position, view or BoardView()))


def board_image(position: Position, view: BoardView) -> Image.Image:
    """The board as an RGB image (see :func:`render_board`)."""
    with _LOCK:
        canvas = _background(position.ornaments, position.capacities, view.translator).copy()
        _draw_position(canvas, board_layout(position.capacities), position, view)
    return canvas


def encode(image: Image.Image) -> bytes:
    """PNG bytes of ``image`` mapped to the board's fixed palette, with no metadata."""
    return png(image.quantize(palette=_palette(), dither=Image.Dither.NONE))


@cache
def _palette() -> Image.Image:
    """The palette every board image uses: the style's colours exactly, then the blends between
    them (antialiased edges and text) fitted by median cut to a reference board."""
    keys = list(dict.fromkeys(style.KEY_COLOURS))
    reference = board_image(Position.parse(REFERENCE_POSITION), REFERENCE_VIEW)
    fitted = reference.quantize(256 - len(keys), Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    flat = fitted.getpalette() or []
    blends = [tuple(flat[index : index + 3]) for index in range(0, len(flat), 3)]
    far = [colour for colour in blends if min(_distance(colour, key) for key in keys) > 8]
    palette = Image.new("P", (1, 1))
    palette.putpalette([channel for colour in keys + far for channel in colour][: 256 * 3])
    return palette


def _distance(first: tuple[int, ...], second: tuple[int, ...]) -> int:
    return max(abs(a - b) for a, b in zip(first, second, strict=True))


# -- the static background -------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _background(
    ornaments: tuple[str | None, ...], capacities: tuple[int, ...], t: Translator
) -> Image.Image:
    """What only the ornaments (and the language) decide: the temple, the column shafts,
    plaques, panels, title.

    Building one takes about 10 ms; each cached one holds 2.2 MB.
    """
    layout = board_layout(capacities)
    canvas = _temple(layout)
    draw = ImageDraw.Draw(canvas)
    for site in layout.sites:
        column = shaft(
            COLUMN_STONE,
            len(site.stones),
            SHAFT_PAD,
            style.SHAFT,
            style.SHAFT_EDGE,
            style.SHAFT_JOINT,
        )
        paste(canvas, column, site.column[:2])
        _plaque(canvas, draw, site.plaque, site.location, t)
    for card in layout.cards:
        paste(canvas, panel(_size(card.box), 14, style.PANEL, style.PANEL_EDGE, 2), card.box[:2])
        for box in card.workshop:
            paste(canvas, slot(SMALL_STONE, style.SLOT_EDGE), box[:2])
        first = card.workshop[0]
        heading = (card.box[0] + 20, first[1], first[0] - 10, first[3])
        _text(canvas, heading, t("WORKSHOP"), Face.BOLD, style.SIZE_HEADING, style.TEXT_SOFT, "lm")
    _title(draw, layout.title, any(ornaments), t)
    quarry = layout.quarry
    paste(canvas, panel(_size(quarry.box), 14, style.PANEL, style.PANEL_EDGE, 2), quarry.box[:2])
    heading = (quarry.box[0], quarry.box[1] + 8, quarry.box[2], quarry.box[1] + 34)
    _text(canvas, heading, t("QUARRY"), Face.BOLD, style.SIZE_HEADING, style.TEXT_SOFT, "mm")
    return canvas


def _title(draw: ImageDraw.ImageDraw, box: Box, advanced: bool, t: Translator) -> None:
    """The game's name and mode."""
    name_font = font(Face.SERIF, style.SIZE_TITLE)
    x: float = box[0]
    baseline = box[3] - 8
    for letter in "THOLOS":
        draw.text((x, baseline), letter, font=name_font, fill=style.GOLD, anchor="ls")
        x += name_font.getlength(letter) + 4
    mode = t("advanced game") if advanced else t("basic game")
    mode = fit(mode, Face.TEXT, style.SIZE_MODE, int(box[2] - x - 10))
    mode_font = font(Face.TEXT, style.SIZE_MODE)
    draw.text((x + 10, baseline), mode, font=mode_font, fill=style.TEXT_SOFT, anchor="ls")


def _temple(layout: Layout) -> Image.Image:
    """The background and the round platform with its steps, drawn large and scaled down."""
    scale = 2
    big = Image.new("RGB", (layout.width * scale, layout.height * scale), style.BACKGROUND)
    draw = ImageDraw.Draw(big)
    (cx, cy), (rx, ry) = layout.platform
    steps = len(style.STEPS)
    for index, colour in enumerate(reversed(style.STEPS)):
        drop = (steps - index) * 12
        draw.ellipse(
            _scaled((cx - rx, cy - ry + drop, cx + rx, cy + ry + drop), scale), fill=colour
        )
    draw.ellipse(_scaled((cx - rx, cy - ry, cx + rx, cy + ry), scale), fill=style.FLOOR)
    for shrink in (0.84, 0.5):
        ring_box = (cx - rx * shrink, cy - ry * shrink, cx + rx * shrink, cy + ry * shrink)
        draw.ellipse(_scaled(ring_box, scale), outline=style.FLOOR_LINE, width=3 * scale)
    return big.reduce(scale)


def _plaque(
    canvas: Image.Image, draw: ImageDraw.ImageDraw, box: Box, location: int, t: Translator
) -> None:
    """A location's plaque: its symbol and letter, and its bonus in words."""
    paste(canvas, panel(_size(box), 8, style.MARBLE, style.MARBLE_EDGE, 2), box[:2])
    left, top, right, _ = box
    middle = (left + right) // 2
    symbol, letter = LOCATION_SYMBOLS[location], LOCATION_LETTERS[location]
    symbol_font = font(Face.SERIF, style.SIZE_SYMBOL)
    letter_font = font(Face.BOLD, style.SIZE_LETTER)
    symbol_width = symbol_font.getlength(symbol)
    start = middle - (symbol_width + 5 + letter_font.getlength(letter)) / 2
    baseline = top + 26
    draw.text((start, baseline), symbol, font=symbol_font, fill=style.INK, anchor="ls")
    draw.text(
        (start + symbol_width + 5, baseline),
        letter,
        font=letter_font,
        fill=style.INK_SOFT,
        anchor="ls",
    )
    kind = BONUS_OF[location]
    mover = MOVER_COLOUR.get(location)
    _icon_label(
        canvas,
        draw,
        (left, top + 32, right, top + 52),
        None if mover is None else style.STONES[mover],
        t(BONUS_NAMES[kind]),
        style.INK,
    )


def _icon_label(
    canvas: Image.Image,
    draw: ImageDraw.ImageDraw,
    box: Box,
    icon: style.StoneStyle | str | None,
    label: str,
    colour: style.Rgb,
) -> None:
    """``label`` centred in ``box`` after an icon: a small stone of a style, or a glyph.

    The label's type shrinks (and at worst the label is shortened) to keep within the box.
    """
    icon_width = 0 if icon is None else ICON_STONE[0] + 5
    room = box[2] - box[0] - 2 * LABEL_PADDING - icon_width
    label, size = fit_size(
        label, Face.BOLD, range(style.SIZE_LABEL, style.SIZE_LABEL_MIN - 1, -1), room
    )
    label_font = font(Face.BOLD, size)
    width = label_font.getlength(label)
    start = (box[0] + box[2] - icon_width - width) / 2
    middle = (box[1] + box[3]) // 2
    if isinstance(icon, style.StoneStyle):
        sprite = stone(icon, ICON_STONE)
        paste(canvas, sprite, (round(start), middle - sprite.height // 2))
    elif isinstance(icon, str):
        draw.text(
            (start + ICON_STONE[0] / 2, middle),
            icon,
            font=font(Face.BOLD, style.SIZE_LABEL + 3),
            fill=colour,
            anchor="mm",
        )
    draw.text((start + icon_width, middle), label, font=label_font, fill=colour, anchor="lm")


# -- the position ----------------------------------------------------------------------------------


def _draw_position(
    canvas: Image.Image, layout: Layout, position: Position, view: BoardView
) -> None:
    """Draw what changes from turn to turn onto the background ``canvas``."""
    draw = ImageDraw.Draw(canvas)
    scores = score(position)
    marks = last_turn_marks(position, view.last_turn)
    highlighted = marks.stones if marks is not None else frozenset()
    if marks is not None:
        _move_arrow(canvas, layout, marks)
    for site, stones in zip(layout.sites, position.columns, strict=True):
        for index, letter in enumerate(stones):
            box = site.stones[index]
            paste(canvas, stone(style.STONES[COLOUR_LETTERS.index(letter)], COLUMN_STONE), box[:2])
            if (site.location, index) in highlighted:
                _ring(canvas, box, COLUMN_STONE)
        ornament = position.ornaments[site.location]
        if ornament is not None:
            changed = scores.columns[site.location].effect is not None
            _tag(canvas, draw, site.tag, ornament, changed, view.translator)
    if marks is not None:
        _vacated(canvas, layout, marks)
    _badges(canvas, layout, scores, view.translator)
    final = view.is_final(position)
    for player, card in zip((WHITE, BLACK), layout.cards, strict=True):
        _card(canvas, card, player, position, view, scores, marks, final)
    _quarry(canvas, layout, position)
    _status(canvas, layout, position, view, scores, final)


def _tag(
    canvas: Image.Image,
    draw: ImageDraw.ImageDraw,
    box: Box,
    ornament: str,
    changed: bool,
    t: Translator,
) -> None:
    """An ornament's tag: a terracotta tile with its icon and label, gold-rimmed while it changes
    its column's score."""
    edge, width = (style.GOLD, 3) if changed else (style.TERRACOTTA_EDGE, 2)
    paste(canvas, panel(_size(box), 8, style.TERRACOTTA, edge, width), box[:2])
    icon = ORNAMENT_ICONS.get(ornament, style.STONES[GRAY])
    _icon_label(canvas, draw, box, icon, t(ORNAMENT_TAGS[ornament]), style.CREAM)


def _ring(canvas: Image.Image, box: Box, size: tuple[int, int, int]) -> None:
    """Ring the stone of ``size`` in ``box``: a mark of the last turn."""
    sprite = ring(size, HIGHLIGHT_WIDTH, style.HIGHLIGHT)
    paste(canvas, sprite, (box[0] - HIGHLIGHT_WIDTH, box[1] - HIGHLIGHT_WIDTH))


def _slot_centre(layout: Layout, place: tuple[int, int] | None) -> Point | None:
    """The middle of a column's ``(location, index)`` place, if the column has that place."""
    if place is None:
        return None
    location, index = place
    stones = layout.sites[location].stones
    if not 0 <= index < len(stones):
        return None
    box = stones[index]
    return ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)


def _vacated(canvas: Image.Image, layout: Layout, marks: Marks) -> None:
    """Mark the place a stone left (removed or moved) with a cross."""
    centre = _slot_centre(layout, marks.vacated)
    if centre is not None:
        sprite = cross(CROSS_SIZE, style.HIGHLIGHT, style.INK)
        paste(canvas, sprite, (centre[0] - sprite.width // 2, centre[1] - sprite.height // 2))


def _move_arrow(canvas: Image.Image, layout: Layout, marks: Marks) -> None:
    """The way a moved stone went, drawn behind the stones so that it never hides one."""
    start = _slot_centre(layout, marks.vacated)
    end = _slot_centre(layout, marks.moved_to)
    if start is not None and end is not None:
        _arrow(canvas, start, end)


def _arrow(canvas: Image.Image, start: Point, end: Point) -> None:
    """A bold amber arrow from ``start`` to ``end``, bowed upwards, stopping short of both."""
    shape = _arrow_masks(start, end)
    if shape is not None:
        corner, masks = shape
        for colour, mask in zip((style.INK, style.HIGHLIGHT), masks, strict=True):
            canvas.paste(colour, corner, mask)


@lru_cache(maxsize=512)
def _arrow_masks(start: Point, end: Point) -> tuple[Point, tuple[Image.Image, ...]] | None:
    """Where the arrow from ``start`` to ``end`` goes, and its outline's and its body's masks
    (``None``: too short to draw); kept, since drawing its curve costs more than the rest of a
    board's shapes together."""
    (x0, y0), (x1, y1) = start, end
    control = ((x0 + x1) / 2, min(y0, y1) - ARROW_LIFT)
    curve = [
        (x, y)
        for x, y in (
            (
                (1 - t) ** 2 * x0 + 2 * (1 - t) * t * control[0] + t**2 * x1,
                (1 - t) ** 2 * y0 + 2 * (1 - t) * t * control[1] + t**2 * y1,
            )
            for t in (step / 64 for step in range(65))
        )
        if math.dist((x, y), start) > ARROW_GAP[0] and math.dist((x, y), end) > ARROW_GAP[1]
    ]
    if len(curve) < 2:
        return None
    (ax, ay), (bx, by) = curve[-2], curve[-1]
    length = max(math.dist((ax, ay), (bx, by)), 1e-6)
    ux, uy = (bx - ax) / length, (by - ay) / length
    head = [
        (bx + ux * 16, by + uy * 16),
        (bx - uy * 11, by + ux * 11),
        (bx + uy * 11, by - ux * 11),
    ]
    outline = [*curve, *head]
    left = int(min(x for x, _ in outline)) - 8
    top = int(min(y for _, y in outline)) - 8
    size = (int(max(x for x, _ in outline)) + 8 - left, int(max(y for _, y in outline)) + 8 - top)

    def local(point: tuple[float, float]) -> tuple[float, float]:
        return ((point[0] - left) * 2, (point[1] - top) * 2)

    masks = []
    for width, grow in ((9, 2), (5, 0)):
        mask = Image.new("L", (size[0] * 2, size[1] * 2), 0)
        draw = ImageDraw.Draw(mask)
        draw.line([local(p) for p in curve], fill=255, width=width * 2, joint="curve")
        draw.polygon([local(p) for p in head], fill=255, outline=255, width=grow * 2)
        masks.append(mask.reduce(2))
    return (left, top), tuple(masks)


def _badges(canvas: Image.Image, layout: Layout, scores: Score, t: Translator) -> None:
    """Under each column: who leads it and the points it would give now (nothing when empty)."""
    for site, column in zip(layout.sites, scores.columns, strict=True):
        text = badge_text(column, t)
        if text is None:
            continue
        box = site.badge
        if column.winner is None:
            paste(canvas, panel(_size(box), 15, style.TIE, style.TIE_EDGE, 2), box[:2])
            _text(canvas, box, text, Face.BOLD, style.SIZE_BADGE, style.INK, "mm")
            continue
        look = style.STONES[column.winner]
        effect = effect_text(column, t)
        edge, width = (style.GOLD, 3) if effect is not None else (look.outline, 2)
        paste(canvas, panel(_size(box), 15, look.side, edge, width), box[:2])
        _text(canvas, box, text, Face.BOLD, style.SIZE_BADGE, look.outline, "mm")
        if effect is not None:
            chip = site.effect
            paste(canvas, panel(_size(chip), 8, style.TERRACOTTA, style.GOLD, 1), chip[:2])
            _text(canvas, chip, effect, Face.BOLD, style.SIZE_EFFECT, style.CREAM, "mm")


def _card(
    canvas: Image.Image,
    card: Card,
    player: int,
    position: Position,
    view: BoardView,
    scores: Score,
    marks: Marks | None,
    final: bool,
) -> None:
    """A player's card: colour, name, role, total and workshop."""
    to_move = not final and position.turn == player
    winner = final and not view.note and scores.leader.winner == player
    if to_move or winner:
        paste(canvas, panel(_size(card.box), 14, None, style.HIGHLIGHT, 4), card.box[:2])
    paste(canvas, stone(style.STONES[player], CARD_STONE), card.stone[:2])
    name, size = fit_size(
        _name(view, player, Face.BOLD),
        Face.BOLD,
        range(style.SIZE_NAME, style.SIZE_NAME_MIN - 1, -2),
        card.name[2] - card.name[0],
    )
    _text(canvas, card.name, name, Face.BOLD, size, style.TEXT, "lm")
    t = view.translator
    side = colour_name(player, t).capitalize()
    if to_move:
        role = t("{colour} · to move", colour=side)
    elif winner:
        role = t("{colour} · wins", colour=side)
    else:
        role = side
    role_colour = style.HIGHLIGHT if to_move or winner else style.TEXT_SOFT
    _text(canvas, card.role, role, Face.BOLD, style.SIZE_ROLE, role_colour, "lm")
    total = points(scores.totals[player])
    _text(canvas, card.total, total, Face.SERIF, style.SIZE_TOTAL, style.TEXT, "rm")
    caption = (card.total[0], card.total[3], card.total[2], card.total[3] + 18)
    when = t("final") if final else t("if ended now")
    _text(canvas, caption, when, Face.TEXT, style.SIZE_CAPTION, style.TEXT_SOFT, "rm")
    stones = workshop_stones(position.workshops[player])
    arrived = list(marks.workshop) if marks is not None and marks.player == player else [0, 0, 0]
    for index in reversed(range(len(stones))):
        colour = COLOUR_LETTERS.index(stones[index])
        box = card.workshop[index]
        paste(canvas, stone(style.STONES[colour], SMALL_STONE), box[:2])
        if arrived[colour]:
            arrived[colour] -= 1
            _ring(canvas, box, SMALL_STONE)


def _quarry(canvas: Image.Image, layout: Layout, position: Position) -> None:
    """The quarry: a small pile per colour (an empty place when none is left) and its count."""
    quarry = layout.quarry
    for colour, (pile, count_box) in enumerate(zip(quarry.piles, quarry.counts, strict=True)):
        count = position.quarry[colour]
        if not count:
            paste(canvas, slot(SMALL_STONE, style.SLOT_EDGE), pile[0][:2])
        for box in pile[:count]:
            paste(canvas, stone(style.STONES[colour], SMALL_STONE), box[:2])
        colour_text = style.TEXT if count else style.TEXT_SOFT
        _text(canvas, count_box, str(count), Face.BOLD, style.SIZE_COUNT, colour_text, "mm")


def _status(
    canvas: Image.Image,
    layout: Layout,
    position: Position,
    view: BoardView,
    scores: Score,
    final: bool,
) -> None:
    """The middle of the temple: the note, the result or whose turn it is; then the last turn."""
    left, top, right, bottom = layout.status
    width = right - left
    head, small = Face.BOLD, Face.TEXT
    sizes = range(style.SIZE_STATUS, style.SIZE_STATUS_MIN - 1, -2)
    t = view.translator
    make, player = headline(position, view, scores)
    if player is None:
        headline_line = fit_size(printable(make(""), head), head, sizes, width)
    else:
        headline_line = _named(make, _name(view, player, head), head, sizes, width)
    lines = [(*headline_line, head, style.INK)]
    turn = view.last_turn
    if turn is not None:
        name = _name(view, last_player(position), small)
        first = _named(lambda n: turn_lines(turn, n, t)[0], name, small, LAST_TURN_SIZES, width)
        lines.append((*first, small, style.INK_SOFT))
        for text in turn_lines(turn, name, t)[1:]:
            fitted, size = fit_size(text, small, LAST_TURN_SIZES, width)
            lines.append((fitted, size, small, style.INK_SOFT))
    y = top + 12
    for text, size, face, colour in lines:
        if y + size > bottom:
            break
        _line(canvas, ((left + right) // 2, y), text, face, size, colour, "mt")
        y += size + 8


# -- helpers ---------------------------------------------------------------------------------------


def _name(view: BoardView, player: int, face: Face) -> str:
    """A player's name as the image can draw it (their colour when nothing drawable is left)."""
    return printable(view.name(player), face) or colour_name(player, view.translator).capitalize()


def _named(
    make: Callable[[str], str], name: str, face: Face, sizes: Sequence[int], width: int
) -> tuple[str, int]:
    """``make(name)`` at the largest of ``sizes`` that fits ``width``; at the smallest size,
    ``name`` is shortened to make the line fit."""
    text, size = fit_size(make(name), face, sizes, width)
    if text == make(name):
        return text, size
    room = width - font(face, size).getlength(make(""))
    return fit(make(fit(name, face, size, max(int(room), 0))), face, size, width), size


def _line(
    canvas: Image.Image,
    at: tuple[float, float],
    text: str,
    face: Face,
    size: int,
    fill: style.Rgb,
    anchor: str,
) -> None:
    """Draw one line of text, laid out left to right even when it holds right-to-left names.

    The line's coverage is drawn once (:func:`_coverage`) and painted in ``fill`` wherever it
    comes back: the same pixels as drawing the text there, at a fraction of the cost."""
    x, y = at
    left, top = int(x), int(y)
    coverage, (dx, dy) = _coverage(LEFT_TO_RIGHT + text, face, size, anchor, x - left, y - top)
    canvas.paste(fill, (left + dx, top + dy), coverage)


@lru_cache(maxsize=2048)
def _coverage(
    text: str, face: Face, size: int, anchor: str, x: float, y: float
) -> tuple[Image.Image, tuple[int, int]]:
    """``text`` drawn (in white on black: how much each pixel is covered) at a point whose
    fractional part is ``(x, y)``, and where the image's corner is from that point's whole
    part. Pillow draws text by filling its ink through such a coverage, which is what
    :func:`_line` does with it; the fraction is kept because it moves the glyphs by sub-pixels
    (the board's coordinates are multiples of 1/64, so it is exact)."""
    typeface = font(face, size)
    left, top, right, bottom = typeface.getbbox(text, anchor=anchor)
    pad = 4
    origin = (pad - math.floor(left), pad - math.floor(top))
    width = math.ceil(right) - math.floor(left) + 2 * pad
    height = math.ceil(bottom) - math.floor(top) + 2 * pad
    coverage = Image.new("L", (width, height), 0)
    ImageDraw.Draw(coverage).text(
        (origin[0] + x, origin[1] + y), text, font=typeface, fill=255, anchor=anchor
    )
    return coverage, (-origin[0], -origin[1])


def _text(
    canvas: Image.Image,
    box: Box,
    text: str,
    face: Face,
    size: int,
    fill: style.Rgb,
    anchor: str,
) -> None:
    """Draw ``text`` in ``box``, aligned by ``anchor``: ``lm`` left, ``mm`` centre, ``rm`` right;
    a text too wide for the box is set smaller (down to ``LABEL_SHRINK`` pixels less), then
    shortened."""
    left, top, right, bottom = box
    text, size = fit_size(text, face, range(size, size - LABEL_SHRINK - 1, -1), right - left)
    x = {"l": left, "m": (left + right) / 2, "r": right}[anchor[0]]
    _line(canvas, (x, (top + bottom) / 2), text, face, size, fill, anchor)


def _size(box: Box) -> tuple[int, int]:
    return (box[2] - box[0], box[3] - box[1])


def _scaled(box: tuple[float, float, float, float], scale: int) -> tuple[float, ...]:
    return tuple(value * scale for value in box)
