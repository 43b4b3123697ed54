"""Health and metrics over real HTTP (``THOLOS_METRICS_PORT``), during a game on PostgreSQL and
while the database is down; the bot's JSON log lines, with no secret in them."""

from __future__ import annotations

import json
import math

import aiohttp
import asyncpg
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator
from tests.e2e.table import Table, path_of, press_paths
from tests.postgres import PostgresServer

UNAVAILABLE = "I can't reach my database right now"


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a Prometheus exposition: (name, labels) → value."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def total(values: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str):
    """The sum of the samples of ``name`` that carry ``labels``."""
    wanted = set(labels.items())
    return sum(
        value for (sample, have), value in values.items() if sample == name and wanted <= have
    )


async def test_metrics_and_health_during_a_game_and_an_outage(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer
):
    """A few turns move the interaction, turn and latency metrics; /healthz says 200 with the
    shard connected and the database ok, then 503 naming the database once PostgreSQL stops;
    every log line is JSON, the turns' lines carry their game and interaction, and neither the
    token nor the database password appears."""
    url = await postgres_server.create_database()
    bot = spawn_bot(  # THOLOS_METRICS_PORT=0: a free port, which the (JSON) log line names
        emulator, env={"THOLOS_DB": url, "THOLOS_METRICS_PORT": "0", "THOLOS_LOG_FORMAT": "json"}
    )
    await bot.start(sync=True)
    base = (await bot.metrics_url()).removesuffix("/metrics")
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await table.start_game(alice, bob)
    connection = await asyncpg.connect(url)
    try:
        game_id = await connection.fetchval("SELECT id FROM games")
    finally:
        await connection.close()
    for turn in ("w@D", "+b1", "+w1"):
        await table.play(turn)
    await bot.settle()
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/metrics") as response:
            assert response.status == 200
            assert response.headers["Content-Type"].startswith("text/plain")
            values = samples(await response.text())
        async with http.get(f"{base}/healthz") as response:
            assert (response.status, await response.json()) == (
                200,
                {"status": "ok", "shards": {"0": True}, "database": "ok"},
            )
        board, mover = table.board, table.mover()
        position = table.position()
        step = press_paths(position, path_of(position, position.legal_turns()[0]))[0]
        postgres_server.stop()
        try:
            async with http.get(f"{base}/healthz") as response:
                status, health = response.status, await response.json()
            press = await table.click(mover, board, table.custom_id(board, f":{step}:n"))
            assert press.acknowledged
            assert any(UNAVAILABLE in text for text in table.ephemeral(mover))
            async with http.get(f"{base}/metrics") as response:
                assert response.status == 200  # a scrape still works: the gauge is unknown
                during = samples(await response.text())
        finally:
            postgres_server.start()
    step_presses = total(values, "tholos_interactions_total", kind="Play.step", outcome="ok")
    assert step_presses >= 3  # a turn is a press or more: the last one stores it
    assert total(values, "tholos_turns_stored_total", by="human") == 3
    assert total(values, "tholos_games_started_total", against="members") == 1
    assert total(values, "tholos_board_latency_seconds_count") >= 3
    assert total(values, "tholos_board_latency_seconds_sum") > 0
    assert total(values, "tholos_active_games") == 1
    latency = values[("tholos_gateway_latency_seconds", frozenset({("shard", "0")}))]
    assert latency >= 0  # present: the heartbeat discord.py sends on connecting was answered
    assert total(values, "tholos_work_in_flight") == 0  # settled
    assert total(values, "tholos_interactions_total", outcome="error") == 0
    assert status == 503
    assert health["status"] == "unhealthy" and health["shards"] == {"0": True}
    assert health["database"] != "ok"
    assert postgres_server.password not in json.dumps(health)
    assert math.isnan(total(during, "tholos_active_games"))
    assert total(during, "tholos_interactions_total", outcome="database_unavailable") == 1
    assert total(during, "tholos_database_errors_total", backend="postgresql") >= 1
    table.assert_clean()
    assert emulator.violations == []
    assert await bot.stop() == 0
    bot.assert_clean_log()
    text = bot.log()
    assert emulator.token not in text and postgres_server.password not in text
    lines = [json.loads(line) for line in text.splitlines() if not line.startswith("--- start")]
    assert lines and all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    unavailable = [line for line in lines if "database unavailable" in line["message"]]
    assert [(line["game_id"], line["interaction_id"]) for line in unavailable] == [
        (game_id, press.id)
    ]
