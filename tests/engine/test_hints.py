"""Hints: in endgames the hint is a turn with the best result by an independent plain minimax
(and says it is exact); elsewhere a legal turn of the review's search, reproducible."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

from engine.hints import EXACT_PLACES, HINT_BUDGET, hint
from engine.newgame import new_game
from engine.play import random_game
from tests.engine.test_puzzles import endgames, plain_value


def test_an_endgame_hint_is_a_best_turn_by_plain_minimax(seed: int):
    rng = random.Random(seed)
    for position in itertools.islice(endgames(rng, 2), 6):
        given = hint(position, seed)
        assert given.exact and given.turn in position.legal_turns()
        best = max(1.0 - plain_value(position.apply(t)) for t in position.legal_turns())
        assert 1.0 - plain_value(position.apply(given.turn)) == best == given.expected, position


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
    uncapped = replace(HINT_BUDGET, seconds=None)  # the time cap is only a safety net
    assert hint(position, seed, uncapped).turn == hint(position, seed, uncapped).turn
