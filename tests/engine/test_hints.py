"""Hints: in endgames the hint is a turn with the best result by an independent plain minimax
(and says it is exact) wherever the exact search finishes in the hint's node budget; elsewhere a
legal turn of the review's search, reproducible."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine.hints import EXACT_PLACES, HINT_BUDGET, hint
from engine.newgame import new_game
from engine.play import random_game
from engine.position import Position
from tests.engine.test_puzzles import endgames

UNCAPPED = replace(HINT_BUDGET, seconds=None)
"""The hint's budget without its time cap (a safety net only): the node limit decides."""


def minimax(position: Position, known: dict[Position, float]) -> float:
    """The result for the side to move (1 a win, ½ a draw, 0 a loss) by plain minimax over every
    turn to the end, remembering positions met before (a win ends the search of a position)."""
    value = known.get(position)
    if value is None:
        outcome = position.outcome()
        if outcome is not None:
            value = 0.5 if outcome.winner is None else float(outcome.winner == position.turn)
        else:
            value = 0.0
            for turn in position.legal_turns():
                value = max(value, 1.0 - minimax(position.apply(turn), known))
                if value == 1.0:
                    break
        known[position] = value
    return value


@pytest.mark.parametrize(
    ("position", "winning"),
    [
        ("ggw/bbg/bwbww/wbwbw/ww/bwbww/bwbwb wb bbb b -", "b@E/<w"),
        ("bbgwb/wbwbb/wwww/bwbgb/wg/bbwbw/bbw - - w -", "+w3"),
    ],
)
def test_with_seven_places_left_the_hint_is_the_only_winning_turn(position: str, winning: str):
    """Issue 47's positions, where the estimate's hint threw away a forced win."""
    given = hint(Position.parse(position), 0, UNCAPPED)
    assert (str(given.turn), given.expected, given.exact) == (winning, 1.0, True)


def test_an_endgame_hint_is_a_best_turn_by_plain_minimax(seed: int):
    """Random endgames of 4 to 6 places left (7: the issue's positions above): an exact
    hint's result is plain minimax's, and its turn reaches it."""
    rng = random.Random(seed)
    checked = 0
    while checked < 3:
        position = next(endgames(rng, rng.choice((4, 5, 6))))
        given = hint(position, seed, UNCAPPED)
        assert given.turn in position.legal_turns()
        if given.exact:  # the search finished within the node limit
            known: dict[Position, float] = {}
            best = minimax(position, known)
            after = 1.0 - minimax(position.apply(given.turn), known)
            assert after == best == given.expected, position
            checked += 1


def test_a_midgame_hint_is_a_legal_turn_of_the_search_and_reproducible(seed: int):
    rng = random.Random(seed)
    start = new_game("basic", seed=rng.randrange(2**31))
    game = random_game(start, rng)
    position = start
    for turn in game.turns[: rng.randrange(4, 12)]:
        position = position.apply(turn)
    assert position.places_left() > EXACT_PLACES
    given = hint(position, seed)
    assert not given.exact and given.turn in position.legal_turns()
    assert 0.0 <= given.expected <= 1.0
    assert hint(position, seed, UNCAPPED).turn == hint(position, seed, UNCAPPED).turn
