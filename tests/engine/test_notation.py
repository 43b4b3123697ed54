"""Position and turn notation, JSON storage, and the errors bad input gets."""

from __future__ import annotations

import json

import pytest

from engine import (
    BLACK,
    WHITE,
    Draw,
    Extra,
    GrayFromQuarry,
    InvalidPositionError,
    InvalidTurnError,
    Move,
    Place,
    Position,
    Remove,
    Steal,
    Take,
    parse_turn,
)
from engine.turns import well_formed_turns

START = "-/-/-/-/-/-/- ww bb w -"


def test_start_position_fields():
    """The starting position: empty temple, 2 stones per workshop, quarry 13/13/10."""
    position = Position.parse(START)
    assert position.columns == ("",) * 7
    assert position.workshops == ((2, 0, 0), (0, 2, 0))
    assert position.turn == WHITE
    assert position.quarry == (13, 13, 10)
    assert position.capacities == (5,) * 7
    assert str(position) == START
    assert position.mode == "basic"


def test_parse_accepts_other_orders_and_prints_canonically():
    """Workshop stones and ornaments in any order print back in canonical order."""
    position = Position.parse("wb/-/g/-/-/-/- gw bgb b F=tall,C=minority")
    assert str(position) == "wb/-/g/-/-/-/- wg bbg b C=minority,F=tall"
    assert position.turn == BLACK and position.mode == "advanced"
    assert position.capacities[5] == 7


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "5 fields"),
        ("-/-/-/-/-/-/-  ww bb w -", "single spaces"),
        (" -/-/-/-/-/-/- ww bb w -", "single spaces"),
        ("-/-/-/-/-/-/- ww bb w -\n", "ornament"),
        ("-/-/-/-/-/- ww bb w -", "7 stacks"),
        ("-/-/-/-/-/-/x ww bb w -", "column G is 'x'"),
        ("-/-/-/-/-/-/- wwww bb w -", "white's workshop is 'wwww'"),
        ("-/-/-/-/-/-/- ww bx w -", "black's workshop is 'bx'"),
        ("-/-/-/-/-/-/- ww bb x -", "side to move is 'x'"),
        ("-/-/-/-/-/-/- ww bb w C=shiny", "unknown ornament 'shiny'"),
        ("-/-/-/-/-/-/- ww bb w C", "expected LOCATION=id"),
        ("-/-/-/-/-/-/- ww bb w C=tall,C=plus3", "more than one ornament"),
        ("-/-/-/-/-/-/- ww bb w C=tall,D=tall", "at most once"),
        (
            "-/-/-/-/-/-/- ww bb w A=tall,B=plus3,C=minority,D=graygain,E=grayloss,F=graytrigger",
            "at most 5",
        ),
        ("wwwwww/-/-/-/-/-/- - - w -", "column A holds 6 stones but its capacity is 5"),
        ("wwwww/wwwww/wwwww/w/-/-/- - - w -", "16 white stones"),
        ("ggggg/ggggg/g/-/-/-/- - - w -", "11 gray stones"),
        ("bbbbb/bbbbb/bbbbb/-/-/-/- - b w -", "16 black stones"),
    ],
)
def test_invalid_positions_say_what_is_wrong(text, message):
    """Every kind of malformed or impossible position is rejected with a precise message."""
    with pytest.raises(InvalidPositionError, match=message):
        Position.parse(text)


def test_constructor_validates_fields():
    """Building a Position from fields runs the same checks as parsing."""
    with pytest.raises(InvalidPositionError, match="3 counts"):
        Position(columns=("",) * 7, workshops=((1, 1), (0, 0, 0)), turn=WHITE)  # type: ignore[arg-type]
    with pytest.raises(InvalidPositionError, match="4 stones but has 3 slots"):
        Position(columns=("",) * 7, workshops=((2, 2, 0), (0, 0, 0)), turn=WHITE)
    with pytest.raises(InvalidPositionError, match="side to move"):
        Position(columns=("",) * 7, workshops=((0, 0, 0), (0, 0, 0)), turn=2)


def test_json_round_trip_and_format_version():
    """JSON keeps every field and carries a format version."""
    position = Position.parse("wb/-/g/-/-/-/- wg bbg b C=minority,F=tall")
    data = json.loads(position.to_json())
    assert data["format"] == 1
    assert data["workshops"] == {"w": "wg", "b": "bbg"}
    assert data["ornaments"] == {"C": "minority", "F": "tall"}
    assert Position.from_json(position.to_json()) == position


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not valid JSON"),
        ("[]", "must be an object"),
        ('{"format": 2}', "format 2"),
        ('{"format": 1, "columns": []}', "exactly the keys"),
        (
            '{"format":1,"columns":"x","workshops":{"w":"","b":""},"to_move":"w","ornaments":{}}',
            "list of 7 strings",
        ),
        (
            '{"format":1,"columns":["","","","","","",""],"workshops":{"w":""},"to_move":"w",'
            '"ornaments":{}}',
            "w and b",
        ),
        (
            '{"format":1,"columns":["","","","","","",""],"workshops":{"w":"","b":""},'
            '"to_move":"x","ornaments":{}}',
            "side to move",
        ),
    ],
)
def test_invalid_json_says_what_is_wrong(text, message):
    """Broken stored positions are rejected with a message, never loaded half-way."""
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_json(text)


def test_turn_notation_round_trips_for_every_well_formed_turn():
    """Every turn the notation can express parses back to an equal value."""
    turns = well_formed_turns()
    texts = [str(turn) for turn in turns]
    assert len(set(texts)) == len(texts) == 9 + 3 * 7 * (1 + 7 + 3 + 3 + 21 + 49 + 7)
    for turn, text in zip(turns, texts, strict=True):
        assert parse_turn(text) == turn


def test_turn_values():
    """Parsed turns are small values with the expected fields and a pasteable repr."""
    assert parse_turn("+w3") == Take(WHITE, 3)
    assert parse_turn("w@B/C>E") == Place(WHITE, 1, Move(2, 4))
    assert parse_turn("b@F/g@D") == Place(BLACK, 5, Extra(2, 3))
    assert repr(parse_turn("w@A/q>E")) == "Place.parse('w@A/q>E')"
    assert eval(repr(parse_turn("+g2"))) == Take(2, 2)
    assert eval(repr(Move(2, 4))) == Move(2, 4)
    kinds = [Remove(0), Draw(0), Steal(0), Extra(0, 0), Move(0, 1), GrayFromQuarry(0)]
    assert [bonus.kind for bonus in kinds] == ["remove", "draw", "steal", "extra", "move", "quarry"]


@pytest.mark.parametrize(
    "make",
    [
        lambda: Place(0, 9),
        lambda: Place(3, 0),
        lambda: Place(True, 0),
        lambda: Place(0, 0, "xA"),
        lambda: Take(0, 0),
        lambda: Take(0, 4),
        lambda: Take(2, 1.0),
        lambda: Remove(None),
        lambda: Draw(-1),
        lambda: Steal("w"),
        lambda: Extra(0, 7),
        lambda: Move(0, None),
        lambda: GrayFromQuarry(7),
    ],
)
def test_turn_values_cannot_be_malformed(make):
    """Fields that are not a colour, a location, a count 1 to 3 or a bonus are refused."""
    with pytest.raises(InvalidTurnError):
        make()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "bad turn ''"),
        ("+w0", "bad turn"),
        ("+w4", "at most 3"),
        ("+x1", "bad turn"),
        ("w@H", "bad turn"),
        ("W@A", "bad turn"),
        ("w@A/", "bad bonus ''"),
        ("w@A/zz", "bad bonus 'zz'"),
        ("w@A/B>", "bad bonus"),
        ("w@C/xE/xF", "bad bonus"),
    ],
)
def test_malformed_turns_say_what_is_wrong(text, message):
    """Malformed notation raises InvalidTurnError with the offending text."""
    with pytest.raises(InvalidTurnError, match=message):
        parse_turn(text)
