"""The process's metrics (Prometheus counters, no Discord): :mod:`bot.health.server` serves
them at ``/metrics``, with the process's health at ``/healthz``.

The metrics live in one per-process :class:`Metrics` (:data:`METRICS`), in a registry of its
own rather than ``prometheus_client``'s global one; the choke points that feed them
(``answers``, ``BoardPoster.post_after_change``, ``PlayService``, the AI) only increment a
counter or observe a number; the storage backends report their failures and retries to whoever
observes (``storage.events.observe``), and the metrics server counts them here while it serves.
What is costly or asynchronous is read when Prometheus scrapes: the active games (one ``COUNT``
with a timeout) and the gateway latency per shard (``client.latencies``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import generate_latest

from bot.loops import work
from bot.storage.db import Dialect
from bot.storage.events import Event

log = logging.getLogger(__name__)

LATENCY_BUCKETS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0)
"""Press → new board, in seconds (drawing the board and posting it dominate)."""
THINK_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
"""The AI's search, in seconds (easy is instant, hard takes seconds)."""


class Metrics:
    """The metrics of one bot process, in a registry of their own."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry(auto_describe=True)
        self.interactions = Counter(
            "tholos_interactions",
            "Interactions answered, by handler and outcome.",
            ["kind", "outcome"],
            registry=registry,
        )
        self.board_latency = Histogram(
            "tholos_board_latency_seconds",
            "From an interaction that changed a game (its creation) to the new board posted.",
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.turns = Counter(
            "tholos_turns_stored",
            "Turns stored, by who played them (human or ai).",
            ["by"],
            registry=registry,
        )
        self.games_started = Counter(
            "tholos_games_started",
            "Games started, by opponent (members or ai).",
            ["against"],
            registry=registry,
        )
        self.database_errors = Counter(
            "tholos_database_errors",
            "Database operations that failed as unavailable (down, connection lost, locked).",
            ["backend"],
            registry=registry,
        )
        self.database_retries = Counter(
            "tholos_database_retries",
            "Writes that found the database busy with another writer and tried again.",
            ["backend"],
            registry=registry,
        )
        self.ai_think = Histogram(
            "tholos_ai_think_seconds",
            "The AI's search for one turn, by level.",
            ["level"],
            buckets=THINK_BUCKETS,
            registry=registry,
        )
        self.active_games = Gauge(
            "tholos_active_games",
            "Games being played (all processes: read from the database "
            "at scrape time; NaN when it does not answer).",
            registry=registry,
        )
        self.work_in_flight = Gauge(
            "tholos_work_in_flight",
            "Work under way in this process (bot/loops/work.py): interactions "
            "being answered, background rounds, AI turns; 0 when idle.",
            registry=registry,
        )
        self.work_in_flight.set_function(work.in_flight)

    def count_database_event(self, event: Event, dialect: Dialect) -> None:
        """Count what a storage backend reported."""
        counter = self.database_errors if event == "failed" else self.database_retries
        counter.labels(dialect).inc()

    def exposition(self, names: Sequence[str] = ()) -> bytes:
        """The metrics in Prometheus' text format (only ``names``, when given)."""
        registry = self.registry.restricted_registry(names) if names else self.registry
        return generate_latest(registry)


METRICS = Metrics()
"""This process's metrics."""
