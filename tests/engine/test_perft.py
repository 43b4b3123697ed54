"""perft: pinned counts, checked against an independent reference generator."""

from __future__ import annotations

import pytest

from engine import Position
from engine.play import perft
from engine.turns import well_formed_turns

START = "-/-/-/-/-/-/- ww bb w -"

# Leaf counts at depths 1, 2, 3 (...). The mid-game positions come from random play; together
# their turns use every bonus kind, every ornament and a gray stone triggering graytrigger.
PERFT = {
    START: [20, 521, 11117, 258622],
    "wbbb/bbw/bg/wb/b/wwb/bb wb bbg b A=grayloss,B=minority,E=grayquarry,F=plus3,G=graytrigger": [
        88,
        5523,
        362652,
    ],
    "b/b/wb/b/-/ggg/ww w bg b B=minority,C=grayquarry,E=graygain,F=grayloss,G=graytrigger": [
        88,
        4731,
        168698,
    ],
    "ggw/wgwb/wbbb/wbgg/w/ww/g g bg b A=tall,B=plus3,C=grayquarry,F=grayloss,G=graytrigger": [
        84,
        1770,
        51932,
    ],
    "wbwbw/bwbwb/ggggg/wbwb/ggggg/wbwb/bwbwb ww - w -": [7, 22, 90],
    "wwwwww/bbbbb/ggggg/bbbb/ggggg/bbbbb/wwww w b w A=tall": [15, 107, 433, 976],
}

_ALL_TURNS = well_formed_turns()


def reference_perft(position: Position, depth: int) -> int:
    """perft by brute force: try every well-formed turn, keep those ``why_illegal`` accepts.

    This shares no code with ``legal_turns``, so agreement checks move generation.
    """
    if depth == 0:
        return 1
    return sum(
        reference_perft(position.apply(turn), depth - 1)
        for turn in _ALL_TURNS
        if position.why_illegal(turn) is None
    )


def test_perft_start_depth_one_is_twenty():
    """perft(start, 1) = 20, counted by hand.

    White has 2 white stones and 1 free slot; the quarry has 13 w, 13 b, 10 g.
    Takes: one stone of any colour (+w1, +b1, +g1) = 3; more would overfill the workshop.
    Placements of a white stone on each of the 7 empty locations = 7, plus the bonuses a white
    stone triggers on an empty temple: A, B, G move top stones (none exist) = 0; C removes a top
    stone (none) = 0; D draws any of 3 colours = 3; E takes Black's black stone = 1; F places
    the other white stone on one of the 6 other locations = 6. Total 3 + 7 + 3 + 1 + 6 = 20.
    """
    assert perft(Position.parse(START), 1) == 20


@pytest.mark.parametrize(("text", "counts"), PERFT.items())
def test_perft_counts(text, counts):
    """The pinned counts: a change to move generation must be deliberate."""
    position = Position.parse(text)
    assert [perft(position, depth) for depth in range(1, len(counts) + 1)] == counts


@pytest.mark.parametrize("text", PERFT)
def test_perft_matches_the_reference_generator(text):
    """Bulk-counted perft equals brute force over every well-formed turn at depth 2."""
    position = Position.parse(text)
    assert perft(position, 2) == reference_perft(position, 2)


def test_perft_start_depth_three_matches_the_reference():
    """Deeper check from the start: 11,117 leaves both ways."""
    assert reference_perft(Position.parse(START), 3) == perft(Position.parse(START), 3) == 11117


def test_perft_edge_cases():
    """Depth 0 is 1; a finished position has no children; a negative depth is refused."""
    final = Position.parse("wbwbw/bwbwb/ggggg/wbwbb/ggggg/wbwbw/bwbwb - - w -")
    assert final.is_over()
    assert perft(final, 0) == 1
    assert perft(final, 3) == 0
    with pytest.raises(ValueError, match="depth"):
        perft(final, -1)
