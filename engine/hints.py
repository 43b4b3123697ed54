"""A hint: one good turn for the side to move, and what it gains — from the same evaluation the
AI's review uses, and in an endgame the exact solver's answer.

With few places left (:data:`EXACT_PLACES`) the rest of the game is searched exhaustively first
(:func:`engine.ai.solve`, within :data:`HINT_BUDGET`'s node limit): if it finishes, the hint is a
turn with the best exact result — a winning one where one exists — and says so. Otherwise it is
the review's search (:class:`engine.ai.SearchPlayer`, its expected result for the side to move).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from .ai import Budget, SearchPlayer, Settings, _gain, solve
from .core import WHITE
from .position import Position
from .turns import Turn

HINT_BUDGET = Budget(iterations=3000, seconds=1.2, solver_nodes=100_000)
"""The review's search (3,000 iterations), and 100,000 nodes of exact search: enough for issue
47's positions (62,000 and 64,000 nodes) and three in four positions with 7 places left, about a
second of this machine (~100,000 nodes/s), which a hint can afford once. The time cap is a
safety net for a slow or busy machine (see :func:`hint`)."""
EXACT_PLACES = 7
"""With at most this many places left the exact search is tried: with 7 left it finishes within
the node limit three times in four, with 8 hardly more than half (benchmarks/README.md)."""
_ESTIMATE = Settings(solve_places=0)
"""The estimate's search without its own endgame solver: the hint has tried the exact search."""


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
    (unless the time cap cuts a search short). The exact search may use the whole time cap,
    its node limit deciding on a machine that is not overloaded; the estimate what is left, at
    least a quarter."""
    sign = 1 if position.turn == WHITE else -1
    began = time.perf_counter()
    if position.places_left() <= EXACT_PLACES:
        deadline = None if budget.seconds is None else began + budget.seconds
        solved = solve(position, budget.solver_nodes, deadline)
        if solved is not None:  # a best result, the first such turn in the order of gain
            value, turn = solved
            return Hint(turn, value, True, sign * _gain(position, turn))
    if budget.seconds is not None:
        left = budget.seconds - (time.perf_counter() - began)
        budget = replace(budget, seconds=max(left, budget.seconds / 4))
    expected, turn = SearchPlayer("hint", budget, _ESTIMATE).analyse(position, seed)
    return Hint(turn, expected, False, sign * _gain(position, turn))
