"""``DatabaseBusy``: another writer (maintenance, another process) holds the database. A write
waits a short, bounded time (``WRITE_PATIENCE``), then either stores everything or raises
``DatabaseBusy`` having stored nothing; reads never wait."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import asyncpg
import pytest

from bot.base.game_options import GameOptions
from bot.base.people import Caller, Person
from bot.features.ratings.store import RATINGS_LOCK, Board, RatingStore
from bot.health.metrics import METRICS
from bot.storage import open_database
from bot.storage.db import WRITE_PATIENCE, DatabaseBusy, lock_key
from bot.storage.events import observe
from bot.storage.games.store import GameStore
from tests.databases import Clock, services_on

GUILD = 1


async def started(service, channel: int = 7):
    """A rated game between 100 (White, to move) and 200."""
    made = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=channel,
        challenger=Person(100, "a"),
        opponent=Person(200, "b"),
        options=GameOptions(colour="white", first="me"),
    )
    return (await service.challenges.answer(made.id, Caller(200, channel), "accept")).game


@pytest.fixture
async def sqlite_game(tmp_path: Path):
    """A SQLite database with a rated game on (White, 100, to move), its services, and a
    second connection to the file, as another process would hold it."""
    path = tmp_path / "tholos.db"
    database = await open_database(str(path))
    service = services_on(database, Clock())
    game = await started(service)
    other = sqlite3.connect(path, isolation_level=None)
    yield database, service, game, other
    other.close()
    await database.close()


def retries(backend: str) -> float:
    return METRICS.database_retries.labels(backend)._value.get()


async def test_sqlite_a_write_held_off_too_long_stores_nothing_and_says_busy(sqlite_game):
    """While another process holds SQLite's write lock, a resignation gives up after about
    ``WRITE_PATIENCE`` seconds (trying again meanwhile) with ``DatabaseBusy``; the game is as
    it was, and the same resignation works once the other writer is done."""
    database, service, game, other = sqlite_game
    other.execute("BEGIN IMMEDIATE")
    tried_before = retries("sqlite")
    began = time.monotonic()
    stop = observe(METRICS.count_database_event)  # as the metrics server counts them
    try:
        with pytest.raises(DatabaseBusy):
            await service.play.resign(game.id, game.version, Caller(200, 7))
    finally:
        stop()
    assert time.monotonic() - began >= WRITE_PATIENCE  # it tried again meanwhile
    assert retries("sqlite") > tried_before
    assert (await GameStore(database).game(game.id)).is_active
    other.execute("ROLLBACK")
    ended = await service.play.resign(game.id, game.version, Caller(200, 7))
    assert ended.outcome is not None


async def test_sqlite_a_write_that_meets_a_short_lock_is_stored_after_a_retry(sqlite_game):
    """The other writer finishes while the resignation waits (at its first retry): the
    resignation is stored, the players rated, no error."""
    database, service, game, other = sqlite_game
    other.execute("BEGIN IMMEDIATE")
    retried = []

    def release_on_retry(event: str, dialect: str) -> None:
        retried.append((event, dialect))
        if other.in_transaction:
            other.execute("COMMIT")

    stop = observe(release_on_retry)
    try:
        ended = await service.play.resign(game.id, game.version, Caller(200, 7))
    finally:
        stop()
    assert ended.outcome is not None and ("retried", "sqlite") in retried
    rows = await database.fetchall("SELECT user_id, games FROM member_ratings ORDER BY user_id")
    assert [tuple(row) for row in rows] == [(100, 1), (200, 1)]


async def test_sqlite_reads_go_on_while_another_process_writes(sqlite_game):
    """Reads never wait for a writer (WAL): the board, the leaderboard, a history answer at
    once while maintenance holds the write lock."""
    database, _, game, other = sqlite_game
    other.execute("BEGIN IMMEDIATE")
    other.execute("UPDATE games SET plies = plies")
    assert (await GameStore(database).game(game.id)).is_active
    assert await RatingStore(database).boards.page(Board("correspondence", GUILD, 0.0), 0) == []
    assert await RatingStore(database).history(GUILD, 100) == []
    other.execute("ROLLBACK")


async def test_postgres_a_rating_lock_held_too_long_stores_nothing_and_says_busy(
    postgres_server,
):
    """Another session holds the ratings' lock (as a long rebuild once did): the resignation
    that would rate the game gives up after ``WRITE_PATIENCE`` with ``DatabaseBusy`` and
    leaves the game as it was; once the lock is free it is stored."""
    url = await postgres_server.create_database()
    database = await open_database(url)
    service = services_on(database, Clock())
    game = await started(service)
    other = await asyncpg.connect(url)
    await other.execute("SELECT pg_advisory_lock($1, $2)", *lock_key(RATINGS_LOCK, 0))
    began = time.monotonic()
    with pytest.raises(DatabaseBusy):
        await service.play.resign(game.id, game.version, Caller(200, 7))
    assert time.monotonic() - began >= WRITE_PATIENCE
    assert (await GameStore(database).game(game.id)).is_active
    await other.execute("SELECT pg_advisory_unlock($1, $2)", *lock_key(RATINGS_LOCK, 0))
    ended = await service.play.resign(game.id, game.version, Caller(200, 7))
    assert ended.outcome is not None
    await other.close()
    await database.close()


async def test_postgres_a_row_locked_too_long_says_busy(postgres_server):
    """A transaction elsewhere holds the game's row: a resignation gives up with
    ``DatabaseBusy`` (``lock_timeout``) instead of waiting for the statement timeout, nothing
    stored."""
    url = await postgres_server.create_database()
    database = await open_database(url)
    service = services_on(database, Clock())
    game = await started(service)
    other = await asyncpg.connect(url)
    holding = other.transaction()
    await holding.start()
    await other.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", game.id)
    with pytest.raises(DatabaseBusy):
        await service.play.resign(game.id, game.version, Caller(200, 7))
    await holding.rollback()
    assert (await GameStore(database).game(game.id)).is_active
    await other.close()
    await database.close()
