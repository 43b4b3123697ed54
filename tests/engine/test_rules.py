"""Hand-built positions for each action, bonus and ornament, and the edge cases of RULES.md."""

from __future__ import annotations

import pytest

from engine import IllegalTurnError, InvalidPositionError, Position
from tests.engine.helpers import legal, starting_with

# A temple with only D (4 of 5) and F (4 of 5) open: 11 white, 12 black, 10 gray stones.
TWO_OPEN = "wbwbw/bwbwb/ggggg/wbwb/ggggg/wbwb/bwbwb"
# Only D open (4 of 5): 12 white, 12 black, 10 gray.
ONE_OPEN = "wbwbw/bwbwb/ggggg/wbwb/ggggg/wbwbw/bwbwb"


def test_takes_respect_colour_limits():
    """Own colour up to 3, gray up to 2, the rival's colour 1."""
    assert starting_with("-/-/-/-/-/-/- - bb w -", "+") == {
        "+w1",
        "+w2",
        "+w3",
        "+g1",
        "+g2",
        "+b1",
    }
    assert starting_with("-/-/-/-/-/-/- ww - b -", "+") == {
        "+b1",
        "+b2",
        "+b3",
        "+g1",
        "+g2",
        "+w1",
    }


def test_takes_respect_free_slots_and_quarry():
    """A take never overfills the workshop nor takes more than the quarry has."""
    assert starting_with("-/-/-/-/-/-/- wg bb w -", "+") == {"+w1", "+g1", "+b1"}
    assert starting_with("-/-/-/-/-/-/- www bb w -", "+") == set()
    # 9 gray stones in the temple: one is left in the quarry.
    assert starting_with("ggggg/gggg/-/-/-/-/- - - w -", "+g") == {"+g1"}


def test_place_needs_the_stone_and_a_valid_location():
    """A stone can be placed only from the workshop and only on a column below capacity."""
    turns = legal("wwbbg/-/-/-/-/-/- b - w -")
    assert "b@B" in turns
    assert not any(turn.startswith(("w@", "g@", "b@A")) for turn in turns)


def test_rival_stone_never_triggers_a_bonus():
    """Placing the rival's colour (or gray without graytrigger) offers no bonus."""
    assert starting_with("b/-/-/-/-/-/- bg - w -", "b@C") == {"b@C"}
    assert starting_with("b/-/-/-/-/-/- bg - w -", "g@C") == {"g@C"}


def test_c_returns_a_top_stone_of_another_nonempty_column():
    """C removes the top of any other non-empty column, a full one included."""
    assert starting_with("b/-/-/g/-/-/- w - w -", "w@C") == {"w@C", "w@C/xA", "w@C/xD"}
    position = Position.parse("bbbbb/-/-/-/-/-/- w - w -")
    after = position.apply("w@C/xA")
    assert str(after) == "bbbb/-/w/-/-/-/- - - b -"
    assert after.quarry == (15 - 1, 15 - 4, 10)


def test_d_draws_a_colour_the_quarry_still_has():
    """D offers each colour left in the quarry; the drawn stone lands in the workshop."""
    all_black_used = "bbbbb/bbbbb/bbbbb/-/-/-/- w - w -"
    assert starting_with(all_black_used, "w@D") == {"w@D", "w@D/+w", "w@D/+g"}
    after = Position.parse(all_black_used).apply("w@D/+g")
    assert str(after) == "bbbbb/bbbbb/bbbbb/w/-/-/- g - b -"


def test_e_takes_a_colour_from_the_rivals_workshop():
    """E offers each colour in the rival's workshop, and nothing when it is empty."""
    assert starting_with("-/-/-/-/-/-/- w bg w -", "w@E") == {"w@E", "w@E/<b", "w@E/<g"}
    assert starting_with("-/-/-/-/-/-/- w - w -", "w@E") == {"w@E"}
    after = Position.parse("-/-/-/-/-/-/- w bg w -").apply("w@E/<g")
    assert str(after) == "-/-/-/-/w/-/- g b b -"


def test_f_places_a_second_stone_from_the_workshop_elsewhere():
    """F places a stone left in the workshop on another valid location; it does not chain."""
    assert starting_with("-/-/-/wwbbg/-/-/- wg - w -", "w@F") == {
        "w@F",
        "w@F/g@A",
        "w@F/g@B",
        "w@F/g@C",
        "w@F/g@E",
        "w@F/g@G",
    }
    assert "w@F/w@A" in legal("-/-/-/-/-/-/- ww - w -")
    after = Position.parse("-/-/-/-/-/-/- ww bb w -").apply("w@F/w@D")
    assert str(after) == "-/-/-/w/-/w/- - bb b -"  # no D bonus followed


def test_movers_move_a_top_stone_of_their_colour_to_a_third_valid_location():
    """B moves a white top stone from another column (full or not) onto a third valid one."""
    position = "w/-/b/wbgbw/-/-/- w - w -"
    assert starting_with(position, "w@B") == {
        "w@B",
        *(f"w@B/A>{target}" for target in "CEFG"),
        *(f"w@B/D>{target}" for target in "ACEFG"),
    }
    assert str(Position.parse(position).apply("w@B/D>A")) == "ww/w/b/wbgb/-/-/- - - b -"


def test_each_mover_has_its_own_colour():
    """A moves gray tops, B white tops, G black tops."""
    tops = "-/-/w/b/g/-/- w - w -"
    assert {turn.split("/")[1][0] for turn in starting_with(tops, "w@A/")} == {"E"}
    assert {turn.split("/")[1][0] for turn in starting_with(tops, "w@B/")} == {"C"}
    assert {turn.split("/")[1][0] for turn in starting_with(tops, "w@G/")} == {"D"}


def test_movers_need_a_third_valid_location():
    """With only the activated location and the source valid, a mover has nothing to do."""
    position = "w/-/bbbbb/bbbbb/ggggg/bbbbb/ggggg w - w -"
    assert starting_with(position, "w@B") == {"w@B"}
    with pytest.raises(IllegalTurnError, match="location C is full"):
        Position.parse(position).apply("w@B/A>C")


def test_no_bonus_when_the_main_placement_ends_the_game():
    """Filling the temple's last place ends the game at once: no bonus follows."""
    position = Position.parse(f"{ONE_OPEN} w - w -")
    assert legal(position) == {"w@D", "+w1", "+w2", "+b1"}
    with pytest.raises(IllegalTurnError, match="last place"):
        position.apply("w@D/+b")
    final = position.apply("w@D")
    assert final.is_over()
    assert final.turn == 1  # the side to move alternates after the last turn too
    assert final.legal_turns() == []


def test_a_bonus_placement_can_end_the_game():
    """The main placement leaves a place open; F's extra stone fills it and ends the game."""
    position = Position.parse(f"{TWO_OPEN} ww - w -")
    assert {"w@F/w@D", "w@D/+w", "w@D/+b"} <= legal(position)
    assert position.apply("w@F/w@D").is_over()


def test_graytrigger_lets_gray_trigger_its_location_only():
    """A gray stone on the graytrigger location offers its bonus; elsewhere it does not."""
    position = "b/-/-/-/-/-/- g - w C=graytrigger"
    assert starting_with(position, "g@C") == {"g@C", "g@C/xA"}
    assert starting_with(position, "g@D") == {"g@D"}
    assert starting_with("b/-/-/-/-/-/- bw - w C=graytrigger", "w@C") == {"w@C", "w@C/xA"}


def test_grayquarry_offers_a_gray_quarry_stone_instead():
    """The grayquarry location offers its own bonus or a gray quarry stone elsewhere."""
    assert starting_with("-/-/-/-/-/-/- w - w D=grayquarry", "w@D") == {
        "w@D",
        "w@D/+w",
        "w@D/+b",
        "w@D/+g",
        *(f"w@D/q>{target}" for target in "ABCEFG"),
    }
    no_gray_left = "ggggg/ggggg/-/-/-/-/- w - w D=grayquarry"
    assert starting_with(no_gray_left, "w@D") == {"w@D", "w@D/+w", "w@D/+b"}
    after = Position.parse("-/-/-/-/-/-/- w - w D=grayquarry").apply("w@D/q>G")
    assert str(after) == "-/-/-/w/-/-/g - - b D=grayquarry"
    with pytest.raises(IllegalTurnError, match="gray-quarry ornament"):
        Position.parse("-/-/-/-/-/-/- w - w -").apply("w@D/q>G")


def test_tall_raises_capacity_and_delays_the_end():
    """A tall column holds 7 stones, and the game ends only when it does."""
    columns = "wwwww/bbbbb/ggggg/bbbbb/ggggg/bbbbb/wwwww"
    assert Position.parse(f"{columns} - - w -").is_over()
    tall = Position.parse(f"{columns} w - w A=tall")
    assert not tall.is_over()
    six = tall.apply("w@A")
    assert six.columns[0] == "wwwwww" and not six.is_over()
    seven = Position.parse("wwwwww/bbbbb/ggggg/bbbbb/ggggg/bbbbb/wwwww w - w A=tall").apply("w@A")
    assert seven.is_over()
    with pytest.raises(InvalidPositionError, match="holds 8 stones but its capacity is 7"):
        Position.parse("wwwwwwww/-/-/-/-/-/- - - w A=tall")


def test_illegal_turns_say_why():
    """Applying an illegal turn raises an error that names the reason."""
    start = Position.parse("-/-/-/-/-/-/- ww bb w -")
    cases = {
        "+b2": "at most 1 black stone of your rival's colour",
        "+w3": "1 free slot",
        "b@A": "no black stone in your workshop",
        "w@C/xA": "location A is empty",
        "w@D/xA": "δ D offers draw stone, not remove top",
        "w@E/<w": "rival's workshop has no white",
        "w@F/w@F": "another location than F",
        "w@B/C>D": "location C is empty",
    }
    for turn, reason in cases.items():
        with pytest.raises(IllegalTurnError, match=reason):
            start.apply(turn)
    with pytest.raises(IllegalTurnError, match="full"):
        Position.parse("wwwww/-/-/-/-/-/- ww bb w -").apply("w@A")
    with pytest.raises(IllegalTurnError, match="does not trigger"):
        Position.parse("-/-/-/-/-/-/- wb - w -").apply("b@D/+g")
    with pytest.raises(IllegalTurnError, match="game is over"):
        Position.parse(f"{ONE_OPEN} w - w -").apply("w@D").apply("+w1")
