"""The analysis board's page part (``bot.features.analysis.web``): the finished game a page
may open where the bot is not — a server without the bot keeps its games with no server (id 0)
in the channel they were played in, so a page there opens them to their players by its
channel; a page of another channel does not, nor does a page open them to a spectator (a page's
channel is no proof its member still sees it: :mod:`bot.discord.visibility`)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.base.game_options import GameOptions
from bot.base.people import Person
from bot.base.refusals import Refusal
from bot.features.analysis.web import AnalysisBoard
from bot.features.reviews import ReviewStore
from bot.web.sessions import Session
from tests.discord_fakes import fake_app, services_of
from tests.features.play.test_service import ALICE, BOB, CAROL, by

ELSEWHERE, GENERAL, GAMES = 7_000, 7_001, 7_002
"""A server without the bot (the fake Discord knows no server), two of its channels."""


def page_of(user_id: int, channel_id: int) -> SimpleNamespace:
    """A page ``user_id`` opened in ``channel_id`` of the server without the bot."""
    return SimpleNamespace(
        session=Session(user_id, "", None, channel_id, ELSEWHERE, "i-1", expires_at=2e9)
    )


async def test_a_page_in_a_server_without_the_bot_opens_that_channels_games(database):
    """Alice's page in #general opens her game there; not in #games, nor to Carol."""
    app = fake_app(database)
    services = services_of(app)
    made = await services.challenges.challenge(
        guild_id=0,
        channel_id=GENERAL,
        challenger=Person(ALICE, "Alice"),
        opponent=Person(BOB, "Bob"),
        options=GameOptions(colour="white", first="me"),
    )
    game = (await services.challenges.answer(made.id, by(BOB, GENERAL), "accept")).game
    assert game is not None
    game = await services.play.resign(game.id, game.version, by(BOB, GENERAL))
    board = AnalysisBoard(app, ReviewStore(database))
    opened = await board._visible(page_of(ALICE, GENERAL), game.id)  # type: ignore[arg-type]
    assert opened.id == game.id
    for user_id, channel_id in ((ALICE, GAMES), (CAROL, GENERAL)):
        with pytest.raises(Refusal):
            await board._visible(page_of(user_id, channel_id), game.id)  # type: ignore[arg-type]
