"""A game the pool paired, shown in two places: started in one transaction with a place per
player, every change leaving the other place's board behind until it is recorded there."""

from __future__ import annotations

from bot.base.seats import Seat
from bot.storage.db import Database
from bot.storage.games.changes import record_turn
from bot.storage.games.places import insert_pool_game, places_of
from bot.storage.games.store import GameStore

ALICE = Seat(11, "Alice", guild_id=100, channel_id=1000, venue="server", language="en")
BOB = Seat(22, "Bob", guild_id=200, channel_id=2000, venue="server", language="de")


async def test_a_pool_game_has_a_place_for_each_player(database: Database) -> None:
    async with database.transaction() as transaction:
        game_id = await insert_pool_game(transaction, ALICE, BOB, "5+5", 1000.0)
    game = await GameStore(database).game(game_id)
    assert game is not None and game.pool and game.rated
    assert (game.guild_id, game.channel_id, game.white_id, game.black_id) == (100, 1000, 11, 22)
    assert game.time_control == "5+5" and game.white_clock == 300.0
    home, away = await places_of(database, game_id)
    assert (home.home, home.user_id, home.channel_id) == (True, 11, 1000)
    assert (away.home, away.user_id, away.guild_id, away.channel_id) == (False, 22, 200, 2000)
    assert away.language == "de" and away.needs_a_board and away.version == game.version
    shown = away.shown(game)
    assert (shown.guild_id, shown.channel_id, shown.language) == (200, 2000, "de")


async def test_a_change_leaves_the_other_place_behind(database: Database) -> None:
    async with database.transaction() as transaction:
        game_id = await insert_pool_game(transaction, ALICE, BOB, "correspondence", 1000.0)
    store = GameStore(database)
    game = await store.game(game_id)
    assert game is not None
    turn = game.position.legal_turns()[0]
    async with database.transaction() as transaction:
        after = await record_turn(
            transaction,
            game,
            player_id=11,
            turn=str(turn),
            position_after=game.position.apply(turn),
            outcome=None,
            now=1001.0,
        )
    _, away = await places_of(database, game_id)
    assert away.version == after.version == game.version + 1


async def test_two_pool_games_may_share_a_channel(database: Database) -> None:
    carol = Seat(33, "Carol", guild_id=100, channel_id=1000, venue="server", language="en")
    async with database.transaction() as transaction:
        first = await insert_pool_game(transaction, ALICE, BOB, "correspondence", 1000.0)
        second = await insert_pool_game(transaction, carol, BOB, "correspondence", 1000.0)
    assert first != second
    places = await places_of(database, second)
    assert [place.home for place in places] == [True, False]
