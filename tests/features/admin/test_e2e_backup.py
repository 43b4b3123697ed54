"""``python -m bot backup`` while the real bot plays, and ``restore`` after it stopped: the game
goes on from the backed-up position to its end."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Emulator
from tests.e2e.table import Table
from tests.e2e.test_game_flow import final_turns, play_out


async def tholos_bot_command(cwd: Path, database: Path, *arguments: str) -> tuple[int, str, str]:
    """``python -m bot ARGUMENTS`` as its own process with ``THOLOS_DB=database`` (no token),
    from ``cwd``: the exit status, stdout and stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *arguments,
        cwd=cwd,
        env={"PATH": os.environ.get("PATH", ""), "THOLOS_DB": str(database)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_a_backup_taken_mid_game_is_restored_and_the_game_finished(
    emulator: Emulator, spawn_bot: SpawnBot, tmp_path: Path, seed: int
):
    """A backup taken while the bot runs, turns played after it, the bot stopped; a restore
    refused while a bot has the database open, then done; the restarted bot shows the
    backed-up position on ``/tholos board`` and the game is played to its end."""
    bot = spawn_bot(emulator)
    await bot.start(sync=True)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await table.start_game(alice, bob)
    turns, _ = final_turns(seed)
    for turn in turns[:8]:
        await table.play(turn)
    await bot.settle()
    backed_up = table.position()
    status, out, err = await tholos_bot_command(tmp_path, bot.db_path, "backup", "backup.db")
    assert status == 0, err
    assert "1 games, 8 turns" in out
    for turn in turns[8:14]:
        await table.play(turn)
    assert table.position() != backed_up
    assert await bot.stop() == 0

    other = spawn_bot(emulator)
    await other.start()
    status, _, err = await tholos_bot_command(tmp_path, bot.db_path, "restore", "backup.db")
    assert status == 2 and "is in use" in err
    assert await other.stop() == 0
    status, out, err = await tholos_bot_command(tmp_path, bot.db_path, "restore", "backup.db")
    assert status == 0, err
    assert "1 games, 8 turns" in out
    [kept] = tmp_path.glob("tholos.db.before-restore-*")
    assert kept.stat().st_size > 0

    await bot.start()
    before = table.board
    await table.slash(bob, "tholos board")
    await emulator.wait_for(lambda: table.board.id != before.id, what="the board posted again")
    assert table.position() == backed_up
    assert table.mover().id == (alice, bob)[backed_up.turn].id  # Alice plays White
    await play_out(table, seed)
    assert table.status().startswith("Game over.")
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()
    other.assert_clean_log()
