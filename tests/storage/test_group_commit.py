"""Boards recorded together (a group commit), on both backends: boards of many games recorded at
the same moment take fewer transactions than boards, and each record says what it did (a
board of an older version than the one recorded is refused, the others are stored); a write
that fails in a group fails alone; a write whose caller stopped waiting is committed."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

from bot.base.game import GamePlace, NewGame
from bot.base.people import Person
from bot.storage.db import Database, DatabaseBusy, Transaction
from bot.storage.games.store import GameStore
from bot.storage.group import GroupCommit
from engine.newgame import new_game
from tests.features.play.test_service import ALICE

GAMES = 12


def counting(database: Database) -> list[int]:
    """Count ``database``'s write transactions from now on (a list holding the count)."""
    count = [0]
    begin = database.transaction

    @asynccontextmanager
    async def transaction(**options: Any) -> AsyncIterator[Transaction]:
        count[0] += 1
        async with begin(**options) as inside:
            yield inside

    database.transaction = transaction  # type: ignore[method-assign]
    return count


async def games_in(database: Database, count: int, clock: Any) -> list[int]:
    games = GameStore(database)
    made = []
    for number in range(count):
        place = GamePlace(1 << 40, 100 + number)
        new = NewGame(place, Person(ALICE, "Alice"), Person(7, "AI"), number, new_game())
        made.append((await games.create_ai_game(new, now=clock.now)).id)
    return made


async def test_boards_recorded_at_once_share_transactions(
    database: Database, clock: Any, seed: int
) -> None:
    rng = random.Random(seed)
    games = GameStore(database)
    ids = await games_in(database, GAMES, clock)
    stale = rng.choice(ids)
    assert await games.set_board_message(stale, 999, 3)  # a newer board is recorded already
    transactions = counting(database)
    versions = {game: (2 if game == stale else rng.randrange(1, 4)) for game in ids}
    stored = await asyncio.gather(
        *(games.set_board_message(game, 1000 + game, versions[game]) for game in ids)
    )
    assert stored == [game != stale for game in ids]
    assert transactions[0] < GAMES, transactions  # the first alone, then the rest together
    for game in ids:
        row = await database.fetchone(
            "SELECT board_message_id, board_version FROM games WHERE id = ?", (game,)
        )
        assert tuple(row) == ((999, 3) if game == stale else (1000 + game, versions[game]))


async def test_a_write_that_fails_in_a_group_fails_alone(database: Database, clock: Any) -> None:
    ids = await games_in(database, 3, clock)
    group = GroupCommit(database)

    def renaming(game: int, fails: bool) -> Callable[[Transaction], Any]:
        async def write(transaction: Transaction) -> int:
            await transaction.execute(
                "UPDATE games SET white_name = ? WHERE id = ?", (f"renamed {game}", game)
            )
            if fails:
                raise ValueError(f"game {game} refused")
            return game

        return write

    first = asyncio.create_task(group.run(renaming(ids[0], fails=False)))
    await asyncio.sleep(0)  # the first group under way: the next two wait, then go together
    rest = [group.run(renaming(ids[1], fails=True)), group.run(renaming(ids[2], fails=False))]
    results = await asyncio.gather(first, *rest, return_exceptions=True)
    assert results[0] == ids[0] and results[2] == ids[2]
    assert isinstance(results[1], ValueError) and str(results[1]) == f"game {ids[1]} refused"
    names = {row[0]: row[1] for row in await database.fetchall("SELECT id, white_name FROM games")}
    assert names[ids[0]] == f"renamed {ids[0]}" and names[ids[2]] == f"renamed {ids[2]}"
    assert names[ids[1]] == "Alice"


async def test_a_write_whose_caller_stopped_waiting_is_committed(
    database: Database, clock: Any
) -> None:
    [game] = await games_in(database, 1, clock)
    games = GameStore(database)
    recording = asyncio.create_task(games.set_board_message(game, 4242, 1))
    await asyncio.sleep(0)
    recording.cancel()
    with pytest.raises(asyncio.CancelledError):
        await recording
    # committed after the first (in order): refused, since version 1 is recorded already
    assert not await games.set_board_message(game, 4141, 0)
    row = await database.fetchone("SELECT board_message_id FROM games WHERE id = ?", (game,))
    assert row[0] == 4242


async def test_a_group_that_finds_the_database_busy_is_not_tried_write_by_write(
    database: Database, clock: Any
) -> None:
    """Busy or unavailable is no write's own fault: every caller of the group hears it at
    once, instead of waiting for each write to meet it again alone."""
    ids = await games_in(database, 4, clock)
    group = GroupCommit(database)

    async def busy(transaction: Transaction) -> None:
        await transaction.execute("UPDATE games SET white_name = 'x' WHERE id = ?", (ids[0],))
        raise DatabaseBusy("another process writes")

    async def fine(transaction: Transaction) -> None:
        await transaction.execute("UPDATE games SET white_name = 'y' WHERE id = ?", (ids[1],))

    transactions = counting(database)
    first = asyncio.create_task(group.run(fine))
    await asyncio.sleep(0)  # alone in the first group; the next three go together
    results = await asyncio.gather(
        first, group.run(busy), group.run(fine), group.run(fine), return_exceptions=True
    )
    assert results[0] is None
    assert all(isinstance(result, DatabaseBusy) for result in results[1:]), results
    assert transactions[0] == 2, "the first write's, the group's, none tried again alone"
