"""The tests' own PostgreSQL server: it starts even when its port is taken before it binds it."""

from __future__ import annotations

import asyncio
import socket

import asyncpg

from tests.postgres import PostgresServer


def test_a_taken_port_moves_the_first_start_to_another():
    """A port taken between choosing it and binding it: the server starts on another port,
    and its URL reaches it (not whatever listens on the taken port)."""
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        server = PostgresServer()
        server.port = taken
        try:
            server.start()
            assert server.port != taken

            async def ask() -> int:
                connection = await asyncpg.connect(server.admin_url)
                try:
                    return await connection.fetchval("SELECT 1")
                finally:
                    await connection.close()

            assert asyncio.run(ask()) == 1
        finally:
            server.close()
