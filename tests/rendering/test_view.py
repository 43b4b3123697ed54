"""Where the last turn shows: the stones it placed, the place a stone left, workshop arrivals."""

from __future__ import annotations

import pytest

from engine import BLACK, WHITE, Position, parse_turn
from rendering.view import BoardView, Marks, last_player, last_turn_marks, workshop_stones

AFTER = "wb/gw/w/w/b/w/g b g b -"
"""White to have just played (Black to move)."""


@pytest.mark.parametrize(
    ("turn", "expected"),
    [
        ("w@C", Marks(WHITE, frozenset({(2, 0)}))),
        ("w@C/xE", Marks(WHITE, frozenset({(2, 0)}), vacated=(4, 1))),
        ("w@B/E>F", Marks(WHITE, frozenset({(1, 1), (5, 0)}), vacated=(4, 1), moved_to=(5, 0))),
        ("w@F/b@A", Marks(WHITE, frozenset({(5, 0), (0, 1)}))),
        ("w@F/q>G", Marks(WHITE, frozenset({(5, 0), (6, 0)}))),
        ("w@D/+b", Marks(WHITE, frozenset({(3, 0)}), workshop=(0, 1, 0))),
        ("w@E/<b", Marks(WHITE, frozenset({(4, 0)}), workshop=(0, 1, 0))),
        ("+b1", Marks(WHITE, workshop=(0, 1, 0))),
    ],
)
def test_marks_of_each_kind_of_turn(turn, expected):
    assert last_turn_marks(Position.parse(AFTER), parse_turn(turn)) == expected


def test_no_turn_no_marks_and_the_mover_is_the_side_not_to_move():
    position = Position.parse(AFTER)
    assert last_turn_marks(position, None) is None
    assert last_player(position) == WHITE
    assert last_player(Position.parse("-/-/-/-/-/-/- ww bb w -")) == BLACK


def test_marks_never_exceed_what_the_position_holds():
    """A turn that does not fit the position (a caller's mistake) marks only what exists."""
    marks = last_turn_marks(Position.parse("-/-/-/-/-/-/- w - b -"), parse_turn("+g3"))
    assert marks == Marks(WHITE, workshop=(0, 0, 0))


def test_workshop_stones_in_slot_order():
    assert workshop_stones((1, 0, 2)) == "wgg"
    assert workshop_stones((0, 0, 0)) == ""


def test_a_view_is_final_when_the_temple_is_full_or_when_told():
    full = Position.parse("wwwww/bbbbb/wwwww/bbbbb/wgggg/bgggg/wbwbb - - w -")
    assert BoardView().is_final(full)
    assert BoardView(final=True).is_final(Position.parse("-/-/-/-/-/-/- ww bb w -"))
    assert not BoardView().is_final(Position.parse("-/-/-/-/-/-/- ww bb w -"))
    assert BoardView("Ana", "Bob").name(WHITE) == "Ana"
