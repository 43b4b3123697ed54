"""Glicko-2 against Glickman's published example (its steps 1-8, and step 6 alone: the
deviation growing while a member does not play), and its basic properties."""

from __future__ import annotations

import pytest

from bot.base.glicko2 import SCALE, Rating, grown, rate
from tests.glicko2_paper import Player, glicko2, later


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


def test_the_deviation_grows_as_the_papers_step_6() -> None:
    """A period without games: φ* = √(φ² + σ²) — the paper's step 6 from its φ = 1.1513 and
    σ' = 0.05999 is φ* = 1.152862; t periods add σ²·t; the growth stops at 350."""
    one = grown(Rating(1500, 1.1513 * SCALE, 0.05999), 1.0)
    assert one.deviation / SCALE == pytest.approx(1.152862, abs=5e-7)
    assert grown(Rating(1500, 200, 0.06), 0.0).deviation == 200
    assert grown(Rating(1500, 200, 0.06), 30.0).deviation == pytest.approx(
        later(Player(1500, 200, 0.06), 30.0).rd, rel=1e-12
    )
    assert grown(Rating(1500, 60, 0.06), 1e9).deviation == 350.0


def test_the_tests_own_glicko2_gives_the_papers_example_too() -> None:
    """The independent Glicko-2 the rating tests recompute with (:mod:`tests.glicko2_paper`)
    prints the paper's numbers, and the bot's agrees with it to the last digits."""
    games = [(Player(1400, 30), 1.0), (Player(1550, 100), 0.0), (Player(1700, 300), 0.0)]
    theirs = glicko2(Player(1500, 200, 0.06), games)
    assert (round(theirs.r, 2), round(theirs.rd, 2), round(theirs.sigma, 5)) == (
        1464.05,
        151.52,
        0.06,
    )
    ours = rate(Rating(1500, 200, 0.06), [(Rating(o.r, o.rd), s) for o, s in games])
    assert (ours.rating, ours.deviation, ours.volatility) == pytest.approx(
        (theirs.r, theirs.rd, theirs.sigma), rel=1e-12
    )
