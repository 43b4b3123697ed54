"""Health and metrics, off by default: with ``THOLOS_METRICS_PORT`` set, each bot process
serves Prometheus metrics at ``/metrics`` and its health at ``/healthz`` (an ``aiohttp`` server
in the bot's own event loop).

The metrics live in one per-process :class:`Metrics` (:data:`METRICS`), in a registry of its
own rather than ``prometheus_client``'s global one; the choke points that feed them
(``answers``, ``BoardPoster.post_after_change``, ``PlayService``, the AI) only increment a
counter or observe a number; the storage backends report their failures and retries to whoever
listens (``storage.db.listen``), and this module counts them. What is costly or asynchronous
is read when Prometheus scrapes: the active games (one ``COUNT`` with a timeout) and the
gateway latency per shard (``client.latencies``).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import discord
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector

from . import work
from .storage.db import Dialect, Event, listen

log = logging.getLogger(__name__)

DATABASE_TIMEOUT = 2.0
"""Seconds the health check and the active-games count wait for the database."""
LATENCY_BUCKETS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0)
"""Press → new board, in seconds (drawing the board and posting it dominate)."""
THINK_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
"""The AI's search, in seconds (easy is instant, hard takes seconds)."""


class Queryable(Protocol):
    """What the health check needs of the database."""

    async def fetchone(self, sql: str, parameters: Sequence[Any] = ()) -> Any: ...


class Metrics:
    """The metrics of one bot process, in a registry of their own."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry(auto_describe=True)
        self.interactions = Counter(
            "tholos_interactions", "Interactions answered, by handler and outcome.",
            ["kind", "outcome"], registry=registry,
        )  # fmt: skip
        self.board_latency = Histogram(
            "tholos_board_latency_seconds",
            "From an interaction that changed a game (its creation) to the new board posted.",
            buckets=LATENCY_BUCKETS, registry=registry,
        )  # fmt: skip
        self.turns = Counter(
            "tholos_turns_stored", "Turns stored, by who played them (human or ai).",
            ["by"], registry=registry,
        )  # fmt: skip
        self.games_started = Counter(
            "tholos_games_started", "Games started, by opponent (members or ai).",
            ["against"], registry=registry,
        )  # fmt: skip
        self.database_errors = Counter(
            "tholos_database_errors",
            "Database operations that failed as unavailable (down, connection lost, locked).",
            ["backend"], registry=registry,
        )  # fmt: skip
        self.database_retries = Counter(
            "tholos_database_retries",
            "Writes that found the database busy with another writer and tried again.",
            ["backend"], registry=registry,
        )  # fmt: skip
        self.ai_think = Histogram(
            "tholos_ai_think_seconds", "The AI's search for one turn, by level.",
            ["level"], buckets=THINK_BUCKETS, registry=registry,
        )  # fmt: skip
        self.active_games = Gauge(
            "tholos_active_games", "Games being played (all processes: read from the database "
            "at scrape time; NaN when it does not answer).", registry=registry,
        )  # fmt: skip
        self.work_in_flight = Gauge(
            "tholos_work_in_flight", "Work under way in this process (bot/work.py): interactions "
            "being answered, background rounds, AI turns; 0 when idle.", registry=registry,
        )  # fmt: skip
        self.work_in_flight.set_function(work.in_flight)
        self._gateway = _GatewayLatency()
        registry.register(self._gateway)

    def count_database_event(self, event: Event, dialect: Dialect) -> None:
        """Count what a storage backend reported."""
        counter = self.database_errors if event == "failed" else self.database_retries
        counter.labels(dialect).inc()

    def watch(self, client: discord.Client) -> None:
        """Read the gateway latency of ``client``'s shards at each scrape."""
        self._gateway.client = client

    def exposition(self, names: Sequence[str] = ()) -> bytes:
        """The metrics in Prometheus' text format (only ``names``, when given)."""
        registry = self.registry.restricted_registry(names) if names else self.registry
        return generate_latest(registry)


class _GatewayLatency(Collector):
    """``tholos_gateway_latency_seconds{shard}``: the heartbeat latency of each shard, read
    from the client when scraped (no loop of its own)."""

    def __init__(self) -> None:
        self.client: discord.Client | None = None

    def describe(self) -> list[GaugeMetricFamily]:
        return [self._family()]

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = self._family()
        client = self.client
        if client is not None:
            for shard, seconds in _latencies(client):
                if math.isfinite(seconds):
                    family.add_metric([str(shard)], seconds)
        yield family

    @staticmethod
    def _family() -> GaugeMetricFamily:
        return GaugeMetricFamily(
            "tholos_gateway_latency_seconds", "Gateway heartbeat latency, by shard.",
            labels=["shard"],
        )  # fmt: skip


METRICS = Metrics()
"""This process's metrics."""
listen(METRICS.count_database_event)  # the storage backends report, the metrics count


def _latencies(client: discord.Client) -> list[tuple[int, float]]:
    if isinstance(client, discord.AutoShardedClient):
        return client.latencies
    return [(client.shard_id or 0, client.latency)]


def shard_health(client: discord.Client) -> dict[str, bool]:
    """Whether each shard this process owns is connected (by shard id): its gateway socket is
    open (as ``ShardInfo.is_closed`` has it), whether or not its guilds have all arrived."""
    if isinstance(client, discord.AutoShardedClient):
        owned = client.shard_ids or range(client.shard_count or 1)
        shards = client.shards
        return {str(shard): shard in shards and not shards[shard].is_closed() for shard in owned}
    connected = not client.is_closed() and client.ws is not None and client.ws.open
    return {str(client.shard_id or 0): connected}


async def database_health(database: Queryable) -> str:
    """``"ok"`` when the database answers ``SELECT 1`` in time, else why not (no URL: it may
    hold a password)."""
    try:
        await asyncio.wait_for(database.fetchone("SELECT 1"), DATABASE_TIMEOUT)
    except TimeoutError:
        return f"no answer within {DATABASE_TIMEOUT:g} s"
    except Exception as error:  # whatever the backend raised: name it, nothing more
        return f"unavailable ({type(error).__name__})"
    return "ok"


class MetricsServer:
    """``/metrics`` and ``/healthz`` over HTTP, in the bot's event loop."""

    def __init__(
        self, client: discord.Client, database: Queryable, metrics: Metrics = METRICS
    ) -> None:
        self.client = client
        self.database = database
        self.metrics = metrics
        metrics.watch(client)
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        self._runner = web.AppRunner(app, access_log=None)

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host:port`` (port 0: one the system chooses, which the log line names)."""
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        port = self._runner.addresses[0][1]
        log.info("metrics and health on http://%s:%d/metrics and /healthz", host, port)

    async def stop(self) -> None:
        """Stop listening."""
        await self._runner.cleanup()

    async def _metrics(self, request: web.Request) -> web.Response:
        """Every metric, or only those named by ``name[]`` parameters (as Prometheus' own
        client does; the database is asked only for ``tholos_active_games``)."""
        names = request.query.getall("name[]", [])
        if not names or "tholos_active_games" in names:
            self.metrics.active_games.set(await self._active_games())
        return web.Response(
            body=self.metrics.exposition(names), headers={"Content-Type": CONTENT_TYPE_LATEST}
        )

    async def _active_games(self) -> float:
        try:
            row = await asyncio.wait_for(
                self.database.fetchone("SELECT COUNT(*) FROM games WHERE status = 'active'"),
                DATABASE_TIMEOUT,
            )
        except Exception as error:  # a scrape never fails for it: the gauge says "unknown"
            log.info("could not count the active games: %s", type(error).__name__)
            return math.nan
        return float(row[0])

    async def _healthz(self, request: web.Request) -> web.Response:
        shards = shard_health(self.client)
        database = await database_health(self.database)
        healthy = database == "ok" and bool(shards) and all(shards.values())
        body = {"status": "ok" if healthy else "unhealthy", "shards": shards, "database": database}
        return web.json_response(body, status=200 if healthy else 503)
