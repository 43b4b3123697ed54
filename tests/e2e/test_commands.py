"""The real bot's commands outside the game flow: DMs, permissions, rules, reposting the board,
and starting with a missing or rejected token."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.vocabulary import ORNAMENT_NAMES
from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.emulator.process import REPO_ROOT
from tests.e2e.table import Table


async def test_missing_permissions_are_explained_and_nothing_is_stored(
    emulator: Emulator, tholos_bot: BotProcess
):
    """Where the bot can't post boards, the challenger learns which permissions to grant."""
    for channel, missing in (
        ("no-embeds", "Embed Links, Attach Files"),
        ("read-only", "Send Messages"),
    ):
        table = Table(emulator, channel)
        alice, bob = table.people_named("alice", "bob")
        ix = await table.slash(alice, "tholos challenge", opponent=bob)
        assert ix.original is not None and ix.original.ephemeral
        assert missing in ix.original.text, ix.original.text
        assert [m for m in emulator.messages(table.channel) if not m.ephemeral] == []
        table.assert_clean()
    general = Table(emulator)
    alice, bob = general.people_named("alice", "bob")
    assert await general.start_game(alice, bob), "the refused challenges left nothing pending"


async def test_rules_are_private_and_name_this_games_ornaments(
    emulator: Emulator, tholos_bot: BotProcess
):
    """/tholos rules answers only the asker, with the ornaments of the channel's game."""
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    board = await table.start_game(alice, bob, mode="advanced", ornaments=3)
    ix = await table.slash(carol, "tholos rules")
    assert ix.original is not None and ix.original.ephemeral
    embed = ix.original.embeds[0]
    fields = {field["name"]: field["value"] for field in embed["fields"]}
    ornaments = [o for o in table.position(board).ornaments if o]
    shown = fields["Ornaments in this game"]
    assert all(f"**{ORNAMENT_NAMES[ornament]}**" in shown for ornament in ornaments)
    assert "Σ F" in fields["Bonuses"]
    assert [m.id for m in emulator.messages(table.channel, alice) if m.ephemeral] == []
    table.assert_clean()


async def test_board_command_moves_the_controls_to_a_new_message(
    emulator: Emulator, tholos_bot: BotProcess
):
    """/tholos board posts the board again with its controls; the old one loses them."""
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    first = await table.start_game(alice, bob)
    stale_take = table.custom_id(first, ":Tw1:n")
    await table.play("+w1")
    before = table.board
    await table.slash(carol, "tholos board")
    await emulator.wait_for(lambda: table.board.id != before.id, what="the reposted board")
    await tholos_bot.settle()
    assert table.position() == table.position(before)
    assert before.buttons == [] and table.board.buttons
    await table.play("+b1")
    await table.click(bob, first, stale_take, stale=True)
    assert any("out of date" in text for text in table.ephemeral(bob))
    table.assert_clean()


def run_bot(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m bot`` with exactly ``env`` (plus PATH), from ``cwd`` (so no stray .env)."""
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO_ROOT), **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_missing_token_exits_2_with_one_line(tmp_path: Path):
    """Without DISCORD_TOKEN the bot explains itself in one line and exits with status 2."""
    result = run_bot({}, tmp_path)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "DISCORD_TOKEN is not set" in result.stderr


async def test_rejected_token_exits_2_without_logging_it(emulator: Emulator, tmp_path: Path):
    """A token Discord rejects: one clear line, status 2, and the token never printed."""
    env = {**emulator.env(), "DISCORD_TOKEN": "not-the-token", "THOLOS_DB": str(tmp_path / "t.db")}
    result = await asyncio.to_thread(run_bot, env, tmp_path)
    assert result.returncode == 2
    assert "rejected DISCORD_TOKEN" in result.stderr
    assert "not-the-token" not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("program", ["python -m bot", "tholos-bot"])
@pytest.mark.parametrize("option", ["--help", "-h"])
def test_help_prints_the_usage_on_stdout_and_exits_0(tmp_path: Path, program: str, option: str):
    """A newcomer's first try: the usage and the commands on stdout, status 0, no token."""
    command = (
        [sys.executable, "-m", "bot"]
        if program == "python -m bot"
        else [str(Path(sys.executable).with_name("tholos-bot"))]
    )
    result = subprocess.run(
        [*command, option],
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO_ROOT)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("usage: tholos-bot [--help | rebuild-ratings")
    assert "DISCORD_TOKEN" in result.stdout and "backup PATH [--force]" in result.stdout
