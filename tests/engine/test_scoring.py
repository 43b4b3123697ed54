"""Scoring: the rulebook's examples, every scoring ornament, and both tie-breaks."""

from __future__ import annotations

import pytest

from engine import BLACK, WHITE, Position, vocabulary
from engine.scoring import column_points, score


@pytest.mark.parametrize(
    ("stones", "points"),
    [("wwgbg", 1), ("wbbww", 9), ("gwwgw", -1)],
)
def test_rulebook_examples(stones, points):
    """The rulebook's worked examples: White wins each column with these points."""
    assert column_points(stones) == (WHITE, points)


def test_a_tied_column_scores_for_nobody():
    """As many white as black stones: nobody wins the column, gray stones do not count."""
    assert column_points("wwbbg") == (None, 0)
    assert column_points("") == (None, 0)
    assert column_points("ggg") == (None, 0)


def test_black_scores_the_same_way():
    """Black scores 1 per black stone, 3 per white stone, -2 per gray stone."""
    assert column_points("bbwgb") == (BLACK, 3 + 3 - 2)


@pytest.mark.parametrize(
    ("stones", "ornament", "expected"),
    [
        ("wwb", "plus3", (WHITE, 1 + 1 + 3 + 3)),
        ("wwbgg", "graygain", (WHITE, 1 + 1 + 3 + 2 + 2)),
        ("wwbgg", "grayloss", (WHITE, 1 + 1 + 3 - 3 - 3)),
        ("wwb", "minority", (BLACK, 1 + 3 + 3)),
        ("bb", "minority", (WHITE, 3 + 3)),  # 0 white vs 2 black: White wins
        ("bbg", "minority", (WHITE, 3 + 3 - 2)),
        ("wg", "minority", (BLACK, 3 - 2)),
        ("g", "minority", (None, 0)),  # 0 vs 0 is still a tie
        ("wwb", "tall", (WHITE, 5)),
        ("wwb", "graytrigger", (WHITE, 5)),
        ("wwb", "grayquarry", (WHITE, 5)),
    ],
)
def test_ornaments_change_only_their_column(stones, ornament, expected):
    """Each scoring ornament's effect; the others leave the score alone."""
    assert column_points(stones, ornament) == expected


def test_score_reports_each_column_and_the_ornament_effects():
    """The breakdown names winners, points and what an ornament changed."""
    position = Position.parse(
        "wwgbg/wbbww/gwwgw/wwbbg/bbbww/wbgwb/ggwbb - - w A=grayloss,B=minority,C=plus3,D=graygain"
    )
    result = score(position)
    points = [(column.winner, column.points) for column in result.columns]
    assert points == [
        (WHITE, 1 + 1 - 3 + 3 - 3),
        (BLACK, 2 + 9),
        (WHITE, -1 + 3),
        (None, 0),
        (BLACK, 3 + 6),
        (None, 0),
        (BLACK, 2 + 3 - 4),
    ]
    effects = [column.effect for column in result.columns]
    assert effects[0] == "gray −3 ornament: 2 gray stones score -6 instead of -4"
    assert effects[1] == (
        "minority ornament: fewer stones win the column, so black takes it instead of white"
    )
    assert effects[2] == "+3 ornament: +3 for the column's winner"
    assert effects[3] is None  # graygain on a tied column changes nothing
    assert result.totals == (-1 + 2, 11 + 9 + 1)
    assert result.columns_won == (2, 3)
    assert result.over and result.outcome == result.leader == position.outcome()
    assert result.leader.result == "black" and result.leader.reason == "points"
    assert result.leader.points == result.totals


def test_unfinished_position_is_scored_as_if_it_ended_now():
    """Mid-game, the score is the projection: same rules, ``over`` false, no outcome yet."""
    position = Position.parse("wwb/bb/-/-/-/-/- w b w -")
    result = score(position)
    assert not result.over and result.outcome is None and position.outcome() is None
    assert result.totals == result.leader.points == (5, 2)
    assert result.leader.result == "white"


def test_points_tie_is_broken_by_columns_won():
    """Equal points: the player who won more columns wins."""
    result = score(Position.parse("w/w/bb/-/-/-/- - - w -"))
    assert result.totals == (2, 2)
    assert result.columns_won == (2, 1)
    assert (result.leader.winner, result.leader.reason) == (WHITE, "columns")


def test_full_tie_is_a_draw():
    """Equal points and equal columns won: a draw."""
    result = score(Position.parse("w/b/-/-/-/-/- - - w -"))
    assert (result.leader.winner, result.leader.result, result.leader.reason) == (
        None,
        "draw",
        "tie",
    )


def test_score_dict_has_the_documented_shape():
    """The JSON summary has every column and the documented keys."""
    data = score(Position.parse("wwgbg/wbbww/gwwgw/wwbbg/bbbww/wbgwb/ggwbb - - w -")).to_dict()
    assert set(data["columns"]) == set("ABCDEFG")
    assert data["columns"]["A"]["winner"] == "w" and data["columns"]["A"]["points"] == 1
    assert data["columns"]["D"]["winner"] is None
    assert data["totals"] == {"w": 1 + 9 - 1 + 0, "b": 9 + 1}
    assert data["columns_won"] == {"w": 3, "b": 2}
    assert data["result"] == "black" and data["over"] is True


NEGATIVE = Position.parse("wgwbb/bbbww/wwgwg/wgbwb/bbbww/wwggw/gbbgw - - w -")
"""A finished game White loses −2 to 19: its columns with gray are worth less than nothing."""


def test_a_negative_total_is_written_with_a_minus_sign():
    """Scores as players read them: U+2212 before a negative number, never a hyphen (which
    after the en dash of a pair would read ``19–-2``)."""
    result = score(NEGATIVE)
    assert result.totals == (-2, 19) and result.outcome.winner == BLACK
    points, signed = vocabulary.points, vocabulary.signed
    assert (points(-2), points(19), points(0)) == ("\u22122", "19", "0")
    assert (signed(3), signed(-3), signed(0)) == ("+3", "\u22123", "0")
    assert (points(-1.25, digits=1), points(-0.04, digits=1)) == ("\u22121.2", "0.0")
    assert vocabulary.score_pair(*reversed(result.totals)) == "19–\u22122"
    assert "-" not in vocabulary.score_pair(-7, -12)
