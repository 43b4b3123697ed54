"""JSON log lines: one object a line, the game and interaction ids, never a secret."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from bot.base.logs import GAME_ID, INTERACTION_ID, Context, JsonFormatter, Secrets

TOKEN = "MTAx.secret-token.xyz"
PASSWORD = "hunter2-db"


@pytest.fixture
def logged() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """A logger writing JSON lines, secrets masked, into a string."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(Context())
    handler.addFilter(Secrets([TOKEN, PASSWORD, ""]))
    logger = logging.getLogger("tests.logs")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    yield logger, stream
    logger.removeHandler(handler)


def test_every_line_is_json_with_the_ids_and_no_secret(logged):
    logger, stream = logged
    logger.info("starting")
    interaction, game = INTERACTION_ID.set(41), GAME_ID.set(7)
    try:
        logger.info("turn stored in game %s", 7)
        logger.warning("connecting with %s to postgresql://tholos:%s@db/x", TOKEN, PASSWORD)
        try:
            raise RuntimeError(f"bad token {TOKEN}")
        except RuntimeError:
            logger.exception("interaction failed")
    finally:
        INTERACTION_ID.reset(interaction)
        GAME_ID.reset(game)
    text = stream.getvalue()
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["message"] for line in lines] == [
        "starting",
        "turn stored in game 7",
        "connecting with *** to postgresql://tholos:***@db/x",
        "interaction failed",
    ]
    assert "game_id" not in lines[0] and "interaction_id" not in lines[0]
    assert all(line["game_id"] == 7 and line["interaction_id"] == 41 for line in lines[1:])
    assert {line["level"] for line in lines} == {"INFO", "WARNING", "ERROR"}
    assert all(line["logger"] == "tests.logs" and line["time"].endswith("+00:00") for line in lines)
    assert "RuntimeError: bad token ***" in lines[3]["exception"]
    assert TOKEN not in text and PASSWORD not in text
