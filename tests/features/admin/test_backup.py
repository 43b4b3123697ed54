"""``python -m bot backup`` and ``restore`` (``bot/features/admin/backup.py``): a consistent copy of
a
SQLite database being written to, and a restore that refuses what it must and destroys nothing."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.base.game_options import GameOptions
from bot.base.people import Caller, Person
from bot.features.admin.backup import BackupError, backup, restore
from bot.features.play.service import StepShown, TurnPlayed
from bot.storage import open_database
from bot.storage.db import DatabaseUnavailable
from bot.storage.locks import lock_database
from bot.storage.migrations import MIGRATIONS
from engine import Position
from engine.builder import turn_path
from tests.databases import Clock, Services, services_on

GUILD, ALICE, BOB = 1, 100, 200


def replayed(path: Path) -> dict[int, int]:
    """Check a SQLite database as the bot would need it: ``PRAGMA integrity_check`` passes, and
    every game's turns are numbered 1..n, each applies to the position before it, and they end
    in the game's stored position. The plies of each game."""
    with closing(sqlite3.connect(path)) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        plies = {}
        for game_id, start, stored, count in connection.execute(
            "SELECT id, start_position, position, plies FROM games"
        ).fetchall():
            turns = connection.execute(
                "SELECT ply, turn, position_after FROM turns WHERE game_id = ? ORDER BY ply",
                (game_id,),
            ).fetchall()
            assert [ply for ply, _, _ in turns] == list(range(1, count + 1))
            position = Position.parse(start)
            for _, turn, after in turns:
                position = position.apply(turn)
                assert str(position) == after
            assert str(position) == stored
            plies[game_id] = count
    return plies


async def new_game(service: Services, channel: int):
    """Alice challenges Bob in ``channel``; Bob accepts; the game."""
    made = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=channel,
        challenger=Person(ALICE, "Alice"),
        opponent=Person(BOB, "Bob"),
        options=GameOptions(colour="white", first="me"),
    )
    game = (await service.challenges.answer(made.id, Caller(BOB, channel), "accept")).game
    assert game is not None
    return game


async def play(service: Services, game, turn: str) -> TurnPlayed:
    """The player to move plays ``turn`` by its button path (skipping a bonus it leaves out)."""
    parsed = next(t for t in game.position.legal_turns() if str(t) == turn)
    path = "".join(turn_path(game.position, parsed))
    caller = Caller(game.to_move, game.channel_id)
    result = await service.play.choose(game.id, game.version, path, caller)
    if isinstance(result, StepShown):
        result = await service.play.choose(game.id, game.version, path + "-", caller)
    assert isinstance(result, TurnPlayed)
    return result


async def history(path: Path, clock: Clock, *, games: int = 2, turns: int = 6) -> None:
    """``games`` games of ``turns`` random turns each in the SQLite file ``path``."""
    database = await open_database(str(path))
    service = services_on(database, clock)
    rng = random.Random(games)
    for channel in range(10, 10 + games):
        game = await new_game(service, channel)
        for _ in range(turns):
            game = (await play(service, game, str(rng.choice(game.position.legal_turns())))).game
    await database.close()


def plain_count(path: Path, table: str = "games") -> int:
    """The rows of ``table`` in a SQLite file, read with plain sqlite3."""
    with closing(sqlite3.connect(path)) as connection:
        return connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


@pytest.mark.parametrize("pages", [8, 4096], ids=["small-steps", "default-steps"])
async def test_a_backup_while_turns_are_stored_is_consistent(tmp_path, clock, pages):
    """Games are played through the bot's storage, on its own connection, all through the
    backup (small steps: the writes restart it until it copies in one step). The copy passes
    ``integrity_check`` and every game in it replays, and it holds a state between the one
    before and the one after the backup."""
    live = tmp_path / "tholos.db"
    database = await open_database(str(live))
    with closing(sqlite3.connect(live)) as padding, padding:  # 24 MB more to copy: many steps
        padding.execute("CREATE TABLE padding (data BLOB)")
        padding.executemany("INSERT INTO padding VALUES (randomblob(4000))", [()] * 6000)
    service = services_on(database, clock)
    stored = 0
    started = asyncio.Event()
    done = asyncio.Event()

    async def writer() -> None:
        nonlocal stored
        rng = random.Random(1)
        games = [await new_game(service, channel) for channel in (10, 11, 12)]
        while not done.is_set():
            index = rng.randrange(len(games))
            game = games[index]
            if not game.is_active:
                game = await new_game(service, 20 + stored)
            turn = str(rng.choice(game.position.legal_turns()))
            games[index] = (await play(service, game, turn)).game
            stored += 1
            if stored == 10:
                started.set()

    writing = asyncio.create_task(writer())
    try:
        waiting = asyncio.create_task(started.wait())
        await asyncio.wait([writing, waiting], return_when=asyncio.FIRST_COMPLETED)
        if writing.done():
            await writing  # the writer's error
        before = stored
        copied = await asyncio.to_thread(backup, live, tmp_path / "copy.db", pages=pages)
        after = stored
    finally:
        done.set()
        await writing
        await database.close()
    assert after > before, "turns were stored while the backup ran"
    plies = replayed(tmp_path / "copy.db")
    assert copied.turns == sum(plies.values()) and copied.games == len(plies)
    assert 10 <= copied.turns <= after
    assert sum(replayed(live).values()) == stored
    assert copied.schema == len(MIGRATIONS)


async def run(monkeypatch, tmp_path: Path, database: str, *arguments: str) -> int:
    """``python -m bot ARGUMENTS`` in-process (on a thread: it runs its own event loop) with
    ``THOLOS_DB=database``, from ``tmp_path`` (so that no ``.env`` is read); the exit status."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("THOLOS_DB", database)
    monkeypatch.setattr(sys, "argv", ["tholos-bot", *arguments])
    return await asyncio.to_thread(main)


async def test_the_backup_command_and_its_refusals(tmp_path, clock, monkeypatch, capsys):
    """It says what it copied; a directory gets a dated file; it refuses a PostgreSQL URL
    (naming pg_dump), an existing file unless --force, the database itself, a database that is
    not there — each with status 2 and nothing written."""
    await history(tmp_path / "tholos.db", clock)
    db = str(tmp_path / "tholos.db")
    assert await run(monkeypatch, tmp_path, db, "backup", "first.db") == 0
    said = capsys.readouterr().out
    assert "to first.db: 2 games, 12 turns" in said and " s." in said
    (tmp_path / "dated").mkdir()
    assert await run(monkeypatch, tmp_path, db, "backup", "dated") == 0
    [dated] = (tmp_path / "dated").iterdir()
    assert dated.name.startswith("tholos-") and dated.suffix == ".db"
    assert replayed(dated) == replayed(tmp_path / "first.db")

    (tmp_path / "taken.db").write_bytes(b"keep me")
    refusals = [
        ("postgresql://tholos:secret@db/tholos", ("backup", "x.db"), "pg_dump -Fc"),
        (db, ("backup", "taken.db"), "already exists"),
        (db, ("backup", db, "--force"), "the database itself"),
        (str(tmp_path / "none.db"), ("backup", "x.db"), "no database at"),
        (db, ("backup", "--force"), "usage:"),
    ]
    for database, arguments, message in refusals:
        assert await run(monkeypatch, tmp_path, database, *arguments) == 2, arguments
        error = capsys.readouterr().err
        assert message in error and "secret" not in error, (arguments, error)
    assert (tmp_path / "taken.db").read_bytes() == b"keep me"
    assert not (tmp_path / "x.db").exists() and not (tmp_path / "none.db").exists()
    assert await run(monkeypatch, tmp_path, db, "backup", "--force", "taken.db") == 0
    assert replayed(tmp_path / "taken.db") == replayed(tmp_path / "first.db")
    assert not [path for path in tmp_path.iterdir() if path.name.endswith(".partial")]


async def test_restore_refuses_while_the_database_is_in_use(tmp_path, clock):
    """While the database is open through the bot's storage (a bot, a tholos-bot command),
    restore refuses and changes nothing; while a restore holds the database, the bot cannot
    open it."""
    await history(tmp_path / "old.db", clock, games=1)
    backup(tmp_path / "old.db", tmp_path / "backup.db")
    live = tmp_path / "tholos.db"
    await history(live, clock, games=3)
    database = await open_database(str(live))
    with pytest.raises(BackupError, match="in use"):
        restore(tmp_path / "backup.db", live)
    await database.close()
    assert plain_count(live) == 3
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "backup.db",
        "old.db",
        "old.db.lock",
        "tholos.db",
        "tholos.db.lock",
    ]
    restoring = lock_database(live, exclusive=True)
    assert restoring is not None
    with pytest.raises(DatabaseUnavailable, match="being restored"):
        await open_database(str(live))
    restoring.close()


async def test_restore_keeps_the_database_it_replaces_with_its_wal(tmp_path, clock):
    """The database left by a crashed bot (committed turns still only in its ``-wal``) is kept
    whole as ``<db>.before-restore-<time>``; the restored one is the backup's, self-contained,
    and the bot's storage opens it and plays on."""
    await history(tmp_path / "old.db", clock, games=1)
    backup(tmp_path / "old.db", tmp_path / "backup.db")
    await history(tmp_path / "running.db", clock, games=3)
    crashed = sqlite3.connect(tmp_path / "running.db", isolation_level=None)
    crashed.execute("PRAGMA wal_autocheckpoint = 0")
    crashed.execute("DELETE FROM turns WHERE game_id = 3")
    crashed.execute("UPDATE games SET plies = 0, position = start_position WHERE id = 3")
    live = tmp_path / "tholos.db"
    for suffix in ("", "-wal"):  # the files as a kill -9 leaves them (the connection open)
        shutil.copyfile(f"{tmp_path / 'running.db'}{suffix}", f"{live}{suffix}")
    crashed.close()
    assert os.path.getsize(f"{live}-wal") > 0

    restored = restore(tmp_path / "backup.db", live, stamp=lambda: "T1")
    kept = tmp_path / "tholos.db.before-restore-T1"
    assert restored.kept == kept and restored.games == 1 and restored.turns == 6
    assert replayed(kept) == {1: 6, 2: 6, 3: 0}, "the -wal's turns are in the kept database"
    assert replayed(live) == {1: 6}
    assert not any(
        Path(f"{path}{suffix}").exists()
        for path in (live, kept)
        for suffix in (
            "-wal",
            "-shm",
        )
    )
    assert restore(tmp_path / "backup.db", live, stamp=lambda: "T1").kept == Path(f"{kept}-2")
    database = await open_database(str(live))
    service = services_on(database, clock)
    game = await service.play.games.game(1)
    assert game is not None and game.plies == 6
    played = await play(service, game, str(game.position.legal_turns()[0]))
    assert played.game.plies == 7
    await database.close()


def damaged(good: Path, path: Path) -> Path:
    """A copy of the database ``good`` with a page in its middle overwritten with noise."""
    data = bytearray(good.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    middle = len(data) // page // 2 * page
    data[middle : middle + page] = random.Random(3).randbytes(page)
    path.write_bytes(bytes(data))
    return path


async def test_restore_refuses_a_bad_backup(tmp_path, clock, monkeypatch, capsys):
    """A damaged backup, a file that is no database, a database of another program, one of a
    newer bot, a PostgreSQL THOLOS_DB, a missing file: refused with status 2, the database
    untouched, no file left behind."""
    await history(tmp_path / "old.db", clock, games=4, turns=30)
    backup(tmp_path / "old.db", tmp_path / "good.db")
    live = tmp_path / "tholos.db"
    await history(live, clock, games=1)
    before = live.read_bytes()
    (tmp_path / "text.db").write_text("not a database\n" * 100)
    with closing(sqlite3.connect(tmp_path / "other.db")) as other, other:
        other.execute("CREATE TABLE notes (text TEXT)")
    shutil.copyfile(tmp_path / "good.db", tmp_path / "newer.db")
    with closing(sqlite3.connect(tmp_path / "newer.db")) as newer, newer:
        newer.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    refusals = [
        (str(live), damaged(tmp_path / "good.db", tmp_path / "damaged.db"), "damaged"),
        (str(live), tmp_path / "text.db", "not a SQLite database"),
        (str(live), tmp_path / "other.db", "not a Tholos database"),
        (str(live), tmp_path / "newer.db", "upgrade the bot"),
        (str(live), tmp_path / "missing.db", "no backup at"),
        ("postgresql://tholos:secret@db/tholos", tmp_path / "good.db", "pg_restore"),
    ]
    files = sorted(tmp_path.iterdir())
    for database, backup_file, message in refusals:
        assert await run(monkeypatch, tmp_path, database, "restore", str(backup_file)) == 2
        error = capsys.readouterr().err
        assert message in error and "secret" not in error, (backup_file, error)
    assert live.read_bytes() == before
    assert sorted(tmp_path.iterdir()) == files
    assert await run(monkeypatch, tmp_path, str(live), "restore", "good.db") == 0
    assert "Restored good.db into" in capsys.readouterr().out
    assert replayed(live) == replayed(tmp_path / "old.db")
