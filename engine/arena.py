"""The arena: games between two players with alternating colours, their statistics, and Elo
ratings fitted to them.

Game ``i`` is seeded from the arena's seed and ``i`` alone, so a run reproduces whatever the
number of worker processes (unless a time cap cuts a search short). Games ``2k`` and ``2k + 1``
start from the same position (same ornaments) with the colours swapped; White moves first.

>>> summary = summarise(run_arena("greedy", "random", games=2, seed=1))
>>> summary.wins + summary.losses + summary.draws
2
>>> [round(x, 3) for x in wilson(0.5, 100)]
[0.404, 0.596]
>>> round(elo_difference(0.76))
200
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from multiprocessing import Pool

from .ai import LEVELS, Player, make_player
from .core import WHITE
from .newgame import new_game
from .position import Position


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One arena game, from A's side."""

    index: int
    a_white: bool
    result: float
    """A's result: 1 win, 0.5 draw, 0 loss."""
    a_times: tuple[float, ...]
    """Seconds A took for each of its turns."""
    b_times: tuple[float, ...]
    final: Position


def start_position(seed: int, index: int, ornaments: int) -> Position:
    """The start of game ``index``: a basic game, or ``ornaments`` drawn for the pair of games."""
    if not ornaments:
        return new_game()
    pair_seed = random.Random(f"tholos-arena:{seed}:{index // 2}").getrandbits(32)
    return new_game("advanced", ornaments=ornaments, seed=pair_seed)


def play_game(a: Player, b: Player, *, seed: int, index: int, ornaments: int = 0) -> GameRecord:
    """Play game ``index`` of an arena run: A has White in even games, Black in odd ones."""
    a_white = index % 2 == 0
    position = start_position(seed, index, ornaments)
    seeds = random.Random(f"tholos-arena:{seed}:game:{index}")
    times: tuple[list[float], list[float]] = ([], [])
    while not position.is_over():
        a_moves = (position.turn == WHITE) == a_white
        began = time.perf_counter()
        turn = (a if a_moves else b).choose(position, seeds.getrandbits(63))
        times[0 if a_moves else 1].append(time.perf_counter() - began)
        position = position.apply(turn)  # checked: a player's illegal turn is an error
    outcome = position.outcome()
    assert outcome is not None
    winner = outcome.winner
    result = 0.5 if winner is None else 1.0 if (winner == WHITE) == a_white else 0.0
    return GameRecord(index, a_white, result, tuple(times[0]), tuple(times[1]), position)


def arena_player(name: str, capped: bool = True) -> Player:
    """The player ``name``; a search level without its time cap unless ``capped`` (its iterations
    alone then decide its turns, however busy the machine)."""
    if name in LEVELS and not capped:
        return make_player(name, replace(LEVELS[name], seconds=None))
    return make_player(name)


def _play_named(task: tuple[str, str, int, int, int, bool]) -> GameRecord:
    a, b, seed, index, ornaments, capped = task
    return play_game(
        arena_player(a, capped),
        arena_player(b, capped),
        seed=seed,
        index=index,
        ornaments=ornaments,
    )


def run_arena(
    a: str,
    b: str,
    *,
    games: int,
    seed: int,
    ornaments: int = 0,
    jobs: int = 1,
    capped: bool = True,
    progress: Callable[[list[GameRecord]], None] | None = None,
) -> list[GameRecord]:
    """Play ``games`` games between the named players on ``jobs`` processes, in game order
    (``capped``: the search levels keep their time caps; see :func:`arena_player`).

    ``progress`` is called with the games finished so far after each game.
    """
    tasks = [(a, b, seed, index, ornaments, capped) for index in range(games)]
    done: list[GameRecord] = []
    with Pool(jobs) if jobs > 1 else contextlib.nullcontext() as pool:
        records = pool.imap_unordered(_play_named, tasks) if pool else map(_play_named, tasks)
        for record in records:
            done.append(record)
            if progress:
                progress(done)
    return sorted(done, key=lambda record: record.index)


@dataclass(frozen=True, slots=True)
class Summary:
    """What an arena run shows, from A's side."""

    wins: int
    losses: int
    draws: int
    rate: float
    """Score rate: (wins + draws / 2) / games."""
    low: float
    high: float
    """The score rate's 95% Wilson interval."""
    a_mean: float
    a_p95: float
    b_mean: float
    b_p95: float
    """Seconds per move: mean and 95th percentile (nearest rank) of each side."""


def wilson(rate: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``rate`` observed over ``games`` trials."""
    denominator = 1 + z * z / games
    centre = (rate + z * z / (2 * games)) / denominator
    half = z / denominator * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    return max(0.0, round(centre - half, 12)), min(1.0, round(centre + half, 12))


def _p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)] if ordered else 0.0


def summarise(records: list[GameRecord]) -> Summary:
    """Wins, losses and draws of A, its score rate with a 95% interval, and the move times."""
    wins = sum(record.result == 1.0 for record in records)
    losses = sum(record.result == 0.0 for record in records)
    draws = len(records) - wins - losses
    rate = (wins + draws / 2) / len(records)
    a_times = [t for record in records for t in record.a_times]
    b_times = [t for record in records for t in record.b_times]
    return Summary(
        wins,
        losses,
        draws,
        rate,
        *wilson(rate, len(records)),
        statistics.fmean(a_times) if a_times else 0.0,
        _p95(a_times),
        statistics.fmean(b_times) if b_times else 0.0,
        _p95(b_times),
    )


def report(a: str, b: str, summary: Summary, games: int, seconds: float) -> str:
    """The arena's printed result."""
    s = summary
    return "\n".join(
        [
            f"A {a} vs B {b}: {games} games",
            f"A: {s.wins} wins, {s.losses} losses, {s.draws} draws",
            f"A's score rate: {s.rate:.1%} (95% CI {s.low:.1%} to {s.high:.1%}, Wilson)",
            f"A's Elo difference: {elo_text(elo_of(s))}",
            f"time per move, A ({a}): mean {s.a_mean:.3f} s, p95 {s.a_p95:.3f} s",
            f"time per move, B ({b}): mean {s.b_mean:.3f} s, p95 {s.b_p95:.3f} s",
            f"wall time: {seconds:.0f} s",
        ]
    )


def default_jobs() -> int:
    """Worker processes to use: one per available core."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


# -- Elo ----------------------------------------------------------------------------------------

_LOGISTIC = math.log(10) / 400
"""Elo's logistic: an expected score of 1 / (1 + 10^(-d/400)) for a difference of d points."""


def expected_score(difference: float) -> float:
    """The score rate Elo expects of a player ``difference`` points above its opponent."""
    return 1 / (1 + math.exp(-_LOGISTIC * difference))


def elo_difference(rate: float) -> float:
    """The difference in Elo points that expects score rate ``rate`` (±infinity at 1 and 0)."""
    if rate <= 0 or rate >= 1:
        return math.copysign(math.inf, rate - 0.5)
    return math.log(rate / (1 - rate)) / _LOGISTIC


@dataclass(frozen=True, slots=True)
class Estimate:
    """A rating, or a difference of ratings, with its 95% interval."""

    value: float
    low: float
    high: float


def elo_text(estimate: Estimate) -> str:
    """An Elo difference and its interval in words: ``+366 (95% +268 to +465)``, ``+∞``."""
    value, low, high = (
        f"{x:+.0f}" if math.isfinite(x) else ("+∞" if x > 0 else "−∞")
        for x in (estimate.value, estimate.low, estimate.high)
    )
    return f"{value} (95% {low} to {high})"


def elo_of(summary: Summary) -> Estimate:
    """A's Elo difference to B from their games, with the 95% interval of its score rate
    (Wilson's) carried over to Elo points."""
    return Estimate(
        elo_difference(summary.rate), elo_difference(summary.low), elo_difference(summary.high)
    )


@dataclass(frozen=True, slots=True)
class Match:
    """Games between two players: A's score (a draw is half a win) of ``games``."""

    a: str
    b: str
    games: float
    """Games played (a virtual draw of the fit's prior counts too)."""
    score: float


def fit_ratings(
    matches: list[Match], anchor: str, anchor_rating: float, prior_draws: float = 1.0
) -> dict[str, Estimate]:
    """Every player's Elo rating, fitted to all ``matches`` at once by maximum likelihood (each
    game a Bernoulli trial of Elo's expected score, a draw half a win), ``anchor`` held at
    ``anchor_rating``; intervals of ±1.96 standard errors from the Fisher information.

    Each pair that met also counts ``prior_draws`` draws, so that a clean sweep gives a finite
    rating (as BayesElo's prior does). Raises ``ValueError`` unless the matches connect every
    player to the anchor.
    """
    players = sorted(({m.a for m in matches} | {m.b for m in matches}) - {anchor})
    index = {name: place for place, name in enumerate(players)}
    ratings = dict.fromkeys(players, float(anchor_rating)) | {anchor: float(anchor_rating)}
    counted = [
        Match(m.a, m.b, m.games + prior_draws, m.score + prior_draws / 2)
        for m in matches
        if m.games
    ]
    information: list[list[float]] = []
    for _ in range(100):
        gradient = [0.0] * len(players)
        information = [[0.0] * len(players) for _ in players]
        for match in counted:
            expected = expected_score(ratings[match.a] - ratings[match.b])
            push = _LOGISTIC * (match.score - match.games * expected)
            weight = _LOGISTIC**2 * match.games * expected * (1 - expected)
            for name, sign in ((match.a, 1), (match.b, -1)):
                if name in index:
                    gradient[index[name]] += sign * push
                    information[index[name]][index[name]] += weight
            if match.a in index and match.b in index:
                information[index[match.a]][index[match.b]] -= weight
                information[index[match.b]][index[match.a]] -= weight
        step = _solve(information, gradient)
        for name, change in zip(players, step, strict=True):
            ratings[name] += max(-400.0, min(400.0, change))
        if max(map(abs, step), default=0.0) < 1e-6:
            break
    fitted = {anchor: Estimate(anchor_rating, anchor_rating, anchor_rating)}
    for name in players:
        unit = [1.0 if other == name else 0.0 for other in players]
        error = math.sqrt(_solve(information, unit)[index[name]])
        rating = ratings[name]
        fitted[name] = Estimate(rating, rating - 1.96 * error, rating + 1.96 * error)
    return fitted


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``x`` with ``matrix @ x == vector``, by Gaussian elimination with partial pivoting;
    raises ``ValueError`` for a singular matrix (players the matches leave unconnected)."""
    size = len(vector)
    rows = [[*row, value] for row, value in zip(matrix, vector, strict=True)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda row: abs(rows[row][column]))
        if abs(rows[pivot][column]) < 1e-12:
            raise ValueError("the matches do not connect every player to the anchor")
        rows[column], rows[pivot] = rows[pivot], rows[column]
        for row in range(size):
            if row != column:
                factor = rows[row][column] / rows[column][column]
                rows[row] = [x - factor * y for x, y in zip(rows[row], rows[column], strict=True)]
    return [rows[row][size] / rows[row][row] for row in range(size)]
