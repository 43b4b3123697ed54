"""Glicko-2 against Glickman's published example, and its basic properties."""

from __future__ import annotations

import pytest

from bot.base.glicko2 import Rating, rate


def test_glickmans_worked_example():
    """1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300.

    The paper prints 1464.06, 151.52 and 0.05999; it rounds mu' to -0.2069 before converting
    back, so the unrounded rating is 1464.0507 — within a hundredth of the printed value — and
    the volatility 0.0599960.
    """
    after = rate(
        Rating(1500, 200, 0.06),
        [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)],
    )
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.005)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation():
    """No games: same rating, a larger deviation (step 6)."""
    after = rate(Rating(1600, 100, 0.06), [])
    assert after.rating == 1600 and after.volatility == 0.06
    assert after.deviation == pytest.approx((100**2 + (0.06 * 173.7178) ** 2) ** 0.5)


def test_a_win_moves_equals_apart_and_a_draw_keeps_them_equal():
    """Between two newcomers: the winner gains what the loser loses; a draw changes nothing."""
    newcomer = Rating()
    winner = rate(newcomer, [(newcomer, 1.0)])
    loser = rate(newcomer, [(newcomer, 0.0)])
    assert winner.rating > 1500 > loser.rating
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating)
    assert winner.deviation < 350 and winner.deviation == pytest.approx(loser.deviation)
    assert rate(newcomer, [(newcomer, 0.5)]).rating == pytest.approx(1500)
