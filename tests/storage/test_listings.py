"""The listings' games of one channel outside the servers with the bot (``/tholos games`` in a
DM, a group DM, a server without the bot), on both backends."""

from __future__ import annotations

from bot.base.game_options import GameOptions
from bot.base.people import Person
from bot.storage.listings import GameListings
from tests.databases import Services
from tests.features.play.test_service import by

DM, GROUP, SERVER_CHANNEL = 70, 71, 72
ALICE, BOB, CAROL, DAVE = 100, 200, 300, 400


async def game_in(service: Services, guild_id: int, channel_id: int, white: int, black: int):
    """A game between ``white`` and ``black`` being played in ``channel_id``."""
    made = await service.challenges.challenge(
        guild_id=guild_id,
        channel_id=channel_id,
        challenger=Person(white, "w"),
        opponent=Person(black, "b"),
        options=GameOptions(colour="white", first="me"),
    )
    return (await service.challenges.answer(made.id, by(black, channel_id), "accept")).game


async def test_a_channels_games_outside_servers(service):
    """The group DM's game being played: not the one finished there, not another DM's, not a
    server's."""
    over = await game_in(service, 0, GROUP, ALICE, DAVE)
    await service.play.resign(over.id, over.version, by(DAVE, GROUP))
    playing = await game_in(service, 0, GROUP, CAROL, DAVE)
    await game_in(service, 0, DM, ALICE, BOB)
    await game_in(service, 5, SERVER_CHANNEL, ALICE, CAROL)
    listings = GameListings(service.play.games.database)
    assert [game.id for game in await listings.playing_in(GROUP, CAROL, 10)] == [playing.id]
    assert await listings.playing_in(SERVER_CHANNEL, CAROL, 10) == []
