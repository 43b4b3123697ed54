"""Computer players: ``random``, ``greedy`` and a Monte Carlo tree search at three levels.

Pure: no I/O. Every player is reproducible from a seed. The search (levels ``easy``, ``medium``,
``hard``) is PUCT-style Monte Carlo tree search over complete turns:

- **prior**: each turn's immediate gain in score difference (computed from the one to three
  columns it touches), turned into probabilities by a softmax; children are tried in prior
  order, so of the up to ~150 turns only the promising ones are ever expanded;
- **transpositions**: tree nodes are shared by position (positions never repeat in a game, so
  the graph has no cycles);
- **leaf evaluation**: a short playout where each ply picks the best of a few random turns by
  immediate gain, capped at :attr:`Settings.playout_plies`, then a logistic of the projected
  score difference (finished games count exactly: win 1, draw ½, loss 0);
- **endgame solver**: when few places are left in the temple, an alpha-beta search over the
  rest of the game (with a node limit that grows with the budget) finds the exact result; a
  turn that wins, or draws when nothing wins, is played without the tree search.

>>> start = Position.parse("-/-/-/-/-/-/- ww bb w -")
>>> turn = choose_turn(start, "easy", seed=1, budget=Budget(iterations=50))
>>> turn in start.legal_turns()
True
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Protocol

from .core import WHITE
from .position import Position
from .scoring import column_points
from .turns import Extra, GrayFromQuarry, Move, Remove, Take, Turn

__all__ = [
    "LEVELS",
    "LEVEL_RATINGS",
    "PLAYERS",
    "Budget",
    "GreedyPlayer",
    "Player",
    "RandomPlayer",
    "SearchPlayer",
    "Settings",
    "choose_turn",
    "level_for_rating",
    "make_player",
]


@dataclass(frozen=True, slots=True)
class Budget:
    """How much a search may think: tree ``iterations``, the endgame solver's ``solver_nodes``,
    and optionally a wall-time cap in seconds.

    The counts make the result reproducible from the seed; the cap is a safety net that stops
    the search early on a slow or busy machine (and then the turn may differ). The solver may
    use the first half of the time.
    """

    iterations: int
    seconds: float | None = None
    solver_nodes: int = 5_000

    def __post_init__(self) -> None:
        for name in ("iterations", "solver_nodes"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"a budget needs 1 or more {name}, got {value!r}")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"a budget's time cap must be positive, got {self.seconds!r}")


@dataclass(frozen=True, slots=True)
class Settings:
    """The search's tuning (the levels differ only in their :class:`Budget`)."""

    exploration: float = 1.0
    """PUCT's constant: how much the prior and few visits attract the search."""
    temperature: float = 2.0
    """Softmax temperature of the prior, in points of immediate gain."""
    unvisited_value: float = 0.3
    """The value assumed for a turn the search has not tried yet (first-play urgency)."""
    playout_plies: int = 10
    """Plies of playout after a new leaf, before the evaluation (the cap on playouts)."""
    playout_sample: int = 3
    """Each playout ply plays the best of this many random turns by immediate gain."""
    scale: float = 6.0
    """Points of projected score difference that shift the evaluation by one logit."""
    solve_places: int = 5
    """The endgame solver is tried when at most this many places are left in the temple."""


LEVELS: dict[str, Budget] = {
    "easy": Budget(iterations=100, seconds=0.2, solver_nodes=5_000),
    "medium": Budget(iterations=500, seconds=1.0, solver_nodes=20_000),
    "challenging": Budget(iterations=1200, seconds=1.4, solver_nodes=30_000),
    "hard": Budget(iterations=3000, seconds=1.8, solver_nodes=40_000),
    "expert": Budget(iterations=5000, seconds=2.2, solver_nodes=70_000),
    "master": Budget(iterations=10_000, seconds=2.5, solver_nodes=100_000),
}
"""The search levels: same search, bigger budgets."""
PLAYERS = ("random", "greedy", *LEVELS)
"""Every player name :func:`make_player` knows."""
LEVEL_RATINGS: dict[str, int] = {
    "easy": 1240,
    "medium": 1500,
    "challenging": 1700,
    "hard": 1870,
    "expert": 1970,
    "master": 2130,
}
"""Each level's rating on the members' scale, measured in the arena by
``benchmarks/ai_levels.py --earlier`` (rounded to 10): every pair of players fitted at once,
``medium`` held at 1500, a newcomer's rating (so a newcomer is offered the default level).
2026-11-29, all 15 pairs (95% intervals): easy 1242 (1198–1285), challenging 1703 (1646–1760),
hard 1858 (1807–1909), expert 1972 (1889–2055), master 2127 (2026–2229); ``greedy`` ≈ 540 and
``random`` ≈ 0. A level's rating, once published, is kept while the fit's interval holds it:
rated games were played against it (hard's 1870 from the first fit). See benchmarks/README.md,
"the AI's levels on the rating scale"."""


def level_for_rating(rating: float) -> str:
    """The level whose rating is nearest ``rating`` (the weaker on a tie)."""
    return min(
        LEVEL_RATINGS, key=lambda level: (abs(LEVEL_RATINGS[level] - rating), LEVEL_RATINGS[level])
    )


class Player(Protocol):
    """Something that chooses a turn, reproducibly from a seed."""

    name: str

    def choose(self, position: Position, seed: int) -> Turn:
        """A legal turn of ``position`` (which must not be over)."""
        ...


# -- scoring helpers ----------------------------------------------------------------------------

_LETTERS = "wbg"
_COLUMN_VALUES: dict[tuple[str, str | None], tuple[int, int]] = {}


def _column_value(stones: str, ornament: str | None) -> tuple[int, int]:
    """White's points minus Black's for one column, and +1/-1/0 for who wins it (memoised)."""
    key = (stones, ornament)
    value = _COLUMN_VALUES.get(key)
    if value is None:
        winner, points = column_points(stones, ornament)
        value = (0, 0) if winner is None else (points, 1) if winner == WHITE else (-points, -1)
        _COLUMN_VALUES[key] = value
    return value


def _standing(position: Position) -> tuple[int, int]:
    """White's lead in points and in columns won, as if the game ended now."""
    points = columns = 0
    for stones, ornament in zip(position.columns, position.ornaments, strict=True):
        value = _column_value(stones, ornament)
        points += value[0]
        columns += value[1]
    return points, columns


def _result(position: Position) -> float:
    """White's result of a finished game: 1 win, 0.5 draw, 0 loss (points, then columns)."""
    points, columns = _standing(position)
    lead = points or columns
    return 0.5 if lead == 0 else 1.0 if lead > 0 else 0.0


def _gain(position: Position, turn: Turn) -> int:
    """How much ``turn`` changes White's lead in points, from the columns it touches."""
    if type(turn) is Take:
        return 0
    columns, ornaments = position.columns, position.ornaments
    location = turn.location
    before = columns[location]
    ornament = ornaments[location]
    gain = (
        _column_value(before + _LETTERS[turn.colour], ornament)[0]
        - _column_value(before, ornament)[0]
    )
    bonus = turn.bonus
    if bonus is None:
        return gain
    if type(bonus) is Move or type(bonus) is Remove:
        source = columns[bonus.source]
        ornament = ornaments[bonus.source]
        gain += _column_value(source[:-1], ornament)[0] - _column_value(source, ornament)[0]
        if type(bonus) is Remove:
            return gain
        added = source[-1]
    elif type(bonus) is Extra:
        added = _LETTERS[bonus.colour]
    elif type(bonus) is GrayFromQuarry:
        added = "g"
    else:  # draw and steal change only the workshops
        return gain
    target = columns[bonus.target]
    ornament = ornaments[bonus.target]
    return gain + _column_value(target + added, ornament)[0] - _column_value(target, ornament)[0]


def _by_gain(position: Position) -> list[Turn]:
    """The legal turns, best immediate gain for the side to move first."""
    sign = 1 if position.turn == WHITE else -1
    return sorted(position.legal_turns(), key=lambda turn: -sign * _gain(position, turn))


class _OutOfNodes(Exception):
    """The solver reached its node limit or the deadline."""


class _Solver:
    """Exact results of late positions: alpha-beta over win 1, draw ½, loss 0 for the side to
    move, with a table of bounds shared by transposed positions."""

    def __init__(self, limit: int, deadline: float | None) -> None:
        self.limit = limit
        self.deadline = deadline
        self.nodes = 0
        self.bounds: dict[Position, tuple[float, float]] = {}

    def best(self, position: Position) -> tuple[float, Turn] | None:
        """The best result for the side to move and a turn that gets it, or ``None`` if the
        limit was reached first."""
        try:
            best_value, best_turn = -1.0, None
            for turn in _by_gain(position):
                value = 1.0 - self._value(position.apply_unchecked(turn), 0.0, 1.0 - best_value)
                if value > best_value:
                    best_value, best_turn = value, turn
                    if value == 1.0:
                        break
        except _OutOfNodes:
            return None
        assert best_turn is not None
        return best_value, best_turn

    def _value(self, position: Position, alpha: float, beta: float) -> float:
        """The result for the side to move: exact if inside ``(alpha, beta)``, else a bound."""
        if position.is_over():
            result = _result(position)
            return result if position.turn == WHITE else 1.0 - result
        low, high = self.bounds.get(position, (0.0, 1.0))
        if low >= beta or low == high:
            return low
        if high <= alpha:
            return high
        alpha, beta = max(alpha, low), min(beta, high)
        self.nodes += 1
        if self.nodes > self.limit or (
            self.deadline is not None
            and self.nodes % 256 == 0
            and time.perf_counter() > self.deadline
        ):
            raise _OutOfNodes
        best = 0.0
        floor = alpha
        for turn in _by_gain(position):
            value = 1.0 - self._value(position.apply_unchecked(turn), 1.0 - beta, 1.0 - floor)
            if value > best:
                best = value
                if best >= beta:
                    break
                floor = max(floor, best)
        if best <= alpha:
            self.bounds[position] = (low, best)
        elif best >= beta:
            self.bounds[position] = (best, high)
        else:
            self.bounds[position] = (best, best)
        return best


def solve(
    position: Position, limit: int = 10**9, deadline: float | None = None
) -> tuple[float, Turn] | None:
    """The exact best result for the side to move (1 a win, ½ a draw, 0 a loss) and the first
    turn in the order of immediate gain that gets it, by exhaustive search of the rest of the
    game; ``None`` past ``limit`` nodes or ``deadline`` (``time.perf_counter()``)."""
    return _Solver(limit, deadline).best(position)


def exact_values(position: Position, limit: int = 10**9) -> dict[Turn, float] | None:
    """The exact result for the side to move — 1 a win, ½ a draw, 0 a loss — after each of its
    legal turns, by exhaustive search of the rest of the game (one table of bounds shared by
    all turns); ``None`` if it takes more than ``limit`` nodes."""
    solver = _Solver(limit, None)
    try:
        return {
            turn: 1.0 - solver._value(position.apply_unchecked(turn), 0.0, 1.0)
            for turn in _by_gain(position)
        }
    except _OutOfNodes:
        return None


# -- the simple players -------------------------------------------------------------------------


def _legal_turns(position: Position) -> list[Turn]:
    turns = position.legal_turns()
    if not turns:
        raise ValueError("the game is over: there is no turn to choose")
    return turns


class RandomPlayer:
    """Plays a uniformly random legal turn."""

    name = "random"

    def choose(self, position: Position, seed: int) -> Turn:
        """A uniformly random legal turn."""
        return random.Random(seed).choice(_legal_turns(position))


class GreedyPlayer:
    """Plays the turn that maximises its lead in points right after it (random among ties)."""

    name = "greedy"

    def choose(self, position: Position, seed: int) -> Turn:
        """The turn with the best immediate gain; ties broken by the seed."""
        turns = _legal_turns(position)
        sign = 1 if position.turn == WHITE else -1
        gains = [sign * _gain(position, turn) for turn in turns]
        best = max(gains)
        return random.Random(seed).choice(
            [turn for turn, gain in zip(turns, gains, strict=True) if gain == best]
        )


# -- the search ---------------------------------------------------------------------------------


class _Node:
    """A position in the search graph: its turns in prior order and their statistics."""

    __slots__ = ("children", "priors", "total", "tried", "turns", "values", "visits", "white")

    def __init__(self, position: Position, settings: Settings) -> None:
        turns = position.legal_turns()
        sign = 1 if position.turn == WHITE else -1
        gains = [sign * _gain(position, turn) for turn in turns]
        top = max(gains)
        weights = [math.exp((gain - top) / settings.temperature) for gain in gains]
        total = sum(weights)
        order = sorted(range(len(turns)), key=weights.__getitem__, reverse=True)
        self.turns = [turns[index] for index in order]
        self.priors = [weights[index] / total for index in order]
        self.children: list[Position | None] = [None] * len(turns)
        self.visits = [0] * len(turns)
        self.values = [0.0] * len(turns)
        """Summed results for the side to move here."""
        self.total = 0
        """Visits of all turns."""
        self.tried = 0
        """Turns visited at least once: always a prefix of the prior order."""
        self.white = position.turn == WHITE


class SearchPlayer:
    """Monte Carlo tree search with a heuristic prior, and an exact endgame solver (see the
    module's description)."""

    def __init__(self, name: str, budget: Budget, settings: Settings | None = None) -> None:
        self.name = name
        self.budget = budget
        self.settings = settings or Settings()

    def choose(self, position: Position, seed: int) -> Turn:
        """A solved endgame's winning (or drawing) turn, else the most visited turn of the
        tree search."""
        turns = _legal_turns(position)
        if len(turns) == 1:
            return turns[0]
        settings, budget = self.settings, self.budget
        began = time.perf_counter()
        deadline = None if budget.seconds is None else began + budget.seconds
        if position.places_left() <= settings.solve_places:
            halfway = None if budget.seconds is None else began + budget.seconds / 2
            solved = _Solver(budget.solver_nodes, halfway).best(position)
            if solved is not None and solved[0] >= 0.5:
                return solved[1]
        root = _Node(position, settings)
        self._search(position, root, random.Random(seed), deadline)
        best = max(
            range(root.tried),
            key=lambda index: (root.visits[index], root.values[index], -index),
        )
        return root.turns[best]

    def analyse(self, position: Position, seed: int) -> tuple[float, Turn]:
        """The expected result for the side to move (1 a win, ½ a draw, 0 a loss: exact when
        the endgame solver settles it, else the search's estimate) and the best turn found."""
        turns = _legal_turns(position)
        settings, budget = self.settings, self.budget
        began = time.perf_counter()
        deadline = None if budget.seconds is None else began + budget.seconds
        if position.places_left() <= settings.solve_places:
            halfway = None if budget.seconds is None else began + budget.seconds / 2
            solved = _Solver(budget.solver_nodes, halfway).best(position)
            if solved is not None:
                return solved
        if len(turns) == 1:
            after = position.apply_unchecked(turns[0])
            value = self._evaluate(after, random.Random(seed))
            return (value if position.turn == WHITE else 1.0 - value), turns[0]
        root = _Node(position, settings)
        self._search(position, root, random.Random(seed), deadline)
        best = max(
            range(root.tried),
            key=lambda index: (root.visits[index], root.values[index], -index),
        )
        return root.values[best] / max(root.visits[best], 1), root.turns[best]

    def _search(
        self, start: Position, root: _Node, rng: random.Random, deadline: float | None
    ) -> None:
        settings = self.settings
        exploration, unvisited = settings.exploration, settings.unvisited_value
        nodes = {start: root}
        for iteration in range(self.budget.iterations):
            if iteration % 16 == 15 and deadline is not None and time.perf_counter() > deadline:
                break
            node, position = root, start
            path: list[tuple[_Node, int]] = []
            while True:
                visits, values, priors = node.visits, node.values, node.priors
                factor = exploration * math.sqrt(node.total + 1)
                best_index, best_score = 0, -math.inf
                for index in range(min(node.tried + 1, len(visits))):
                    count = visits[index]
                    mean = values[index] / count if count else unvisited
                    score = mean + factor * priors[index] / (1 + count)
                    if score > best_score:
                        best_index, best_score = index, score
                if best_index == node.tried:
                    node.tried += 1
                path.append((node, best_index))
                child = node.children[best_index]
                if child is None:
                    child = position.apply_unchecked(node.turns[best_index])
                    node.children[best_index] = child
                position = child
                found = nodes.get(position)
                if found is None:
                    if position.is_over():
                        value = _result(position)
                    else:
                        nodes[position] = _Node(position, settings)
                        value = self._evaluate(position, rng)
                    break
                node = found
            for parent, index in path:
                parent.total += 1
                parent.visits[index] += 1
                parent.values[index] += value if parent.white else 1.0 - value

    def _evaluate(self, position: Position, rng: random.Random) -> float:
        """White's expected result: a capped playout, then the logistic of White's lead."""
        settings = self.settings
        sample = settings.playout_sample
        uniform = rng.random
        for _ in range(settings.playout_plies):
            turns = position.legal_turns()
            if not turns:
                return _result(position)
            count = len(turns)
            sign = 1 if position.turn == WHITE else -1
            best = turns[int(uniform() * count)]
            best_gain = sign * _gain(position, best)
            for _ in range(sample - 1):
                turn = turns[int(uniform() * count)]
                gain = sign * _gain(position, turn)
                if gain > best_gain:
                    best, best_gain = turn, gain
            position = position.apply_unchecked(best)
        if position.is_over():
            return _result(position)
        points, columns = _standing(position)  # columns won break ties, as in the scoring
        return 1.0 / (1.0 + math.exp(-(points + 0.25 * columns) / settings.scale))


# -- entry points -------------------------------------------------------------------------------


def make_player(name: str, budget: Budget | None = None) -> Player:
    """The player called ``name`` (one of :data:`PLAYERS`); ``budget`` overrides a level's.

    Raises ``ValueError`` for an unknown name, or a budget given to ``random`` or ``greedy``.
    """
    if name in LEVELS:
        return SearchPlayer(name, budget or LEVELS[name])
    if name not in ("random", "greedy"):
        raise ValueError(f"unknown player {name!r}: expected one of {', '.join(PLAYERS)}")
    if budget is not None:
        raise ValueError(f"the {name} player takes no budget")
    return RandomPlayer() if name == "random" else GreedyPlayer()


def choose_turn(position: Position, level: str, *, seed: int, budget: Budget | None = None) -> Turn:
    """The turn player ``level`` (one of :data:`PLAYERS`) chooses in ``position``.

    The same position, level, seed and iteration budget give the same turn (unless a time cap
    stops the search early). Raises ``ValueError`` for an unknown level or a finished game.
    """
    return make_player(level, budget).choose(position, seed)
