"""The ratings' Discord face (``bot.features.ratings.feature``): a member's statistics as an
embed."""

from __future__ import annotations

from bot.features.ratings.feature import stats_embed
from bot.features.ratings.stats import FinishedGame, player_stats
from rendering.translator import ENGLISH
from tests.words.test_phrases import ANA, BOB, assert_minus


def test_stats_show_negative_points_everywhere():
    """Bob's biggest win and last games, 19–−2; Ana's points per game, −2.0 for."""
    history = [FinishedGame(5, ANA, BOB, "black", "points", -2, 19, 100.0, None)]
    for member, expected in ((BOB, "19–\u22122"), (ANA, "\u22122.0 for · 19.0 against")):
        embed = stats_embed(ENGLISH, member, None, 2, player_stats(member, history))
        text = "\n".join(f"{field.name}: {field.value}" for field in embed.fields)
        assert_minus(text, expected)
    bob = stats_embed(ENGLISH, BOB, None, 2, player_stats(BOB, history))
    biggest = {field.name: field.value for field in bob.fields}["Biggest win"]
    assert biggest.startswith("19–\u22122 vs <@1>")
