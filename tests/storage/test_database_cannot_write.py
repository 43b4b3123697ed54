"""``DatabaseCannotWrite``: a database that refuses writes — a full disk, a read-only database —
on both backends: one typed error, nothing lost, ``/healthz`` says so, a page is told, and
writes go on once space or rights are back."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import asyncpg
import pytest

from bot.discord.answers import CANNOT_SAVE
from bot.health.server import CANNOT_WRITE, database_health
from bot.storage import open_database
from bot.storage.db import (
    Database,
    DatabaseCannotWrite,
    get_meta,
    set_meta,
)
from bot.storage.sqlite import SqliteDatabase
from tests.databases import Clock, services_on
from tests.features.play.test_service import ALICE, CAROL, play, started
from tests.web import test_live
from tests.web.test_live import Live, new_game, open_page, path_of

ROLES = itertools.count(1)
Refuse = Callable[[bool], Awaitable[None]]
"""Make the database refuse writes (``True``) or take them again (``False``)."""


async def _page_count(database: Database) -> int:
    return (await database.fetchone("PRAGMA page_count"))[0]


async def _cap_pages(database: Database, pages: int) -> None:
    """``PRAGMA max_page_count`` on the writer connection: the file may grow no further (a
    per-connection setting, so it is set inside a write transaction, which runs there)."""
    async with database.transaction() as transaction:
        await transaction.fetchone(f"PRAGMA max_page_count = {pages}")


async def test_a_full_sqlite_file_refuses_a_write_and_keeps_what_it_had(tmp_path):
    database = await open_database(str(tmp_path / "full.db"))
    try:
        await set_meta(database, "kept", "before")
        await _cap_pages(database, await _page_count(database))
        with pytest.raises(DatabaseCannotWrite, match="database or disk is full"):
            async with database.transaction() as transaction:
                await transaction.execute("UPDATE meta SET value = 'changed' WHERE key = 'kept'")
                await transaction.execute(
                    "INSERT INTO meta (key, value) VALUES ('big', ?)", ("x" * 200_000,)
                )
        assert database.cannot_write == "database or disk is full"
        assert await get_meta(database, "kept") == "before"  # the whole transaction undone
        assert await get_meta(database, "big") is None

        await _cap_pages(database, 1_000_000)  # space is back
        await set_meta(database, "big", "x" * 200_000)
        assert database.cannot_write is None
        assert await get_meta(database, "big") == "x" * 200_000
    finally:
        await database.close()


TABLES = "ALL TABLES IN SCHEMA public"


async def player_role(database_url: str) -> tuple[asyncpg.Connection, str]:
    """The PostgreSQL database of ``database_url`` migrated by its owner, and a role of its own
    that may read and write its rows (not create tables): the owner's connection, and the URL
    to connect as that role."""
    await (await open_database(database_url)).close()
    owner = await asyncpg.connect(database_url)
    role, password = f"player_{next(ROLES)}", "player-password"
    name = urlsplit(database_url).path.lstrip("/")
    await owner.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
    await owner.execute(f'GRANT CONNECT ON DATABASE "{name}" TO {role}')
    await owner.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    await owner.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {TABLES} TO {role}")
    await owner.execute(f"GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {role}")
    parts = urlsplit(database_url)
    host = parts.netloc.rpartition("@")[2]
    return owner, urlunsplit(parts._replace(netloc=f"{role}:{password}@{host}"))


async def write_rights(owner: asyncpg.Connection, role_url: str, *, granted: bool) -> None:
    """Grant the role of ``role_url`` its rights to write rows again, or revoke them."""
    role = urlsplit(role_url).username
    if granted:
        await owner.execute(f"GRANT INSERT, UPDATE, DELETE ON {TABLES} TO {role}")
    else:
        await owner.execute(f"REVOKE INSERT, UPDATE, DELETE ON {TABLES} FROM {role}")


@asynccontextmanager
async def refusing_database(database_url: str) -> AsyncIterator[tuple[Database, Refuse]]:
    """A migrated database and how to make it refuse writes: on SQLite, ``PRAGMA query_only``
    on its writer connection ("attempt to write a readonly database", as a read-only file
    gives); on PostgreSQL, a role of its own whose write rights are revoked (and granted
    back)."""
    if not database_url.startswith("postgresql://"):
        database = await open_database(database_url)
        assert isinstance(database, SqliteDatabase)
        writer = database._writer.connection  # the one connection that writes

        async def refuse_sqlite(refused: bool) -> None:
            async with database._writer.turn:  # between transactions
                await writer.run(writer.execute, f"PRAGMA query_only = {int(refused)}")

        try:
            yield database, refuse_sqlite
        finally:
            await database.close()
        return
    owner, role_url = await player_role(database_url)
    database = await open_database(role_url)

    async def refuse_postgres(refused: bool) -> None:
        await write_rights(owner, role_url, granted=not refused)

    try:
        yield database, refuse_postgres
    finally:
        await database.close()
        await owner.close()


async def test_a_turn_on_a_database_that_refuses_writes_loses_nothing(database_url):
    """The turn is refused with DatabaseCannotWrite, the game is as it was, /healthz says
    ``cannot_write``; once writes are taken again, /healthz is ok and the same turn plays."""
    async with refusing_database(database_url) as (database, refuse):
        service = services_on(database, Clock())
        game = await started(service)
        turn = str(next(iter(game.position.legal_turns())))
        assert await database_health(database) == "ok"

        await refuse(True)
        with pytest.raises(DatabaseCannotWrite):
            await play(service, game, turn)
        assert database.cannot_write is not None
        after = await service.play.games.game(game.id)
        assert after is not None and after.version == game.version
        assert after.position == game.position
        assert await database_health(database) == CANNOT_WRITE  # its probe is refused too

        await refuse(False)
        assert await database_health(database) == "ok"  # its probe wrote
        assert database.cannot_write is None
        played = await play(service, game, turn)
        assert played.game.version > game.version


live = test_live.live
"""The live board's server, over this module's :func:`database`."""
http = test_live.http


@pytest.fixture
async def refusable(database_url: str) -> AsyncIterator[tuple[Database, Refuse]]:
    """The database of the test (:func:`refusing_database`) and how to make it refuse."""
    async with refusing_database(database_url) as refusable:
        yield refusable


@pytest.fixture
def database(refusable: tuple[Database, Refuse]) -> Database:
    """The live board's database (``live``): the one that can be made to refuse writes."""
    return refusable[0]


async def test_the_page_is_told_it_cannot_save_and_stays_connected(
    live: Live, http: aiohttp.ClientSession, refusable: tuple[Database, Refuse], seed: int
):
    """A turn and a new game asked from pages while writes are refused: an error frame says so
    in the member's words, nothing changes, the sockets stay; then the same turn plays."""
    refuse = refusable[1]
    game = await new_game(live)
    player = await open_page(http, live, live.session(ALICE))
    board = await player.frame("board")
    lobby = await open_page(http, live, live.session(CAROL, channel_id=77))
    await lobby.frame("lobby")
    turn = {"type": "turn", "game": game.id, "version": board["version"]}
    path = path_of(game, random.Random(seed))

    await refuse(True)
    await player.send({**turn, "path": path})
    assert await player.frame("error") == {
        "type": "error",
        "code": "database",
        "message": CANNOT_SAVE,
    }
    await lobby.send({"type": "play_ai", "level": "easy"})
    assert (await lobby.frame("error"))["message"] == CANNOT_SAVE
    stored = await live.app.stores.games.game(game.id)
    assert stored is not None and stored.version == game.version

    await refuse(False)
    await player.send({**turn, "path": path})
    assert (await player.frame("board"))["version"] > board["version"]
    await lobby.send({"type": "play_ai", "level": "easy"})
    assert (await lobby.frame("board"))["game"] != game.id
    assert not player.socket.closed and not lobby.socket.closed
