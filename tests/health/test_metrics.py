"""The metrics registry and the health checks, without a bot."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.health import server as health
from bot.health.metrics import Metrics
from bot.health.server import database_health, shard_health


class FakeDatabase:
    """Answers ``SELECT 1`` after ``delay`` seconds, or raises ``error``."""

    cannot_write: str | None = None

    def __init__(self, delay: float = 0.0, error: Exception | None = None) -> None:
        self.delay, self.error = delay, error

    async def fetchone(self, sql: str, parameters: Any = ()) -> Any:
        await asyncio.sleep(self.delay)
        if self.error is not None:
            raise self.error
        return (1,)


def test_each_metrics_has_its_own_registry():
    first, second = Metrics(), Metrics()
    first.turns.labels("human").inc(3)
    second.turns.labels("human").inc()
    counts = [
        sample.value
        for one in (first, second)
        for family in text_string_to_metric_families(one.exposition().decode())
        for sample in family.samples
        if sample.name == "tholos_turns_stored_total"
    ]
    assert counts == [3, 1]


async def test_database_health_names_the_failure_not_the_url(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(health, "DATABASE_TIMEOUT", 0.05)
    assert await database_health(FakeDatabase()) == "ok"
    assert await database_health(FakeDatabase(delay=1)) == "no answer within 0.05 s"
    failing = FakeDatabase(error=ConnectionRefusedError("postgresql://u:pw@db/x refused"))
    assert await database_health(failing) == "unavailable (ConnectionRefusedError)"


def test_unconnected_shards_are_unhealthy():
    sharded = discord.AutoShardedClient(
        intents=discord.Intents.none(), shard_count=4, shard_ids=[1, 3]
    )
    assert shard_health(sharded) == {"1": False, "3": False}
    assert shard_health(discord.Client(intents=discord.Intents.none())) == {"0": False}
