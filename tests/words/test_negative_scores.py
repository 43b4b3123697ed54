"""Negative scores in what the bot says: a minus sign (U+2212) in the result, the scoring, the
board's status, the stats and the history — never ``23–-3``."""

from __future__ import annotations

import re

from bot.base.game import Game
from bot.discord.layout import status_text
from bot.features.history.feature import history_line
from bot.features.ratings.feature import stats_embed
from bot.features.ratings.stats import FinishedGame, player_stats
from bot.words.board import board_of
from bot.words.phrases import result_text
from engine import BLACK, Position
from engine.scoring import Outcome, score
from rendering.describe import scoring_lines
from rendering.translator import ENGLISH

ANA, BOB = 1, 2
FINAL = Position.parse("wgwbb/bbbww/wwgwg/wgbwb/bbbww/wwggw/gbbgw - - w -")
"""White (Ana) loses −2 to 19."""
HYPHEN_MINUS = re.compile(r"(?<![\w<:])-\d")
"""A hyphen used as a minus sign (not inside a mention or a timestamp)."""


def finished(position: Position = FINAL) -> Game:
    """Ana (White) and Bob's game, over at ``position``, with its score stored."""
    white, black = score(position).totals
    return Game(
        id=5,
        guild_id=9,
        channel_id=8,
        white_id=ANA,
        black_id=BOB,
        white_name="Ana",
        black_name="Bob",
        mode="basic",
        seed=1,
        start_position=position,
        position=position,
        version=30,
        plies=29,
        status="finished",
        outcome=Outcome(BLACK, "points", (white, black)),
        board_message_id=77,
        board_version=30,
        created_at=0.0,
        last_move_at=100.0,
        finished_at=100.0,
        rated=True,
        ai_level=None,
    )


def assert_minus(text: str, *expected: str) -> None:
    """``text`` holds each ``expected`` piece and no hyphen-minus before a digit."""
    for piece in expected:
        assert piece in text, text
    assert "–-" not in text and HYPHEN_MINUS.search(text) is None, text


def test_the_result_and_the_scoring_show_a_minus_sign():
    """The board's result (``19–−2`` in White–Black order: ``−2–19``), the scoring's columns
    worth less than nothing, and the status of a finished board."""
    game = finished()
    assert_minus(result_text(ENGLISH, game), "wins \u22122–19 on points")
    assert_minus(scoring_lines(score(FINAL), ENGLISH), "γ C: White \u22121")
    assert_minus(status_text(board_of(game, ENGLISH)), "\u22122–19")


def test_the_history_shows_the_loser_s_negative_score():
    """Ana's history line: she scored −2 and conceded 19."""
    assert_minus(history_line(ENGLISH, finished(), ANA), "\u22122–19")
    assert_minus(history_line(ENGLISH, finished(), BOB), "19–\u22122")


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
