"""Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system", 2013): the one formula of
the members' ratings and the puzzles', and of a tournament's seeds. Pure: no I/O.

Time runs continuously, as on Lichess: a deviation grows by the volatility over the rating
periods since it was last rated (:func:`grown`, the paper's step 6 with ``t`` periods), and a
rating's step 6 counts the periods since the last (``periods``; 1 is the paper's example).

>>> player = Rating(1500, 200, 0.06)
>>> after = rate(player, [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0),
...                       (Rating(1700, 300), 0.0)])
>>> round(after.rating, 2), round(after.deviation, 2), round(after.volatility, 6)
(1464.05, 151.52, 0.059996)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178
"""Glicko-2's conversion factor between the Glicko scale and its own (400 / ln 10)."""
TAU = 0.5
"""The system constant: how much volatility may change (Glickman suggests 0.3 to 1.2)."""
EPSILON = 1e-6
"""Convergence tolerance of the volatility iteration."""
MAX_DEVIATION = 350.0
"""A deviation never grows past a newcomer's: after a long absence a member is a newcomer
again, with their rating kept."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating, rating deviation (the ± of a 68% interval is one deviation) and
    volatility, on the familiar Glicko scale (1500 ± 350 for a newcomer)."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def grown(player: Rating, periods: float) -> Rating:
    """The player's rating ``periods`` rating periods later without a game: the deviation
    grows, φ' = √(φ² + σ²·t) (the paper's step 6), up to :data:`MAX_DEVIATION`."""
    spread = math.hypot(player.deviation, SCALE * player.volatility * math.sqrt(periods))
    return Rating(player.rating, min(spread, MAX_DEVIATION), player.volatility)


def rate(player: Rating, results: Sequence[tuple[Rating, float]], periods: float = 1.0) -> Rating:
    """The player's rating after a rating period of ``periods`` (the time since they were last
    rated) with ``results`` (opponent, score: 1 win, 0.5 draw, 0 loss). With no results only
    the deviation grows (:func:`grown`)."""
    if not results:
        return grown(player, periods)
    mu = (player.rating - 1500.0) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    variance_inverse = 0.0
    improvement = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - 1500.0) / SCALE
        phi_j = opponent.deviation / SCALE
        g = _g(phi_j)
        expected = _expected(mu, mu_j, phi_j)
        variance_inverse += g * g * expected * (1.0 - expected)
        improvement += g * (score - expected)
    v = 1.0 / variance_inverse
    delta = v * improvement
    sigma = _new_volatility(phi, sigma, v, delta)
    phi_star = min(math.sqrt(phi * phi + periods * sigma * sigma), MAX_DEVIATION / SCALE)
    phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu += phi * phi * improvement
    return Rating(SCALE * mu + 1500.0, SCALE * phi, sigma)


def _new_volatility(phi: float, sigma: float, v: float, delta: float) -> float:
    """Step 5: the Illinois algorithm for the new volatility."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (TAU * TAU)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        big_b = a - k * TAU
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)
