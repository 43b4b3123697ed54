"""The layout: every element inside the image and no two elements overlapping."""

from __future__ import annotations

import itertools

import pytest

from engine import LOCATIONS
from rendering.layout import SMALL_STONE, Box, board_layout, stone_centre

CAPACITY_LAYOUTS = [(5,) * 7] + [
    tuple(7 if location == tall else 5 for location in LOCATIONS) for tall in LOCATIONS
]
"""No tall column, then the tall column at each location."""


def overlap(first: Box, second: Box) -> bool:
    return (
        first[0] < second[2]
        and second[0] < first[2]
        and first[1] < second[3]
        and second[1] < first[3]
    )


def inside(inner: Box, outer: Box) -> bool:
    return (
        outer[0] <= inner[0]
        and outer[1] <= inner[1]
        and inner[2] <= outer[2]
        and inner[3] <= outer[3]
    )


@pytest.mark.parametrize("capacities", CAPACITY_LAYOUTS)
def test_elements_stay_inside_the_image_and_apart(capacities):
    layout = board_layout(capacities)
    canvas = (0, 0, layout.width, layout.height)
    elements = layout.elements()
    assert len(elements) == 7 * 5 + 5
    for name, box in elements.items():
        assert box[0] < box[2] and box[1] < box[3], name
        assert inside(box, canvas), f"{name} {box} leaves the image"
    for (first, a), (second, b) in itertools.combinations(elements.items(), 2):
        assert not overlap(a, b), f"{first} {a} overlaps {second} {b}"


@pytest.mark.parametrize("capacities", CAPACITY_LAYOUTS)
def test_each_column_has_a_place_per_stone_of_its_capacity(capacities):
    layout = board_layout(capacities)
    for site, capacity in zip(layout.sites, capacities, strict=True):
        assert len(site.stones) == len(site.centres) == capacity
        for index, (box, centre) in enumerate(zip(site.stones, site.centres, strict=True)):
            assert inside(box, site.column)
            assert box[0] < centre[0] < box[2] and box[1] < centre[1] < box[3]
            if index:
                below = site.stones[index - 1]
                assert box[3] < below[3], "stones stack upwards"
                assert centre[1] >= below[1], "a stone's centre is not covered by the one above"


def test_the_tall_column_is_two_stones_higher_with_its_tag_above():
    plain = board_layout((5,) * 7).sites[2]
    tall = board_layout((5, 5, 7, 5, 5, 5, 5)).sites[2]
    step = plain.stones[1][1] - plain.stones[2][1]
    assert tall.column[1] == plain.column[1] - 2 * step
    assert tall.tag[3] <= tall.column[1]
    assert (tall.plaque, tall.badge) == (plain.plaque, plain.badge)


def test_locations_go_clockwise_from_the_top():
    sites = board_layout((5,) * 7).sites
    a, b, c, d, e, f, g = (site.base for site in sites)
    assert a[1] == min(site.base[1] for site in sites), "A stands at the back (top)"
    assert g[0] < a[0] < b[0], "B is right of A, G left of it"
    assert c[1] > b[1] and d[1] > c[1], "B, C, D go down the right side"
    assert e[0] < d[0] and f[1] < e[1] and g[1] < f[1], "E, F, G come back up the left side"


def test_workshop_and_quarry_places_are_inside_their_panels():
    layout = board_layout((5,) * 7)
    for card in layout.cards:
        assert len(card.workshop) == 3
        for box, centre in zip(card.workshop, card.workshop_centres, strict=True):
            assert inside(box, card.box)
            assert centre == stone_centre(box, SMALL_STONE)
        for part in (card.stone, card.name, card.role, card.total):
            assert inside(part, card.box)
    quarry = layout.quarry
    for pile, centre, count in zip(quarry.piles, quarry.centres, quarry.counts, strict=True):
        assert inside(count, quarry.box) and centre == stone_centre(pile[0], SMALL_STONE)
        for stone in pile:
            assert inside(stone, quarry.box) and not overlap(stone, count)
