"""Self-tests of the bot-process fixture: SIGTERM, SIGKILL, restart on the same database."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.bots import TINYBOT, SpawnBot
from tests.e2e.emulator import Emulator


async def test_buttons_work_after_kill_and_restart(emulator: Emulator, spawn_bot: SpawnBot) -> None:
    bot = spawn_bot(emulator, TINYBOT)
    await bot.start(sync=True)
    alice = emulator.member("alice")
    board = (await emulator.slash(alice, "tiny board")).original
    assert board is not None
    await emulator.click(alice, board, "tiny:inc")
    assert await bot.kill() == -9
    await bot.start()
    ix = await emulator.click(emulator.member("bob"), board, "tiny:inc")
    assert ix.ack_type == 7 and board.content == "count 2", "the count lives in THOLOS_DB"
    assert await bot.restart() == 0
    await emulator.click(alice, board, "tiny:inc")
    assert board.content == "count 3"
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert emulator.violations == []
    assert bot.log().count("--- start") == 3


async def test_global_commands_without_a_guild_id(emulator: Emulator, spawn_bot: SpawnBot) -> None:
    bot = spawn_bot(emulator, TINYBOT, guild_commands=False)
    await bot.start(sync=True)
    assert [c["name"] for c in emulator.commands(guild=False)] == ["tiny", "tiny-reset"]
    assert emulator.commands() == []
    ix = await emulator.slash(emulator.member("bob"), "tiny ping")
    assert "guild_id" not in ix.data and ix.ack_type == 4
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_two_running_instances_answer_twice(
    emulator: Emulator, spawn_bot: SpawnBot, tmp_path: Path
) -> None:
    first = spawn_bot(emulator, TINYBOT)
    second = spawn_bot(emulator, TINYBOT, db_path=tmp_path / "second.db")
    await first.start()
    await second.start()
    ix = await emulator.slash(emulator.member("alice"), "tiny ping")
    await emulator.wait_for(lambda: ix.violations, what="the second answer")
    assert [(v.rule, v.code) for v in ix.violations] == [("interaction.double-ack", 40060)]
    assert [m.content for m in ix.messages] == ["pong"]
