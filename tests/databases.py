"""Fixtures: a real database (SQLite file and PostgreSQL, each test on both), services with a
settable clock."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.features.challenges.service import ChallengeService
from bot.features.challenges.store import ChallengeStore
from bot.features.play.service import PlayService
from bot.storage import open_database
from bot.storage.db import Database
from bot.storage.games.store import GameStore


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    """The service's clock."""
    return Clock()


BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(params=BACKENDS)
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new database: a SQLite file, or a fresh database on the real PostgreSQL server
    (every test that uses it runs on both)."""
    if request.param == "sqlite":
        return str(tmp_path / "tholos.db")
    return await request.getfixturevalue("postgres_server").create_database()


@pytest.fixture
async def database(database_url: str) -> AsyncIterator[Database]:
    """The migrated database of ``database_url``."""
    database = await open_database(database_url)
    yield database
    await database.close()


@dataclass(frozen=True)
class Services:
    """The bot's two services over one database: how games start, and how they are played."""

    challenges: ChallengeService
    play: PlayService


def services_on(database: Database, clock: Clock, seed: int = 4) -> Services:
    """The services of one bot process over ``database``."""
    games = GameStore(database)
    return Services(
        ChallengeService(
            ChallengeStore(database),
            games,
            challenge_timeout=600,
            clock=clock,
            rng=random.Random(seed),
        ),
        PlayService(games, inactivity_timeout=86400, clock=clock),
    )


@pytest.fixture
def service(database: Database, clock: Clock) -> Services:
    """The services over the real database."""
    return services_on(database, clock)


@pytest.fixture
async def other_process(database_url: str, clock: Clock) -> AsyncIterator[Services]:
    """The services of a second bot process: its own connection to the same database."""
    database = await open_database(database_url)
    yield services_on(database, clock, seed=5)
    await database.close()
