"""The history's Discord face (``bot.features.history.feature``): one finished game as a line
of a member's history."""

from __future__ import annotations

from bot.features.history.feature import history_line
from rendering.translator import ENGLISH
from tests.words.test_phrases import ANA, BOB, assert_minus, finished


def test_the_history_shows_the_loser_s_negative_score():
    """Ana's history line: she scored −2 and conceded 19."""
    assert_minus(history_line(ENGLISH, finished(), ANA), "\u22122–19")
    assert_minus(history_line(ENGLISH, finished(), BOB), "19–\u22122")
