"""Properties over many random positions (Hypothesis)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import COLOUR_LETTERS, InvalidPositionError, Position, Turn
from engine.builder import TurnBuilder
from engine.core import STONES_IN_PLAY, WORKSHOP_SLOTS, C
from engine.newgame import draw_ornaments
from engine.turns import well_formed_turns
from tests.engine.helpers import random_reachable

_ALL_TURNS = well_formed_turns()
_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def reachable_positions(draw: st.DrawFn) -> Position:
    """Positions reached by random play from a new game (0 to 5 ornaments)."""
    seed = draw(st.integers(0, 2**32 - 1))
    plies = draw(st.integers(0, 90))
    return random_reachable(seed, plies, draw(st.integers(0, 5)))


@st.composite
def arbitrary_positions(draw: st.DrawFn) -> Position:
    """Any valid position, reachable or not."""
    ornaments = draw_ornaments(draw(st.integers(0, 5)), draw(st.integers(0, 1000)))
    columns = tuple(
        draw(st.text("wbg", max_size=7 if ornament == "tall" else 5)) for ornament in ornaments
    )
    workshops = tuple(
        tuple(Counter(draw(st.text("wbg", max_size=3)))[letter] for letter in COLOUR_LETTERS)
        for _ in range(2)
    )
    try:
        return Position(columns, workshops, draw(st.sampled_from([0, 1])), ornaments)  # type: ignore[arg-type]
    except InvalidPositionError:
        assume(False)
        raise


positions = st.one_of(reachable_positions(), arbitrary_positions())


def check_invariants(position: Position) -> None:
    """Stones are conserved and no container is over its capacity."""
    for colour, letter in enumerate(COLOUR_LETTERS):
        in_temple = sum(column.count(letter) for column in position.columns)
        in_workshops = position.workshops[0][colour] + position.workshops[1][colour]
        assert in_temple + in_workshops + position.quarry[colour] == STONES_IN_PLAY[colour]
        assert position.quarry[colour] >= 0
    for location, column in enumerate(position.columns):
        assert len(column) <= position.capacities[location]
    for workshop in position.workshops:
        assert min(workshop) >= 0 and sum(workshop) <= WORKSHOP_SLOTS
    assert Position.parse(str(position)) == position  # the full validation accepts it


def progress(position: Position) -> tuple[int, int, int]:
    """Stones in the temple, the height of column C, stones in the workshops."""
    return (
        sum(len(column) for column in position.columns),
        len(position.columns[C]),
        sum(map(sum, position.workshops)),
    )


@_SETTINGS
@given(positions)
def test_every_generated_turn_applies_and_keeps_the_invariants(position: Position):
    """Each legal turn passes the checked apply; the result keeps stones and capacities, and
    :func:`progress` grows, so no position can come back (games end; the AI's search graph
    has no cycles)."""
    check_invariants(position)
    turns = position.legal_turns()
    assert len({str(turn) for turn in turns}) == len(turns), "turns must be distinct"
    assert bool(turns) != position.is_over(), "no passing: a live game always has a turn"
    for turn in turns:
        child = position.apply(turn)
        check_invariants(child)
        assert child.turn != position.turn
        assert progress(child) > progress(position), turn


@_SETTINGS
@given(positions)
def test_validator_agrees_with_the_generator_on_every_well_formed_turn(position: Position):
    """``why_illegal`` accepts exactly the generated turns among all expressible turns."""
    generated = set(position.legal_turns())
    for turn in _ALL_TURNS:
        reason = position.why_illegal(turn)
        assert (reason is None) == (turn in generated), (str(position), str(turn), reason)


@_SETTINGS
@given(positions)
def test_notation_and_json_round_trip(position: Position):
    """Position notation and JSON both round-trip; so does every legal turn's notation."""
    assert Position.parse(str(position)) == position
    assert Position.from_json(position.to_json()) == position
    for turn in position.legal_turns():
        assert Position.parse(str(position)).apply(str(turn)) == position.apply(turn)


def builder_turns(builder: TurnBuilder) -> Iterator[Turn]:
    """Every turn completed by following enabled options; fails on a dead end."""
    step = builder.step()
    if step is None:
        assert builder.turn is not None, f"dead end at {builder.path}"
        yield builder.turn
        return
    assert builder.turn is None
    assert step.enabled_tokens(), f"a step with nothing to choose at {builder.path}"
    for token in step.enabled_tokens():
        child = builder.choose(token)
        assert child.back() == builder
        yield from builder_turns(child)


@_SETTINGS
@given(positions)
def test_builder_paths_are_exactly_the_legal_turns(position: Position):
    """Following the builder's enabled options yields each legal turn exactly once."""
    assume(not position.is_over())
    built = list(builder_turns(TurnBuilder(position)))
    assert len(built) == len(set(built))
    assert set(built) == set(position.legal_turns())


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 5))
def test_random_games_end_and_conserve_stones(seed: int, ornaments: int):
    """Random play from a new game always reaches a finished, valid position."""
    final = random_reachable(seed, 10_000, ornaments)
    assert final.is_over()
    check_invariants(final)
