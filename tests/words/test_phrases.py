"""The bot's phrases (``bot.words.phrases``): a result in words, a negative score with a minus
sign (U+2212), never ``23–-3``. :func:`finished` and :func:`assert_minus` serve the other
faces' tests of negative scores (the board's status, the scoring, the history, the stats)."""

from __future__ import annotations

import re

from bot.base.game import Game
from bot.words.phrases import result_text
from engine import BLACK, Position
from engine.scoring import Outcome, score
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


def test_the_result_shows_a_minus_sign():
    """The result in White–Black order: Black wins ``19–−2``, told as ``−2–19``."""
    assert_minus(result_text(ENGLISH, finished()), "wins \u22122–19 on points")
