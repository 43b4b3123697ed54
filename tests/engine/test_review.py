"""The AI's review: on late positions, where full search knows the exact value of every turn,
the review finds the blunder, names an optimal turn instead, and scores a perfect player 100 %."""

from __future__ import annotations

import random

import pytest

from engine.ai import _Solver
from engine.newgame import new_game
from engine.position import Position
from engine.review import GameReview, review_game
from engine.turns import Turn


def exact(position: Position) -> float:
    """The exact result for the side to move (full search)."""
    solved = _Solver(10**7, None).best(position)
    assert solved is not None
    return solved[0]


def turn_values(position: Position) -> dict[Turn, float]:
    """The exact result for the side to move after each of its turns."""
    values = {}
    for turn in position.legal_turns():
        after = position.apply(turn)
        if after.is_over():
            values[turn] = exact_over(after, position.turn)
        else:
            values[turn] = 1.0 - exact(after) if after.turn != position.turn else exact(after)
    return values


def exact_over(position: Position, player: int) -> float:
    outcome = position.outcome()
    assert outcome is not None
    return 0.5 if outcome.winner is None else float(outcome.winner == player)


def late_position_with_a_blunder(seed: int) -> tuple[Position, Turn, Turn] | None:
    """A position with few places left where one turn wins and another loses."""
    rng = random.Random(seed)
    position = new_game(seed=seed)
    while position.places_left() > 4 and not position.is_over():
        position = position.apply(rng.choice(position.legal_turns()))
    if position.is_over():
        return None
    values = turn_values(position)
    best, worst = max(values.values()), min(values.values())
    if best - worst < 0.5:
        return None
    blunder = min(values, key=lambda turn: (values[turn], str(turn)))
    return position, blunder, max(values, key=lambda turn: (values[turn], str(turn)))


def find_case() -> tuple[Position, Turn, Turn]:
    for seed in range(200):
        case = late_position_with_a_blunder(seed)
        if case is not None:
            return case
    raise AssertionError("no late position with a blunder among 200 seeds")


CASE = find_case()


def perfect_line(position: Position, first: Turn) -> list[Turn]:
    """``first``, then both players play optimally to the end."""
    turns = [first]
    position = position.apply(first)
    while not position.is_over():
        values = turn_values(position)
        turns.append(max(values, key=lambda turn: (values[turn], str(turn))))
        position = position.apply(turns[-1])
    return turns


def test_the_blunder_is_the_top_mistake_and_the_better_turn_is_optimal():
    start, blunder, _ = CASE
    turns = perfect_line(start, blunder)
    calls = []
    review = review_game(start, turns, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(n, len(turns) + 1) for n in range(1, len(turns) + 2)]
    colour = start.turn
    (mistake, *_) = review.mistakes(colour)
    assert mistake.ply == 1 and mistake.played == blunder and not mistake.kept
    values = turn_values(start)
    assert values[mistake.best] == max(values.values())
    assert mistake.loss >= 0.5
    others = [turn for turn in review.turns if turn.player != colour]
    assert all(turn.kept for turn in others)
    assert review.accuracy[1 - colour] == 1.0
    assert len(review.chart) == len(turns) + 1 and all(0 <= v <= 1 for v in review.chart)


def test_perfect_play_keeps_the_expected_result():
    start, _, best = CASE
    review = review_game(start, perfect_line(start, best))
    assert review.accuracy == (1.0, 1.0) and review.mistakes(0) == review.mistakes(1) == []


@pytest.mark.parametrize("seed", [1, 2])
def test_reviews_round_trip_through_json(seed: int):
    start = new_game("advanced", ornaments=2, seed=seed)
    rng = random.Random(seed)
    turns = []
    position = start
    for _ in range(6):
        turns.append(rng.choice(position.legal_turns()))
        position = position.apply(turns[-1])
    review = review_game(start, turns, seed=seed)
    again = GameReview.from_json(review.to_json())
    assert [(t.ply, t.played, t.best, t.kept) for t in again.turns] == [
        (t.ply, t.played, t.best, t.kept) for t in review.turns
    ]
    assert again.chart == pytest.approx(review.chart, abs=1e-4)
