"""A game the pool paired, shown in two places: started in one transaction with a place per
player, every change leaving the other place's board behind until it is recorded there."""

from __future__ import annotations

from bot.base.seats import Seat
from bot.base.shards import Shards
from bot.storage.db import Database
from bot.storage.games.changes import record_turn
from bot.storage.games.places import boards_behind, insert_pool_game, places_of
from bot.storage.games.store import GameStore
from bot.storage.listings import GameListings

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
    assert away.language == "de" and away.board_version is None and away.version == game.version
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


async def started(database: Database, white: Seat = ALICE, black: Seat = BOB) -> int:
    async with database.transaction() as transaction:
        return await insert_pool_game(transaction, white, black, "correspondence", 1000.0)


async def test_each_place_sees_the_game_as_shown_there(database: Database) -> None:
    game_id = await started(database)
    places = GameStore(database).places
    home = await places.game_in(game_id, 1000)
    away = await places.game_in(game_id, 2000)
    in_server = await places.game_in(game_id, 2999, guild_id=200)
    assert home is not None and away is not None and in_server is not None
    assert (home.away, home.channel_id, away.away, away.channel_id) == (None, 1000, 22, 2000)
    assert in_server.away == 22 and (await places.game_in(game_id, 9)) == home
    assert await places.seen_from(game_id, 22) == away
    assert await places.seen_by(home, 22) == away and await places.seen_by(home, 11) == home


async def test_the_games_of_a_place_are_found_there(database: Database) -> None:
    game_id = await started(database)
    store = GameStore(database)
    (mine,) = await store.active_games(2000, 22)
    assert (mine.id, mine.away) == (game_id, 22)
    assert await store.active_games(2000, 33) == []
    found = await store.active_game(2000)
    assert found is not None and (found.id, found.away) == (game_id, 22)
    assert (await store.active_game(1000)) == await store.game(game_id)


async def test_a_place_is_settled_in_a_thread_once(database: Database) -> None:
    game_id = await started(database)
    places, threads = GameStore(database).places, GameStore(database).place_threads
    away = await places.seen_from(game_id, 22)
    assert away is not None and not await threads.placed(away)
    moved = await threads.settle(away, (2500, 2400))
    assert (moved.channel_id, moved.parent_id, moved.parent_message_id) == (2500, 2000, 2400)
    assert await threads.placed(moved)
    assert await threads.settle(away, (2600, 2401)) == moved  # settled already: kept
    home = await places.game_in(game_id, 1000)
    assert home is not None and (home.channel_id, home.parent_id) == (1000, None)
    at_home = await threads.settle(home, (1500, 1400))
    assert (at_home.channel_id, at_home.parent_id, at_home.away) == (1500, 1000, None)
    assert (await GameStore(database).game(game_id)) == at_home


async def test_a_board_behind_is_found_by_the_shard_of_its_place(database: Database) -> None:
    near = Seat(11, "Alice", guild_id=4 << 22, channel_id=1000, venue="server", language="en")
    far = Seat(22, "Bob", guild_id=5 << 22, channel_id=2000, venue="server", language="en")
    game_id = await started(database, near, far)
    even, odd = Shards(2, (0,)), Shards(2, (1,))
    (home,) = await boards_behind(database, even)
    (away,) = await boards_behind(database, odd)
    assert (home.id, home.away, away.id, away.away) == (game_id, None, game_id, 22)
    store = GameStore(database)
    assert await store.set_board_message(game_id, 77, away.version, away=22)
    assert await boards_behind(database, odd) == []
    recorded = await store.places.seen_from(game_id, 22)
    assert recorded is not None and recorded.board_message_id == 77


async def test_the_other_server_is_named_only_where_allowed(database: Database) -> None:
    shown = Seat(22, "Bob", 200, 2000, "server", "en", server_name="Delphi")
    game_id = await started(database, ALICE, shown)
    places = GameStore(database).places
    home = await places.game_in(game_id, 1000)
    away = await places.seen_from(game_id, 22)
    assert home is not None and away is not None
    assert ((await places.named(home)).black_name, (await places.named(away)).white_name) == (
        "Bob (Delphi)",
        "Alice",
    )


async def test_each_server_lists_the_game_as_shown_there(database: Database) -> None:
    game_id = await started(database)
    listings = GameListings(database)
    assert await listings.playing(100) == await listings.playing(200) == 1
    assert await listings.playing(300) == 0
    (home,) = await listings.playing_page(100, 11, 0, 10)
    (away,) = await listings.playing_page(200, 11, 0, 10)
    assert (home.id, home.away, away.id, away.away, away.channel_id) == (
        game_id,
        None,
        game_id,
        22,
        2000,
    )
    (named,) = await listings.playing_named(200, "alice", 5)
    assert named.away == 22
