"""The step-by-step turn builder behind the buttons."""

from __future__ import annotations

import pytest

from engine import IllegalTurnError, Position
from engine.builder import SKIP, TurnBuilder

START = Position.parse("-/-/-/-/-/-/- ww bb w -")


def walk(position: Position, *tokens: str) -> TurnBuilder:
    """The builder after choosing ``tokens`` in order."""
    builder = TurnBuilder(position)
    for token in tokens:
        builder = builder.choose(token)
    return builder


def test_take_steps_offer_the_whole_domain_with_impossible_options_disabled():
    """Take: colour, then count; counts over the limit are shown but disabled."""
    colour = walk(START, "T").step()
    assert colour is not None and colour.kind == "take-colour"
    assert colour.enabled_tokens() == ["w", "b", "g"]
    count = walk(START, "T", "w").step()
    assert count is not None and count.kind == "take-count"
    assert [(o.token, o.enabled) for o in count.options] == [
        ("1", True),
        ("2", False),
        ("3", False),
    ]
    assert str(walk(START, "T", "w", "1").turn) == "+w1"


def test_place_steps_then_bonus_with_skip():
    """Place: stone, location, then the bonus with a skip option first."""
    stone = walk(START, "P").step()
    assert stone is not None and stone.enabled_tokens() == ["w"]
    bonus = walk(START, "P", "w", "F").step()
    assert bonus is not None and bonus.kind == "extra-stone"
    assert bonus.options[0].token == SKIP and bonus.enabled_tokens() == [SKIP, "w"]
    target = walk(START, "P", "w", "F", "w").step()
    assert target is not None and target.kind == "extra-location"
    assert target.enabled_tokens() == list("ABCDEG")
    assert str(walk(START, "P", "w", "F", "w", "D").turn) == "w@F/w@D"
    assert str(walk(START, "P", "w", "F", SKIP).turn) == "w@F"


def test_placement_without_bonus_options_completes_at_once():
    """When a placement offers no bonus, choosing the location completes the turn."""
    builder = walk(START, "P", "w", "A")
    assert builder.step() is None and str(builder.turn) == "w@A"


def test_mover_steps_source_then_destination():
    """Movers: the source first, then the destination."""
    position = Position.parse("w/-/b/wbgbw/-/-/- w - w -")
    source = walk(position, "P", "w", "B").step()
    assert source is not None and source.kind == "move-source"
    assert source.enabled_tokens() == [SKIP, "A", "D"]
    target = walk(position, "P", "w", "B", "D").step()
    assert target is not None and target.kind == "move-target"
    assert target.enabled_tokens() == list("ACEFG")
    assert str(walk(position, "P", "w", "B", "D", "A").turn) == "w@B/D>A"


def test_grayquarry_asks_which_of_the_two_first():
    """With grayquarry the bonus step asks: the location's own bonus or the gray stone."""
    position = Position.parse("-/-/-/-/-/-/- w - w D=grayquarry")
    choice = walk(position, "P", "w", "D").step()
    assert choice is not None and choice.kind == "bonus-choice"
    assert choice.enabled_tokens() == [SKIP, "L", "q"]
    own = walk(position, "P", "w", "D", "L").step()
    assert own is not None and own.kind == "draw" and SKIP not in own.enabled_tokens()
    assert str(walk(position, "P", "w", "D", "L", "b").turn) == "w@D/+b"
    assert walk(position, "P", "w", "D", "q").step().kind == "quarry-target"  # type: ignore[union-attr]
    assert str(walk(position, "P", "w", "D", "q", "A").turn) == "w@D/q>A"


def test_back_undoes_one_choice():
    """Back removes the last choice; at the start it stays at the start."""
    builder = walk(START, "P", "w", "D")
    assert builder.back().path == ("P", "w")
    assert TurnBuilder(START).back().path == ()


@pytest.mark.parametrize(
    "path",
    [("X",), ("P", "b"), ("T", "w", "2"), ("P", "w", "A", "B"), ("P", "w", "D", "+")],
)
def test_unavailable_choices_are_refused(path):
    """A forged or stale path raises an error naming the refused choice."""
    with pytest.raises(IllegalTurnError, match="is not available"):
        TurnBuilder(START, path)


def test_finished_game_offers_nothing():
    """A finished game has no steps and no turn."""
    final = Position.parse("wbwbw/bwbwb/ggggg/wbwbb/ggggg/wbwbw/bwbwb - - w -")
    builder = TurnBuilder(final)
    assert builder.step() is None and builder.turn is None
