"""Where everything goes: pure geometry of the board image, computed once per capacity layout.

The temple is drawn in a slight bird's-eye view: the seven locations stand on an ellipse (a
circle seen from the front and above), A at the back, clockwise as on the printed board. Each
location is a vertical *site*: the ornament tag, the column of stones (drums seen from the side),
the plaque with its symbol and bonus, and the badge with the column's leader and points. Below the
temple sit White's card, the quarry and Black's card.

Boxes are ``(left, top, right, bottom)`` in pixels, right and bottom exclusive. Tests read the
geometry from here, never from literals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

Box = tuple[int, int, int, int]
Point = tuple[int, int]

WIDTH = 1000
HEIGHT = 740

RING_CENTRE: Point = (500, 316)
RING_RADII = (446, 100)
"""Half-axes of the ellipse the column bases stand on."""
PLATFORM_RADII = (482, 150)

STONE_WIDTH = 64
STONE_FACE = 22
"""Height of a stone's top face (an ellipse) as seen from above."""
STONE_STEP = 22
"""Height of a stone's side: how much a column grows per stone."""
COLUMN_STONE = (STONE_WIDTH, STONE_FACE, STONE_STEP)
"""Width, face height and step of the stones in the temple's columns."""
SHAFT_PAD = 4
"""How far the pale shaft behind a column reaches beyond its stones."""

TAG_SIZE = (92, 34)
PLAQUE_SIZE = (96, 58)
BADGE_SIZE = (74, 30)
EFFECT_HEIGHT = 18
GAP = 6

CARD_TOP = 540
CARD_HEIGHT = 184
CARD_WIDTH = 350
MARGIN = 16
SMALL_STONE = (48, 16, 18)
"""Width, face height and step of the stones drawn in workshops and the quarry."""
PILE_HEIGHT = 3
"""Stones drawn in each of the quarry's piles (while it has that many)."""
CARD_STONE = (56, 20, 32)
"""The large stone on a player's card that shows their colour."""


@dataclass(frozen=True, slots=True)
class Site:
    """The geometry of one location."""

    location: int
    base: Point
    """Centre of the bottom face of the column's first stone."""
    stones: tuple[Box, ...]
    """The box of each stone of the column (bottom first), up to the capacity."""
    centres: tuple[Point, ...]
    """The visible centre of each stone: its colour shows there."""
    column: Box
    """The column's shaft: the box holding its stones up to the capacity, with a margin."""
    tag: Box
    """The ornament tag, just above the column's capacity."""
    plaque: Box
    """The symbol, letter and bonus of the location."""
    badge: Box
    """The column's leader and the points it would give now."""
    effect: Box
    """Under the badge: what the ornament changes in those points, if anything."""


@dataclass(frozen=True, slots=True)
class Card:
    """A player's card: name, colour, total and the workshop."""

    box: Box
    stone: Box
    """The large stone showing the player's colour."""
    name: Box
    role: Box
    """The line under the name: colour and whose turn it is."""
    total: Box
    workshop: tuple[Box, ...]
    """The three workshop slots, as stone boxes."""
    workshop_centres: tuple[Point, ...]


@dataclass(frozen=True, slots=True)
class Quarry:
    """The quarry: one pile per colour (white, black, gray) with its count."""

    box: Box
    piles: tuple[tuple[Box, ...], ...]
    """Per colour, the boxes of the pile's stones, bottom first."""
    centres: tuple[Point, ...]
    """Per colour, the visible centre of the pile's bottom stone."""
    counts: tuple[Box, ...]


@dataclass(frozen=True, slots=True)
class Layout:
    """Every element of the image."""

    width: int
    height: int
    sites: tuple[Site, ...]
    cards: tuple[Card, Card]
    """White's card, Black's card."""
    quarry: Quarry
    status: Box
    """The floor in the middle of the temple: whose turn, the last turn or the result."""
    platform: tuple[Point, tuple[int, int]]
    """The centre and half-axes of the temple's round floor."""
    title: Box

    def elements(self) -> dict[str, Box]:
        """The top-level boxes, which must not overlap one another, by name."""
        boxes: dict[str, Box] = {}
        for site in self.sites:
            letter = "ABCDEFG"[site.location]
            for part in ("column", "tag", "plaque", "badge", "effect"):
                boxes[f"{letter}.{part}"] = getattr(site, part)
        boxes["white.card"], boxes["black.card"] = self.cards[0].box, self.cards[1].box
        boxes["quarry"] = self.quarry.box
        boxes["status"] = self.status
        boxes["title"] = self.title
        return boxes


def stone_box(centre_x: int, bottom: int, index: int, size: tuple[int, int, int]) -> Box:
    """The box of the ``index``-th stone of a stack whose first bottom face is at ``bottom``."""
    width, face, step = size
    base = bottom - index * step
    return (centre_x - width // 2, base - step - face // 2, centre_x + width // 2, base + face // 2)


def stone_centre(box: Box, size: tuple[int, int, int]) -> Point:
    """The visible centre of a stone's side in its box (what the next stone up never covers)."""
    _, face, _ = size
    return ((box[0] + box[2]) // 2, box[3] - face // 2)


def _site(location: int, capacity: int) -> Site:
    angle = 2 * math.pi * location / 7
    x = round(RING_CENTRE[0] + RING_RADII[0] * math.sin(angle))
    y = round(RING_CENTRE[1] - RING_RADII[1] * math.cos(angle))
    stones = tuple(stone_box(x, y, index, COLUMN_STONE) for index in range(capacity))
    column = (
        stones[0][0] - SHAFT_PAD,
        stones[-1][1] - SHAFT_PAD,
        stones[0][2] + SHAFT_PAD,
        stones[0][3] + SHAFT_PAD,
    )
    tag_width, tag_height = TAG_SIZE
    tag_bottom = column[1] - GAP
    tag = (x - tag_width // 2, tag_bottom - tag_height, x + tag_width // 2, tag_bottom)
    plaque_width, plaque_height = PLAQUE_SIZE
    plaque_top = column[3] + GAP
    plaque = (
        x - plaque_width // 2,
        plaque_top,
        x + plaque_width // 2,
        plaque_top + plaque_height,
    )
    badge_width, badge_height = BADGE_SIZE
    badge_top = plaque[3] + GAP // 2
    badge = (x - badge_width // 2, badge_top, x + badge_width // 2, badge_top + badge_height)
    effect = (badge[0], badge[3] + 2, badge[2], badge[3] + 2 + EFFECT_HEIGHT)
    return Site(
        location,
        (x, y),
        stones,
        tuple(stone_centre(box, COLUMN_STONE) for box in stones),
        column,
        tag,
        plaque,
        badge,
        effect,
    )


def _card(left: int) -> Card:
    box = (left, CARD_TOP, left + CARD_WIDTH, CARD_TOP + CARD_HEIGHT)
    inner = left + 20
    stone = stone_box(inner + CARD_STONE[0] // 2, CARD_TOP + 62, 0, CARD_STONE)
    name = (inner + 70, CARD_TOP + 14, left + CARD_WIDTH - 96, CARD_TOP + 54)
    role = (inner + 70, CARD_TOP + 54, left + CARD_WIDTH - 96, CARD_TOP + 80)
    total = (left + CARD_WIDTH - 92, CARD_TOP + 12, left + CARD_WIDTH - 14, CARD_TOP + 84)
    bottom = CARD_TOP + CARD_HEIGHT - 22
    spacing = SMALL_STONE[0] + 14
    first = left + CARD_WIDTH - 20 - 3 * spacing + 14
    workshop = tuple(
        stone_box(first + slot * spacing + SMALL_STONE[0] // 2, bottom, 0, SMALL_STONE)
        for slot in range(3)
    )
    return Card(
        box,
        stone,
        name,
        role,
        total,
        workshop,
        tuple(stone_centre(slot, SMALL_STONE) for slot in workshop),
    )


def _quarry() -> Quarry:
    left = MARGIN + CARD_WIDTH + MARGIN
    right = WIDTH - MARGIN - CARD_WIDTH - MARGIN
    box = (left, CARD_TOP, right, CARD_TOP + CARD_HEIGHT)
    spacing = (right - left) // 3
    bottom = CARD_TOP + 112
    piles = tuple(
        tuple(
            stone_box(left + spacing * colour + spacing // 2, bottom, layer, SMALL_STONE)
            for layer in range(PILE_HEIGHT)
        )
        for colour in range(3)
    )
    counts = tuple((pile[0][0] - 8, bottom + 16, pile[0][2] + 8, bottom + 52) for pile in piles)
    centres = tuple(stone_centre(pile[0], SMALL_STONE) for pile in piles)
    return Quarry(box, piles, centres, counts)


@cache
def board_layout(capacities: tuple[int, ...]) -> Layout:
    """The layout for columns of the given capacities (A .. G); cached."""
    sites = tuple(_site(location, capacity) for location, capacity in enumerate(capacities))
    front = max(site.effect[3] for site in sites)
    left_front, right_front = sites[4], sites[3]
    status = (
        left_front.plaque[2] + GAP,
        sites[0].effect[3] + GAP,
        right_front.plaque[0] - GAP,
        front,
    )
    return Layout(
        WIDTH,
        HEIGHT,
        sites,
        (_card(MARGIN), _card(WIDTH - MARGIN - CARD_WIDTH)),
        _quarry(),
        status,
        ((RING_CENTRE[0], RING_CENTRE[1] - 5), PLATFORM_RADII),
        (MARGIN, 8, MARGIN + 290, 42),
    )
