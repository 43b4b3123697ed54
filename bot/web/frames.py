"""The live board's face of the board value: the JSON frames the page draws.

Like the Discord layout, a thin translation of :class:`~bot.words.board.Board`; it adds what a page
that draws the board itself needs: the image's geometry and colours (the same
:mod:`rendering.layout` and :mod:`rendering.style` the picture is made from), the workshops and
the quarry, where the last turn shows, and — for the player to move — every step of every legal
turn, so that the page composes a turn with no rules of its own."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Final

from bot.words.board import Board
from bot.words.choices import Choice
from bot.words.steps import TurnStep
from engine import COLOUR_LETTERS, LOCATION_LETTERS, Position
from engine.core import BONUS_OF
from engine.scoring import ColumnScore, score
from engine.vocabulary import BONUS_NAMES, ORNAMENT_EFFECTS, ORNAMENT_NAMES, ORNAMENT_TAGS
from rendering import style
from rendering.describe import badge_text, effect_text, headline, turn_lines
from rendering.layout import COLUMN_STONE, SMALL_STONE, board_layout, stone_box
from rendering.translator import Translator
from rendering.view import last_player, last_turn_marks

COLOURS = ("white", "black", "gray")
JSON = dict[str, Any]


def board_frame(
    board: Board, t: Translator, steps: tuple[TurnStep, ...] | None, now: float
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
        "marks": None
        if marks is None
        else {
            "player": COLOURS[marks.player],
            "stones": sorted(marks.stones),
            "vacated": marks.vacated,
            "moved_to": marks.moved_to,
            "workshop": marks.workshop,
        },
        "sides": [
            {
                "colour": COLOURS[side.colour],
                "user": str(side.user_id),
                "name": side.name,
                "colour_name": side.colour_name,
                "points": side.points,
                "workshop": list(position.workshops[side.colour]),
            }
            for side in board.sides
        ],
        "quarry": list(position.quarry),
        "columns": [
            _column(board, t, position, scores.columns[index])
            for index in range(len(board.columns))
        ],
        "projection": board.projection,
        "scoring": board.scoring,
        "ornaments": board.ornaments,
        "headings": board.headings,
        "position": board.position,
        "small_print": board.small_print,
        "steps": None if steps is None else [_step(step) for step in steps],
        "clocks": _clocks(board, now),
    }


def _clocks(board: Board, now: float) -> JSON | None:
    """A live game's clocks: seconds left per side (``None``: no clock), whose runs and in
    how many seconds it runs out from the frame's sending (the page counts down from its own
    receipt, whatever its machine's clock says)."""
    clocks = board.clocks
    if clocks is None:
        return None
    running = None if clocks.running is None else COLOURS[clocks.running]
    runs_out_in = None if clocks.runs_out_at is None else max(0.0, clocks.runs_out_at - now)
    return {
        "control": clocks.control,
        "left": list(clocks.left),
        "running": running,
        "runs_out_in": runs_out_in,
    }


def _column(board: Board, t: Translator, position: Position, scored: ColumnScore) -> JSON:
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
        "ornament": None
        if not ornament
        else {
            "tag": t(ORNAMENT_TAGS[ornament]),
            "name": t(ORNAMENT_NAMES[ornament]),
            "effect": t(ORNAMENT_EFFECTS[ornament]),
        },
    }


def _step(step: TurnStep) -> JSON:
    return {
        "path": step.path,
        "kind": step.kind,
        "prompt": step.prompt,
        "options": [_choice(option) for option in step.options],
    }


def _choice(choice: Choice) -> JSON:
    return {key: value for key, value in dataclasses.asdict(choice).items() if value is not None}


WIDE_TYPE: Final = {
    "location": 24,
    "bonus": 14,
    "tag": 13,
    "badge": 18,
    "effect": 13,
    "name": 28,
    "role": 17,
    "points": 52,
    "label": 14,
    "count": 24,
    "headline": 26,
    "line": 17,
}
"""The font sizes of the image's board, by role (the page draws it at the image's size)."""
COMPACT_TYPE: Final = {
    "location": 19,
    "bonus": 13,
    "tag": 13,
    "badge": 16,
    "effect": 13,
    "name": 17,
    "role": 13,
    "points": 30,
    "label": 13,
    "count": 18,
    "headline": 16,
    "line": 14,
}
"""The font sizes of the compact boards: closer to one another, so that the smallest can be
read where the board is drawn small."""


@dataclass(frozen=True, slots=True)
class Look:
    """The sizes of one board's parts (a compact board's are smaller than the image's)."""

    stone: tuple[int, int, int]
    """A column's stone: width, face, step."""
    small: tuple[int, int, int]
    """A workshop's or the quarry's stone."""
    card_stone: tuple[int, int, int]
    tag: tuple[int, int]
    plaque: tuple[int, int]
    badge: tuple[int, int]
    effect: int
    gap: int
    pad: int


COMPACT = Look(
    stone=(58, 16, 16),
    small=(38, 13, 14),
    card_stone=(36, 13, 22),
    tag=(92, 24),
    plaque=(96, 44),
    badge=(70, 24),
    effect=17,
    gap=4,
    pad=4,
)
FRONT_ORDER: Final = (5, 6, 4, 0, 3, 1, 2)
"""The locations from left to right as the image shows them (F G E A D B C): a board that
draws them in a row keeps that order."""
MARGIN = 8
CARD_HEIGHT = 112
"""A compact card's height."""


def geometries(position: Position) -> JSON:
    """The boards the page may draw, by name, each with where it draws each part: ``wide``,
    the image's (for a large frame); ``row``, the seven columns in a row and the cards under
    them (for a short, wide frame); ``block``, the columns in two rows and the cards beside
    them (for a frame a little wider than tall); ``tall``, the columns in two rows over the
    cards (for a phone held upright). The page takes the one its frame shows largest."""
    capacities = position.capacities
    return {
        "wide": _wide(capacities),
        "row": _row(capacities),
        "block": _block(capacities),
        "tall": _tall(capacities),
    }


def _wide(capacities: tuple[int, ...]) -> JSON:
    """The image's board: :func:`rendering.layout.board_layout`, without its title's band."""
    layout = board_layout(capacities)
    top = min(site.tag[1] for site in layout.sites) - MARGIN
    bottom = max(card.box[3] for card in layout.cards) + MARGIN
    cards = []
    for card in layout.cards:
        x0, y0, x1, y1 = card.box
        cards.append(
            {
                "box": card.box,
                "stone": card.stone,
                "workshop": card.workshop,
                "name": [x0 + 90, y0 + 46, x1 - 100 - (x0 + 90)],
                "role": [x0 + 90, y0 + 74, x1 - 100 - (x0 + 90)],
                "points": [x1 - 20, y0 + 72],
                "label": [x0 + 20, y1 - 26, card.workshop[0][0] - 8 - (x0 + 20)],
            }
        )
    quarry = layout.quarry
    piles = [pile[0] for pile in quarry.piles]
    q0, q1, q2, _ = quarry.box
    return {
        "name": "wide",
        "view": [0, top, layout.width, bottom],
        "type": WIDE_TYPE,
        "stone": COLUMN_STONE,
        "small": SMALL_STONE,
        "platform": layout.platform,
        "floors": [],
        "status": layout.status,
        "headline": True,
        "sites": [
            {
                "stones": site.stones,
                "column": site.column,
                "tag": site.tag,
                "plaque": site.plaque,
                "badge": site.badge,
                "effect": (site.plaque[0] + 4, site.effect[1], site.plaque[2] - 4, site.effect[3]),
            }
            for site in layout.sites
        ],
        "cards": cards,
        "quarry": {
            "box": quarry.box,
            "piles": piles,
            "label": [(q0 + q2) // 2, q1 + 26, q2 - q0 - 16],
            "counts": [[(box[0] + box[2]) // 2, box[3] + 36] for box in piles],
            "targets": [[box[0] - 6, box[1] - 30, box[2] + 6, box[3] + 44] for box in piles],
        },
    }


def _above(capacity: int, look: Look) -> int:
    """How far a compact site reaches above its base (the centre of its first stone's bottom
    face): the column of ``capacity`` stones and the ornament's tag."""
    _, face, step = look.stone
    return capacity * step + face // 2 + look.pad + look.gap + look.tag[1]


def _below(look: Look) -> int:
    """How far a compact site reaches below its base: plaque, badge and effect."""
    return (
        look.stone[1] // 2
        + look.pad
        + look.gap
        + look.plaque[1]
        + 2
        + look.badge[1]
        + 2
        + (look.effect)
    )


def _site(x: int, base: int, capacity: int, look: Look) -> JSON:
    """A compact site centred on ``x``, its first stone's bottom face at ``base``."""
    stones = [stone_box(x, base, index, look.stone) for index in range(capacity)]
    column = (
        stones[0][0] - look.pad,
        stones[-1][1] - look.pad,
        stones[0][2] + look.pad,
        stones[0][3] + look.pad,
    )
    tag_width, tag_height = look.tag
    tag = (
        x - tag_width // 2,
        column[1] - look.gap - tag_height,
        x + tag_width // 2,
        column[1] - look.gap,
    )
    plaque_width, plaque_height = look.plaque
    plaque = (
        x - plaque_width // 2,
        column[3] + look.gap,
        x + plaque_width // 2,
        column[3] + look.gap + plaque_height,
    )
    badge_width, badge_height = look.badge
    badge = (
        x - badge_width // 2,
        plaque[3] + 2,
        x + badge_width // 2,
        plaque[3] + 2 + badge_height,
    )
    effect = (plaque[0] + 4, badge[3] + 2, plaque[2] - 4, badge[3] + 2 + look.effect)
    return {
        "stones": stones,
        "column": column,
        "tag": tag,
        "plaque": plaque,
        "badge": badge,
        "effect": effect,
    }


def _card(box: tuple[int, int, int, int], look: Look) -> JSON:
    """A compact player's card: the stone of their colour, their name over their colour and
    points, and the workshop's label over its three slots."""
    x0, y0, x1, y1 = box
    width, face, _ = look.small
    spacing = width + 6
    slots = [
        stone_box(x0 + 12 + width // 2 + slot * spacing, y1 - 8 - face // 2, 0, look.small)
        for slot in range(3)
    ]
    stone = stone_box(x0 + 12 + look.card_stone[0] // 2, y0 + 40, 0, look.card_stone)
    text = x0 + 24 + look.card_stone[0]
    return {
        "box": box,
        "stone": stone,
        "workshop": slots,
        "name": [text, y0 + 25, x1 - 12 - text],
        "role": [text, y0 + 46, x1 - 64 - text],
        "points": [x1 - 12, y0 + 48],
        "label": [x0 + 12, y0 + 67, x1 - x0 - 24],
    }


def _quarry(box: tuple[int, int, int, int], look: Look, *, upright: bool) -> JSON:
    """A compact quarry: its label on top, the three piles side by side with their counts
    under them, or (``upright``) one above the other with their counts beside them."""
    x0, y0, x1, y1 = box
    width = look.small[0]
    if upright:
        space = (y1 - y0 - 34) // 3
        bottoms = [y0 + 34 + space * colour + space // 2 + 10 for colour in range(3)]
        piles = [stone_box(x0 + 12 + width // 2, bottom, 0, look.small) for bottom in bottoms]
        counts = [[(x1 + piles[0][2]) // 2, bottom + 2] for bottom in bottoms]
        targets = [[x0 + 4, pile[1] - 6, x1 - 4, pile[3] + 6] for pile in piles]
    else:
        spacing = (x1 - x0) // 3
        centres = [x0 + spacing * colour + spacing // 2 for colour in range(3)]
        piles = [stone_box(centre, y0 + 58, 0, look.small) for centre in centres]
        counts = [[centre, y1 - 10] for centre in centres]
        targets = [[pile[0] - 6, pile[1] - 6, pile[2] + 6, y1 - 4] for pile in piles]
    return {
        "box": box,
        "piles": piles,
        "label": [(x0 + x1) // 2, y0 + 22, x1 - x0 - 12],
        "counts": counts,
        "targets": targets,
    }


def _compact(
    name: str,
    size: tuple[int, int],
    sites: dict[int, JSON],
    floors: list[list[int]],
    cards: tuple[JSON, JSON],
    quarry: JSON,
    status: list[int] | None,
) -> JSON:
    width, height = size
    return {
        "name": name,
        "view": [0, 0, width, height],
        "type": COMPACT_TYPE,
        "stone": COMPACT.stone,
        "small": COMPACT.small,
        "platform": None,
        "floors": floors,
        "status": status,
        "headline": False,
        "sites": [sites[location] for location in range(len(sites))],
        "cards": list(cards),
        "quarry": quarry,
    }


def _row(capacities: tuple[int, ...]) -> JSON:
    """The columns in one row (the image's order from left to right), the two cards and the
    quarry under them."""
    look, slot = COMPACT, COMPACT.plaque[0] + 4
    width = 2 * MARGIN + slot * len(FRONT_ORDER)
    sites, floors, bottoms = _rows(capacities, (FRONT_ORDER,), MARGIN, MARGIN, slot, look)
    top, card_width = bottoms[0] + 8, 262
    white = (MARGIN, top, MARGIN + card_width, top + CARD_HEIGHT)
    black = (width - MARGIN - card_width, top, width - MARGIN, top + CARD_HEIGHT)
    quarry = (white[2] + 8, top, black[0] - 8, top + CARD_HEIGHT)
    return _compact(
        "row",
        (width, top + CARD_HEIGHT + MARGIN),
        sites,
        floors,
        (_card(white, look), _card(black, look)),
        _quarry(quarry, look, upright=False),
        None,
    )


def _rows(
    capacities: tuple[int, ...],
    rows: tuple[tuple[int, ...], ...],
    left: int,
    top: int,
    slot: int,
    look: Look,
) -> tuple[dict[int, JSON], list[list[int]], list[int]]:
    """Sites in ``rows`` of locations from ``top`` down, each row centred on the widest (its
    slots ``slot`` wide, from ``left``): the sites by location, a floor under each row, and
    each row's bottom."""
    widest = max(len(row) for row in rows)
    sites: dict[int, JSON] = {}
    floors, bottoms = [], []
    for row in rows:
        base = top + max(_above(capacities[location], look) for location in row)
        start = left + slot * (widest - len(row)) // 2
        for place, location in enumerate(row):
            x = start + slot * place + slot // 2
            sites[location] = _site(x, base, capacities[location], look)
        bottom = base + _below(look)
        plaques = [sites[location]["plaque"] for location in row]
        floors.append(
            [
                min(p[0] for p in plaques) - 10,
                base - 30,
                max(p[2] for p in plaques) + 10,
                bottom - look.badge[1] - look.effect,
            ]
        )
        bottoms.append(bottom)
        top = bottom + 6
    return sites, floors, bottoms


BACK_ROW, FRONT_ROW = (6, 0, 1), (5, 4, 3, 2)
"""Two rows of locations: the back of the temple (G A B) over its front (F E D C)."""


def _tall(capacities: tuple[int, ...]) -> JSON:
    """For a frame taller than wide: the back columns over the front ones, the quarry beside
    the back ones, the two cards under them all, and the last turn above."""
    look, slot = COMPACT, COMPACT.plaque[0] + 10
    width = 2 * MARGIN + 4 * slot
    status = [MARGIN, MARGIN, width - MARGIN, MARGIN + 44]
    top = status[3] + 4
    sites, floors, bottoms = _rows(capacities, (BACK_ROW,), MARGIN, top, slot, look)
    quarry = _quarry((MARGIN + 3 * slot + 4, top, width - MARGIN, bottoms[0]), look, upright=True)
    front, front_floors, bottoms = _rows(
        capacities, (FRONT_ROW,), MARGIN, bottoms[0] + 6, slot, look
    )
    sites |= front
    top = bottoms[0] + 8
    card_width = (width - 2 * MARGIN - 8) // 2
    white = (MARGIN, top, MARGIN + card_width, top + CARD_HEIGHT)
    black = (width - MARGIN - card_width, top, width - MARGIN, top + CARD_HEIGHT)
    return _compact(
        "tall",
        (width, top + CARD_HEIGHT + MARGIN),
        sites,
        floors + front_floors,
        (_card(white, look), _card(black, look)),
        quarry,
        status,
    )


def _block(capacities: tuple[int, ...]) -> JSON:
    """For a frame a little wider than tall: the back columns centred over the front ones,
    and beside them the cards, the quarry between them, and the last turn under them."""
    look, slot = COMPACT, COMPACT.plaque[0] + 10
    sites, floors, bottoms = _rows(capacities, (BACK_ROW, FRONT_ROW), MARGIN, MARGIN, slot, look)
    side, side_width = MARGIN + 4 * slot + 10, 236
    width = side + side_width + MARGIN
    boxes = [
        (
            side,
            MARGIN + index * (CARD_HEIGHT + 8),
            side + side_width,
            MARGIN + index * (CARD_HEIGHT + 8) + CARD_HEIGHT,
        )
        for index in range(3)
    ]
    below = boxes[-1][3] + 8
    height = max(bottoms[-1], below + 60) + MARGIN
    status = [side, below, side + side_width, height - MARGIN]
    return _compact(
        "block",
        (width, height),
        sites,
        floors,
        (_card(boxes[0], look), _card(boxes[2], look)),
        _quarry(boxes[1], look, upright=False),
        status,
    )


def palette() -> JSON:
    """The image's colours, as CSS colours."""

    def css(rgb: tuple[int, ...]) -> str:
        return "#" + "".join(f"{channel:02x}" for channel in rgb)

    return {
        "stones": [
            {"side": css(look.side), "top": css(look.top), "outline": css(look.outline)}
            for look in style.STONES
        ],
        **{
            name.lower(): css(getattr(style, name))
            for name in (
                "BACKGROUND",
                "PANEL",
                "PANEL_EDGE",
                "FLOOR",
                "FLOOR_LINE",
                "SHAFT",
                "SHAFT_EDGE",
                "MARBLE",
                "INK",
                "INK_SOFT",
                "TEXT",
                "TEXT_SOFT",
                "TERRACOTTA",
                "TERRACOTTA_EDGE",
                "CREAM",
                "GOLD",
                "HIGHLIGHT",
                "TIE",
                "TIE_EDGE",
            )
        },
        "letters": COLOUR_LETTERS,
    }
