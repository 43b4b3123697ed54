"""Posting boards (``bot.discord.poster``): a game version's board posted once, under its
lease, then recorded and the previous board's controls stripped; a board posted by a process
killed before recording it found again among the channel's newest messages."""

from __future__ import annotations

import dataclasses
import time

from bot.discord.layout import image_name
from bot.storage.db import Database
from bot.storage.leases import LeaseStore, board_lease
from tests.discord_fakes import FakeDiscord, fake_app, services_of
from tests.features.play.test_service import play, started


async def game_and_poster(database: Database):
    """A fake Discord, the poster of a bot process over ``database``, its services, and a
    game between Alice and Bob whose first board is not posted yet."""
    discord = FakeDiscord()
    app = fake_app(database, discord)
    service = services_of(app)
    return discord, app.poster, service, await started(service)


async def test_a_board_is_posted_once_per_version_and_recorded(database):
    """While another process holds the version's lease nothing is posted; then the board goes
    to the game's channel with its image named after the version, is recorded, and the lease
    ends with the record."""
    discord, poster, _, game = await game_and_poster(database)
    elsewhere = LeaseStore(database, "another process")  # posting the same board
    assert await elsewhere.acquire(board_lease(game.id, game.version), time.time())
    assert await poster.background.post_in_channel(game, None) is None
    assert discord.in_channel(game.channel_id) == []

    await elsewhere.release(board_lease(game.id, game.version))
    message = await poster.background.post_in_channel(game, None)
    assert message is not None
    assert discord.in_channel(game.channel_id) == [message]
    assert message.sent["file"].filename == image_name(game.id, game.version)
    stored = await poster.games.game(game.id)
    assert stored is not None
    assert (stored.board_message_id, stored.board_version) == (message.id, game.version)
    assert await database.fetchall("SELECT name FROM leases") == []


async def test_the_board_it_replaces_loses_its_controls(database):
    """After a turn the new board is posted with controls; the old one keeps its look (same
    image, header and small print) without them."""
    _, poster, service, game = await game_and_poster(database)
    first = await poster.background.post_in_channel(game, None)
    assert first is not None and first.components and not first.edits
    played = await play(service, game, str(game.position.legal_turns()[0]))
    second = await poster.background.post_stored(played.game)
    assert second is not None and second is not first
    [stripped] = first.edits
    before, after = first.sent["view"].to_components(), stripped["view"].to_components()
    parts = [child for child in before[0]["components"] if child["type"] != 1]
    assert after[0]["components"] == parts, "every part kept, the rows of buttons gone"
    [new] = second.sent["view"].to_components()
    assert not second.edits and any(child["type"] == 1 for child in new["components"])


async def test_a_board_posted_but_never_recorded_is_found_and_recorded(database):
    """A process killed between Discord taking the board and recording it: the next finds the
    board among the channel's newest messages by its image's name (not for another version),
    and records it instead of posting it again."""
    discord, poster, _, game = await game_and_poster(database)
    channel = discord.get_partial_messageable(game.channel_id)
    posted = await channel.send(**await poster.messages.message(game, None))  # then killed
    await channel.send("a player's word since")
    assert await poster.posted.find(dataclasses.replace(game, version=game.version + 1)) is None
    found = await poster.posted.find(game)
    assert found is posted
    await poster.posted.record(game, found)  # type: ignore[arg-type]  # a fake message
    stored = await poster.games.game(game.id)
    assert stored is not None and stored.board_message_id == posted.id
    assert len(discord.in_channel(game.channel_id)) == 2
