"""Fixtures shared by every test folder: one real PostgreSQL server for the whole run, the seed
of a random test, the databases and services of :mod:`tests.databases`, and the emulator and
bots of :mod:`tests.e2e.bots` (tests of a feature sit in its folder, whatever they need)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from tests.databases import clock, database, database_url, other_process, service
from tests.e2e.bots import emulator, raw_api, shared_emulator, shared_tinybot, spawn_bot, tholos_bot
from tests.postgres import PostgresServer

FIXTURES = (clock, database, database_url, other_process, service)
FIXTURES_OF_E2E = (emulator, raw_api, shared_emulator, shared_tinybot, spawn_bot, tholos_bot)
"""The fixtures imported here so that every folder has them."""


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server started once per run (only if a test asks for it); a test that
    cannot start it fails, it does not skip."""
    server = PostgresServer()
    server.start()
    yield server
    server.close()


SEED_VARIABLE = "THOLOS_TEST_SEED"


@pytest.fixture
def seed() -> int:
    """The seed of a random test: a new one from the clock each run, or ``THOLOS_TEST_SEED``
    to replay one. It is printed, so the report of a failure shows it (a random test holds
    for any seed)."""
    chosen = os.environ.get(SEED_VARIABLE, "").strip()
    value = int(chosen) if chosen else time.time_ns() % 2**32
    print(f"random seed {value}: replay with {SEED_VARIABLE}={value}")
    return value


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores, at most four (``--maxprocesses``). The suite
    waits on its subprocesses — bots, the emulator, PostgreSQL, Chromium — more than it
    computes: three workers on two cores kept them 56% busy and took 554 s, two took 620 s."""
    return (os.cpu_count() or 1) + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The end-to-end tests (the slow ones: bots, the emulator, browsers) first, each group in
    its own order: xdist hands them out first, so the run ends on short tests on every worker,
    not on one worker finishing a long test alone."""
    items.sort(key=lambda item: "e2e" not in item.nodeid)
