"""The arena's Elo: a score rate's difference and interval, and ratings fitted to many pairs."""

from __future__ import annotations

import math

import pytest

from engine.arena import (
    Match,
    Summary,
    elo_difference,
    elo_of,
    expected_score,
    fit_ratings,
    wilson,
)


def by_hand(rate: float) -> float:
    """Elo's difference for a score rate, as the textbook writes it."""
    return 400 * math.log10(rate / (1 - rate))


def test_elo_difference_of_known_score_rates():
    """76% is 200 points, 50% none, 24% minus 200; a sweep is infinite; the inverse holds."""
    assert elo_difference(0.76) == pytest.approx(200.24, abs=0.01)
    assert elo_difference(0.5) == 0
    assert elo_difference(0.24) == pytest.approx(-200.24, abs=0.01)
    assert elo_difference(1.0) == math.inf and elo_difference(0.0) == -math.inf
    for difference in (-500, -123.4, 0, 77, 400):
        assert elo_difference(expected_score(difference)) == pytest.approx(difference)


def test_elo_of_a_result_carries_the_wilson_interval_over():
    """60 wins and 40 losses: +70 points, the interval Wilson's 95% bounds in Elo points."""
    low, high = wilson(0.6, 100)
    summary = Summary(60, 40, 0, 0.6, low, high, 0, 0, 0, 0)
    elo = elo_of(summary)
    assert elo.value == pytest.approx(70.44, abs=0.01)
    assert (elo.low, elo.high) == (pytest.approx(by_hand(low)), pytest.approx(by_hand(high)))
    assert elo.low == pytest.approx(1.4, abs=0.1) and elo.high == pytest.approx(139.5, abs=0.1)


def test_one_pair_fits_to_its_score_rate_with_the_binomial_error():
    """Without the prior, one pair's fit is the score rate's difference, ± 1.96 of the standard
    error of a binomial proportion turned into Elo points."""
    fitted = fit_ratings([Match("a", "b", 200, 152)], "b", 1500, prior_draws=0)
    assert fitted["b"].value == 1500
    rate = 152 / 200
    assert fitted["a"].value == pytest.approx(1500 + by_hand(rate))
    error = 400 / math.log(10) / math.sqrt(200 * rate * (1 - rate))
    assert fitted["a"].high - fitted["a"].value == pytest.approx(1.96 * error)
    assert fitted["a"].value - fitted["a"].low == pytest.approx(1.96 * error)


def test_the_fit_recovers_the_ratings_that_made_the_results():
    """Scores exactly as Elo expects of known ratings, over a chain and a cross pair: the fit
    gives those ratings back, the anchor's fixed, and the far end's interval is the widest."""
    truth = {"random": 900, "greedy": 1150, "easy": 1300, "medium": 1500, "hard": 1850}
    pairs = [("greedy", "random"), ("easy", "greedy"), ("medium", "easy"), ("hard", "medium")]
    pairs.append(("hard", "easy"))
    matches = [Match(a, b, 100, 100 * expected_score(truth[a] - truth[b])) for a, b in pairs]
    fitted = fit_ratings(matches, "medium", 1500, prior_draws=0)
    for name, rating in truth.items():
        assert fitted[name].value == pytest.approx(rating, abs=1e-6)
    widths = {name: fitted[name].high - fitted[name].low for name in truth}
    assert widths["medium"] == 0 and max(widths, key=widths.__getitem__) == "random"


def test_a_sweep_stays_finite_with_the_prior_and_unconnected_players_are_refused():
    """200–0 gives a large but finite difference (one virtual draw); a player the matches do not
    connect to the anchor is an error."""
    fitted = fit_ratings([Match("hard", "random", 200, 200)], "random", 1000)
    assert 1000 + by_hand(200.5 / 201) == pytest.approx(fitted["hard"].value)
    with pytest.raises(ValueError, match="connect"):
        fit_ratings([Match("a", "b", 10, 5), Match("c", "d", 10, 5)], "a", 1500)
