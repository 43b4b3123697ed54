"""Playing a game the pool paired across two places (no Discord): a press is accepted from
either place's channel, and its change is seen from where it was pressed, whose board's lease
it takes; a press elsewhere is refused."""

from __future__ import annotations

import pytest

from bot.base.people import Caller
from bot.base.refusals import Refusal
from bot.base.seats import Seat
from bot.features.play.service import OutdatedBoardError, PlayService, TurnPlayed
from bot.storage.db import Database
from bot.storage.games.places import insert_pool_game
from bot.storage.games.store import GameStore
from bot.storage.leases import LeaseStore, board_lease
from engine.builder import turn_path
from tests.databases import Clock

ALICE = Seat(11, "Alice", guild_id=100, channel_id=1000, venue="server", language="en")
BOB = Seat(22, "Bob", guild_id=200, channel_id=2000, venue="server", language="de")


async def test_each_player_plays_from_their_own_place(database: Database, clock: Clock) -> None:
    async with database.transaction() as transaction:
        game_id = await insert_pool_game(transaction, ALICE, BOB, "correspondence", clock.now)
    leases = LeaseStore(database, "this process")
    play = PlayService(GameStore(database), inactivity_timeout=60, clock=clock, leases=leases)
    game = await GameStore(database).game(game_id)
    assert game is not None
    turn = game.position.legal_turns()[0]
    path = "".join(turn_path(game.position, turn))
    with pytest.raises(Refusal):  # not a channel the game is shown in
        await play.choose(game_id, game.version, path, Caller(ALICE.user_id, 3000))
    played = await play.choose(game_id, game.version, path, Caller(ALICE.user_id, 1000))
    assert isinstance(played, TurnPlayed) and played.game.away is None
    with pytest.raises(OutdatedBoardError) as outdated:  # Bob's old board, in his place
        await play.choose(game_id, game.version, path, Caller(BOB.user_id, 2000))
    assert outdated.value.game.away == BOB.user_id
    after = played.game
    turn = after.position.legal_turns()[0]
    path = "".join(turn_path(after.position, turn))
    theirs = await play.choose(game_id, after.version, path, Caller(BOB.user_id, 2000))
    assert isinstance(theirs, TurnPlayed)
    seen = theirs.game
    assert (seen.away, seen.channel_id, seen.language, seen.plies) == (22, 2000, "de", 2)
    held = board_lease(game_id, seen.version, BOB.user_id)
    assert not await leases.acquire(held, clock.now), "the press holds its place's lease"
    assert await leases.acquire(board_lease(game_id, seen.version), clock.now), "not the home's"
    resigned = await play.resign(game_id, seen.version, Caller(BOB.user_id, 2000))
    assert resigned.away == 22 and resigned.outcome is not None
    assert resigned.outcome.result == "white"
