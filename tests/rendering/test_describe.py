"""The text description: the same information as the image, within Discord's limits."""

from __future__ import annotations

import random

import pytest

from engine import COLOUR_NAMES, LOCATION_LETTERS, LOCATION_SYMBOLS, Position, parse_turn
from engine.play import random_game
from engine.scoring import score
from engine.vocabulary import ORNAMENT_NAMES, signed
from rendering import BoardView, describe_board
from rendering.describe import result_line, scoring_lines, turn_lines
from rendering.translator import ENGLISH
from tests.rendering.cases import case
from tests.words.test_phrases import FINAL, assert_minus

ALT_TEXT_LIMIT = 1024
"""Discord's limit for an attachment's description; an embed's description allows 4096."""


def column_lines(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("Columns, stones bottom to top:") + 1
    assert len(lines) == start + 7
    return lines[start:]


def test_every_column_is_named_with_its_stones_in_order(known):
    position, view = known
    lines = column_lines(describe_board(position, view))
    for location, (line, stones) in enumerate(zip(lines, position.columns, strict=True)):
        assert line.startswith(f"{LOCATION_SYMBOLS[location]} {LOCATION_LETTERS[location]}")
        words = ", ".join(COLOUR_NAMES["wbg".index(s)] for s in stones) or "empty"
        assert f": {words} ({len(stones)}/{position.capacities[location]})" in line


def test_leaders_points_and_ornaments_are_given(known):
    position, view = known
    lines = column_lines(describe_board(position, view))
    for line, column in zip(lines, score(position).columns, strict=True):
        if column.winner is not None:
            leader = COLOUR_NAMES[column.winner].capitalize()
            assert f"; {leader} {signed(column.points, plus='')}" in line
        else:
            assert line.endswith("; tied.") == bool(column.stones)
        if column.ornament is not None:
            assert f", {ORNAMENT_NAMES[column.ornament]} ornament:" in line
        assert (column.effect is not None) == ("(ornament " in line)


def test_players_totals_workshops_quarry_and_last_turn():
    position, view = case("full advanced")
    lines = describe_board(position, view).splitlines()
    white, black = score(position).totals
    assert lines[:5] == [
        "Ana to move.",
        "Last turn: Black placed black on α A, moved π E → β B.",
        f"Points if the game ended now: White, Ana: {white}; Black, Bob: {black}.",
        "Workshops: White has white, gray, gray; Black has black, black, gray.",
        "Quarry: 2 white, 2 black, 0 gray.",
    ]


def test_the_end_gives_the_result_and_the_ornaments_effects():
    position, view = case("finished advanced")
    text = describe_board(position, view)
    assert text.splitlines()[:3] == [
        "Ana wins 15–7.",
        "Last turn: White placed white on δ D.",
        "Final points: White, Ana: 15; Black, Bob: 7.",
    ]
    assert "White 7 (ornament +3)." in text and "Black 5 (ornament reversed)." in text


def test_a_note_replaces_the_headline_and_final_scores_as_final():
    position, _ = case("mid basic")
    text = describe_board(position, BoardView("Ana", "Bob", final=True, note=" Bob\nresigned. "))
    assert text.splitlines()[0] == "Bob resigned."
    assert "Final points: " in text and "if the game ended now" not in text


def test_the_result_line_names_the_decider():
    drawn = score(Position.parse("wb/-/-/-/-/-/- - - w -"))
    assert result_line(drawn, ("Ana", "Bob")) == "Draw 0–0"
    on_columns = score(Position.parse("bbb/ww/w/-/-/-/- - - w -"))  # 3 points each, 2–1 columns
    assert on_columns.totals == (3, 3)
    assert result_line(on_columns, ("Ana", "Bob")) == "Ana wins 3–3 on columns 2–1"


@pytest.mark.parametrize(
    ("turn", "words"),
    [
        ("+g2", ["Ana took 2 gray stones"]),
        ("+w1", ["Ana took 1 white stone"]),
        ("w@C/xE", ["Ana placed white on γ C", "removed the top of π E"]),
        ("w@D/+b", ["Ana placed white on δ D", "drew black from the quarry"]),
        ("w@E/<g", ["Ana placed white on π E", "took gray from the rival"]),
        ("w@F/b@D", ["Ana placed white on Σ F", "placed black on δ D"]),
        ("w@B/C>E", ["Ana placed white on β B", "moved γ C → π E"]),
        ("g@A/q>E", ["Ana placed gray on α A", "put quarry gray on π E"]),
    ],
)
def test_each_kind_of_turn_in_words(turn, words):
    assert turn_lines(parse_turn(turn), "Ana") == words


def test_names_and_notes_are_cleaned_and_cut():
    position, view = case("finished advanced")
    text = describe_board(position, BoardView("W" * 200, "\x00Bob\ud800\n🙂", view.last_turn))
    assert "White, " + "W" * 31 + "…: " in text and "W" * 32 not in text
    assert "Black, Bob 🙂: " in text
    text.encode("utf-8")  # no lone surrogate left


def test_finished_games_fit_alt_text_with_the_longest_names_and_note():
    start = "-/-/-/-/-/-/- ww bb w A=plus3,B=grayloss,C=tall,D=minority,E=graygain"
    for seed in range(20):
        game = random_game(Position.parse(start), random.Random(seed))
        view = BoardView("A" * 40, "B" * 40, game.turns[-1], note="N" * 200)
        assert len(describe_board(game.final, view)) <= ALT_TEXT_LIMIT, seed


def test_negative_scores_have_a_minus_sign():
    """White loses −2 to 19: the result line, the totals and the columns worth less than
    nothing all read with U+2212, never a hyphen after a dash."""
    position = Position.parse("wgwbb/bbbww/wwgwg/wgbwb/bbbww/wwggw/gbbgw - - w -")
    text = describe_board(position, BoardView("Ana", "Bob", final=True))
    assert text.splitlines()[0] == "Bob wins 19–\u22122."
    assert "Final points: White, Ana: \u22122; Black, Bob: 19." in text
    assert "; White \u22121" in text  # a column White leads with more gray than white
    assert "–-" not in text and not any(f"-{digit}" in text for digit in "0123456789")


def test_the_scoring_s_columns_worth_less_than_nothing_have_a_minus_sign():
    assert_minus(scoring_lines(score(FINAL), ENGLISH), "γ C: White \u22121")
