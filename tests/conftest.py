"""Fixtures shared by every test folder: one real PostgreSQL server for the whole run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .postgres import PostgresServer


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server started once per run (only if a test asks for it); a test that
    cannot start it fails, it does not skip."""
    server = PostgresServer()
    server.start()
    yield server
    server.close()
