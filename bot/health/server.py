"""Health and metrics over HTTP, off by default: with ``THOLOS_METRICS_PORT`` set, each bot
process serves Prometheus metrics at ``/metrics`` and its health at ``/healthz`` (an
``aiohttp`` server in the bot's own event loop); the gateway latency of each shard is read
from the client when scraped."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Iterator

import discord
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from bot.health.metrics import METRICS, Metrics
from bot.storage.db import Database, scalar, set_meta
from bot.storage.events import observe

log = logging.getLogger(__name__)

DATABASE_TIMEOUT = 2.0
"""Seconds the health check and the active-games count wait for the database."""


class GatewayLatency(Collector):
    """``tholos_gateway_latency_seconds{shard}``: the heartbeat latency of each shard, read
    from the client when scraped (no loop of its own)."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client

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
            "tholos_gateway_latency_seconds",
            "Gateway heartbeat latency, by shard.",
            labels=["shard"],
        )


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


CANNOT_WRITE = "cannot_write"
"""The database's health while it refuses writes (a full disk, a read-only database): from the
first write it refused until one commits again — the health check tries one itself
(:data:`PROBE_KEY`) while it is so, to see space or rights come back."""
PROBE_KEY = "health-write-probe"
"""The ``meta`` row the health check writes (the time) while the database refuses writes."""


async def database_health(database: Database) -> str:
    """``"ok"`` when the database answers ``SELECT 1`` in time and its latest write was not
    refused (else :data:`CANNOT_WRITE`), else why not (no URL: it may hold a password)."""
    try:
        await asyncio.wait_for(database.fetchone("SELECT 1"), DATABASE_TIMEOUT)
    except TimeoutError:
        return f"no answer within {DATABASE_TIMEOUT:g} s"
    except Exception as error:  # whatever the backend raised: name it, nothing more
        return f"unavailable ({type(error).__name__})"
    if database.cannot_write is None:
        return "ok"
    try:
        await asyncio.wait_for(_probe_write(database), DATABASE_TIMEOUT)
    except Exception:  # still refused, or no answer: as it was
        return CANNOT_WRITE
    return "ok"


async def _probe_write(database: Database) -> None:
    """Write one small row: it commits once space or rights are back."""
    await set_meta(database, PROBE_KEY, repr(time.time()))


class MetricsServer:
    """``/metrics`` and ``/healthz`` over HTTP, in the bot's event loop."""

    def __init__(
        self, client: discord.Client, database: Database, metrics: Metrics = METRICS
    ) -> None:
        self.client = client
        self.database = database
        self.metrics = metrics
        metrics.registry.register(GatewayLatency(client))
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        self._runner = web.AppRunner(app, access_log=None)
        self._unobserve: Callable[[], None] = lambda: None

    async def start(self, host: str, port: int) -> None:
        """Count what the storage backends report, and listen on ``host:port`` (port 0: one the
        system chooses, which the log line names)."""
        self._unobserve = observe(self.metrics.count_database_event)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        port = self._runner.addresses[0][1]
        log.info("metrics and health on http://%s:%d/metrics and /healthz", host, port)

    async def stop(self) -> None:
        """Stop listening, and counting."""
        await self._runner.cleanup()
        self._unobserve()

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
            count = await asyncio.wait_for(
                scalar(self.database, "SELECT COUNT(*) FROM games WHERE status = 'active'"),
                DATABASE_TIMEOUT,
            )
        except Exception as error:  # a scrape never fails for it: the gauge says "unknown"
            log.info("could not count the active games: %s", type(error).__name__)
            return math.nan
        return float(count)

    async def _healthz(self, request: web.Request) -> web.Response:
        shards = shard_health(self.client)
        database = await database_health(self.database)
        healthy = database == "ok" and bool(shards) and all(shards.values())
        body = {"status": "ok" if healthy else "unhealthy", "shards": shards, "database": database}
        return web.json_response(body, status=200 if healthy else 503)
