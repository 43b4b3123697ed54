"""A finished game reviewed by the AI: for every position, the result the AI expected for the
player to move and the best turn it found; for every turn, whether it kept that result.

- The **expected result** is a number from 0 (a sure loss) through ½ (even) to 1 (a sure
  win) for the player to move: exact where the endgame solver settles the position, else the
  tree search's estimate (the mean result of its most visited turn) at :data:`REVIEW_BUDGET`.
- A turn's **loss** is how much it lowered its player's expected result: the expectation
  before it minus the expectation after it (the next position's, seen from the same player),
  never below 0. It **kept** the expected result when it lost at most :data:`TOLERANCE`:
  the search's estimates wobble by a few hundredths between neighbouring positions, so only a
  clear drop counts as a mistake.
- A player's **accuracy** is the share of their turns that kept the expected result.

Reproducible from the seed (the budget counts iterations; its time cap is only a safety net).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .ai import Budget, SearchPlayer, _result
from .core import WHITE, Colour
from .position import Position
from .turns import Turn, parse_turn

REVIEW_BUDGET = Budget(iterations=3000, seconds=2.0, solver_nodes=40_000)
"""The hard level's budget (a third of a second a position on this project's 2-core machine:
a 70-turn game in about 20 s)."""
TOLERANCE = 0.1
"""The largest drop of the expected result that still counts as keeping it."""


@dataclass(frozen=True, slots=True)
class TurnReview:
    """One turn as the AI saw it."""

    ply: int
    player: Colour
    played: Turn
    best: Turn
    expected_before: float
    """The player's expected result before the turn."""
    expected_after: float
    """The player's expected result after it."""
    expected_white: float
    """White's expected result before the turn (for the chart)."""

    @property
    def loss(self) -> float:
        """How much the turn lowered its player's expected result (0 or more)."""
        return max(0.0, self.expected_before - self.expected_after)

    @property
    def kept(self) -> bool:
        """Whether the turn kept the expected result (within :data:`TOLERANCE`)."""
        return self.loss <= TOLERANCE


@dataclass(frozen=True, slots=True)
class GameReview:
    """Every turn's review, and White's expected result after the last one."""

    turns: tuple[TurnReview, ...]
    final_white: float

    @property
    def accuracy(self) -> tuple[float, float]:
        """Per colour (White, Black): the share of turns that kept the expected result."""
        shares = []
        for colour in (0, 1):
            mine = [turn for turn in self.turns if turn.player == colour]
            shares.append(sum(turn.kept for turn in mine) / len(mine) if mine else 1.0)
        return shares[0], shares[1]

    def mistakes(self, colour: Colour, n: int = 3) -> list[TurnReview]:
        """The ``n`` biggest losses of ``colour`` among turns that did not keep the result."""
        bad = [turn for turn in self.turns if turn.player == colour and not turn.kept]
        return sorted(bad, key=lambda turn: (-turn.loss, turn.ply))[:n]

    @property
    def chart(self) -> tuple[float, ...]:
        """White's expected result before each turn, then after the last."""
        return (*(turn.expected_white for turn in self.turns), self.final_white)

    def to_json(self) -> str:
        """The review as JSON (turns in canonical notation)."""
        return json.dumps(
            {
                "turns": [
                    [
                        turn.ply,
                        turn.player,
                        str(turn.played),
                        str(turn.best),
                        round(turn.expected_before, 4),
                        round(turn.expected_after, 4),
                        round(turn.expected_white, 4),
                    ]
                    for turn in self.turns
                ],
                "final_white": round(self.final_white, 4),
            }
        )

    @classmethod
    def from_json(cls, text: str) -> GameReview:
        """The review :meth:`to_json` wrote."""
        data = json.loads(text)
        turns = tuple(
            TurnReview(ply, player, parse_turn(played), parse_turn(best), before, after, white)
            for ply, player, played, best, before, after, white in data["turns"]
        )
        return cls(turns, data["final_white"])


def review_game(
    start: Position,
    turns: Sequence[Turn],
    *,
    budget: Budget | None = None,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> GameReview:
    """Review the game ``turns`` play from ``start``; ``progress(done, total)`` after each
    position (``total`` = turns + 1)."""
    searcher = SearchPlayer("review", budget or REVIEW_BUDGET)
    positions = [start]
    for turn in turns:
        positions.append(positions[-1].apply(turn))
    verdicts: list[tuple[float, Turn | None]] = []
    total = len(positions)
    for index, position in enumerate(positions):
        if position.is_over():
            result = _result(position)
            verdicts.append((result if position.turn == WHITE else 1.0 - result, None))
        else:
            verdicts.append(searcher.analyse(position, seed + index))
        if progress is not None:
            progress(index + 1, total)
    reviews = []
    for ply, turn in enumerate(turns, start=1):
        before, after = positions[ply - 1], positions[ply]
        player = before.turn
        value, best = verdicts[ply - 1]
        following = verdicts[ply][0]
        expected_after = following if after.turn == player else 1.0 - following
        white = value if player == WHITE else 1.0 - value
        reviews.append(TurnReview(ply, player, turn, best or turn, value, expected_after, white))
    last = verdicts[-1][0]
    final_white = last if positions[-1].turn == WHITE else 1.0 - last
    return GameReview(tuple(reviews), final_white)
