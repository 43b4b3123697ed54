"""A hint: one good turn for the side to move, and what it gains — from the same evaluation the
AI's review uses, and in an endgame the exact solver's answer.

With few places left (:data:`EXACT_PLACES`) the rest of the game is searched exhaustively
(:func:`engine.ai.solve`, within :data:`HINT_BUDGET`'s node limit and half its time): the hint
is a turn with the best exact result — a winning one where one exists — and says so. Otherwise
it is the review's search (:class:`engine.ai.SearchPlayer`, its expected result for the side to
move)."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from .ai import Budget, SearchPlayer, _gain, solve
from .core import WHITE
from .position import Position
from .turns import Turn

HINT_BUDGET = Budget(iterations=3000, seconds=0.8, solver_nodes=200_000)
"""The review's search (3,000 iterations) with a shorter cap, so that a hint comes within a
second; a larger node limit for the exact endgame, which a hint can afford once."""
EXACT_PLACES = 5
"""With at most this many places left in the temple, the hint is exact (if the search fits)."""


@dataclass(frozen=True, slots=True)
class Hint:
    """One good turn, and why."""

    turn: Turn
    expected: float
    """The result the side to move can expect after it: 1 a win, ½ a draw, 0 a loss (an
    estimate unless :attr:`exact`)."""
    exact: bool
    """Proven by searching the rest of the game (the result is certain with best play)."""
    gain: int
    """How many points the turn adds to its player's lead at once (negative: it costs)."""


def hint(position: Position, seed: int = 0, budget: Budget = HINT_BUDGET) -> Hint:
    """A good turn for the side to move in ``position`` (not over), reproducible from ``seed``
    (unless the time cap cuts a search short). The exact search may use the first half of the
    time; the estimate what is left."""
    sign = 1 if position.turn == WHITE else -1
    began = time.perf_counter()
    if position.places_left() <= EXACT_PLACES:
        halfway = None if budget.seconds is None else began + budget.seconds / 2
        solved = solve(position, budget.solver_nodes, halfway)
        if solved is not None:  # a best result, the first such turn in the order of gain
            value, turn = solved
            return Hint(turn, value, True, sign * _gain(position, turn))
    if budget.seconds is not None:
        left = budget.seconds - (time.perf_counter() - began)
        budget = replace(budget, seconds=max(left, budget.seconds / 4))
    expected, turn = SearchPlayer("hint", budget).analyse(position, seed)
    return Hint(turn, expected, False, sign * _gain(position, turn))
