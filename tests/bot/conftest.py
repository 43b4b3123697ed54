"""Fixtures: a real SQLite database in a temporary directory, a service with a settable clock."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service import GameService
from bot.storage import Database, GameStore


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


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[Database]:
    """A migrated database file."""
    database = await Database.open(tmp_path / "tholos.db")
    yield database
    await database.close()


@pytest.fixture
def service(database: Database, clock: Clock) -> GameService:
    """The game service over the real database."""
    return GameService(
        GameStore(database),
        challenge_timeout=600,
        inactivity_timeout=86400,
        clock=clock,
        rng=random.Random(4),
    )
