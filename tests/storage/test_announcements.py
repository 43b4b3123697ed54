"""Changes announced by the storage: a game's id once its turn, start or end is committed —
to this process's listeners (both backends) and, with PostgreSQL, to every other process's, also
after the listening connection was lost."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.base.people import Caller
from bot.features.play.service import OutdatedBoardError
from bot.storage import open_database
from bot.storage.db import Database
from bot.storage.games.changes import GAMES_TOPIC
from tests.databases import Services, services_on
from tests.features.play.test_service import play, started
from tests.postgres import PostgresServer

PATIENCE = 30.0
"""How long a test waits for an announcement (the wait ends as soon as it comes)."""


class Heard:
    """What a listener was told, and a way to wait for the next."""

    def __init__(self) -> None:
        self.payloads: asyncio.Queue[str | None] = asyncio.Queue()

    def __call__(self, payload: str | None) -> None:
        self.payloads.put_nowait(payload)

    async def next(self) -> str | None:
        return await asyncio.wait_for(self.payloads.get(), PATIENCE)


async def test_a_game_started_played_and_ended_is_announced_after_commit(
    service: Services, database: Database
):
    """The game's id for its start, each turn and its end; nothing for a change refused."""
    heard = Heard()
    stop = await database.listen(GAMES_TOPIC, heard)
    game = await started(service)
    assert await heard.next() == str(game.id)
    turn = str(next(iter(game.position.legal_turns())))
    played = await play(service, game, turn)
    assert await heard.next() == str(game.id)
    with pytest.raises(OutdatedBoardError):  # the old version: refused, not announced
        await service.play.resign(game.id, game.version, Caller(game.white_id, game.channel_id))
    ended = await service.play.resign(
        played.game.id, played.game.version, Caller(game.white_id, game.channel_id)
    )
    assert ended.status == "finished"
    assert await heard.next() == str(game.id)
    assert heard.payloads.empty()
    stop()
    await started(service)
    assert heard.payloads.empty()  # no longer listening


@pytest.fixture
async def second_process(
    postgres_server: PostgresServer,
) -> AsyncIterator[tuple[Database, Database]]:
    """Two processes' connections to one new PostgreSQL database."""
    url = await postgres_server.create_database()
    first, second = await open_database(url), await open_database(url)
    yield first, second
    await first.close()
    await second.close()


async def test_another_process_hears_postgres_changes_also_after_its_connection_was_lost(
    second_process: tuple[Database, Database], clock
):
    """A turn stored by one process reaches the other's listener; when that listener's
    connection is killed, it is told that it may have missed some, then hears again."""
    first, second = second_process
    heard = Heard()
    await second.listen(GAMES_TOPIC, heard)
    service = services_on(first, clock)
    game = await started(service)
    assert await heard.next() == str(game.id)
    killed = await first.fetchone(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()"
    )
    assert killed is not None and killed[0] is True
    assert await heard.next() is None  # back, and told it may have missed announcements
    turn = str(next(iter(game.position.legal_turns())))
    await play(service, game, turn)
    assert await heard.next() == str(game.id)
