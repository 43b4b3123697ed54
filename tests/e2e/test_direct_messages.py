"""Commands only where they work: the server commands are declared for servers only, and
``/tholos-ai`` plays the AI in a server channel or in a direct message with the bot (guild
install and user install), where the whole game is played, survives a kill -9 and is kept in
the player's history.

The bot registers its commands globally here (as in production): guild commands never show
in direct messages.
"""

from __future__ import annotations

import random
import sqlite3

import pytest

from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Member
from tests.e2e.table import (
    FOOTER,
    Table,
    board_part,
    board_position,
    is_board,
    path_of,
    press_paths,
)

GUILD, BOT_DM, PRIVATE_CHANNEL = 0, 1, 2
GUILD_INSTALL, USER_INSTALL = 0, 1


async def global_bot(emulator: Emulator, spawn_bot: SpawnBot) -> BotProcess:
    """The bot with its commands registered globally."""
    bot = spawn_bot(emulator, guild_commands=False)
    await bot.start(sync=True)
    return bot


def dm_boards(emulator: Emulator, member: Member) -> list:
    """The boards in ``member``'s direct message with the bot, oldest first."""
    return [m for m in emulator.messages(emulator.dm_channel(member), member) if is_board(m)]


async def test_commands_are_offered_only_where_they_work(emulator: Emulator, spawn_bot: SpawnBot):
    """The registered commands' contexts and install types: the server commands (admin,
    tournaments' organising) in servers only, with the bot added to a server; /tholos,
    /tholos-ai and /leaderboard everywhere (servers, the DM with the bot, DMs and group DMs),
    installed either way. The app declares both installs. Discord's client offers no server
    command in a DM."""
    bot = await global_bot(emulator, spawn_bot)
    registered = {command["name"]: command for command in emulator.commands(guild=False)}
    for name in ("tholos-admin", "tholos-tournament"):
        assert registered[name]["contexts"] == [GUILD], name
        assert registered[name]["integration_types"] == [GUILD_INSTALL], name
    for name in ("tholos", "tholos-ai", "leaderboard"):
        assert sorted(registered[name]["contexts"]) == [GUILD, BOT_DM, PRIVATE_CHANNEL], name
        assert sorted(registered[name]["integration_types"]) == [GUILD_INSTALL, USER_INSTALL]
    assert set(emulator.application["integration_types_config"]) == {"0", "1"}
    alice = emulator.member("alice")
    dm = emulator.dm_channel(alice)
    for command in ("tholos-admin settings", "tholos-tournament start"):
        with pytest.raises(ValueError):
            await emulator.slash(alice, command, channel=dm)
    assert emulator.violations == []
    assert await bot.stop() == 0


async def test_a_game_against_the_ai_in_a_direct_message(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    """/tholos-ai in the DM with the bot: the board is a layout there, How to play answers,
    the game goes on across a kill -9, ends unrated, and is listed in the player's history on
    a server; its Record is given in the DM."""
    bot = await global_bot(emulator, spawn_bot)
    alice = emulator.member("alice")
    dm = emulator.dm_channel(alice)
    started = await emulator.slash(alice, "tholos-ai", channel=dm, level="easy", first="me")
    assert started.acknowledged and not started.failed
    await emulator.wait_for(lambda: dm_boards(emulator, alice), what="the first board in the DM")
    board = dm_boards(emulator, alice)[-1]
    assert f"<@{alice.id}>, your turn" in board.text, "the player moves first, as asked"
    rules = await emulator.click(
        alice, board, next(b["custom_id"] for b in board.buttons if b.get("label") == "How to play")
    )
    assert rules.original is not None and rules.original.ephemeral
    rng = random.Random(seed)
    killed = False
    while True:
        await emulator.wait_for(
            lambda: (
                "your turn" in dm_boards(emulator, alice)[-1].text
                or "Game over" in dm_boards(emulator, alice)[-1].text
            ),
            what="Alice's turn",
        )
        board = dm_boards(emulator, alice)[-1]
        if "Game over" in board.text:
            break
        position = board_position(board)
        path = path_of(position, rng.choice(position.legal_turns()))
        count = len(dm_boards(emulator, alice))
        for press in press_paths(position, path):
            custom_id = next(
                b["custom_id"] for b in board.buttons if b["custom_id"].endswith(f":{press}:n")
            )
            ix = await emulator.click(alice, board, custom_id)
            assert not ix.failed
        await emulator.wait_for(
            lambda count=count: len(dm_boards(emulator, alice)) > count, what="a board"
        )
        if not killed and count >= 6:  # the AI has moved a few times: kill -9 between turns
            assert await bot.kill() == -9
            await bot.start()
            killed = True
    assert killed
    final = dm_boards(emulator, alice)[-1]
    assert [b["label"] for b in final.buttons] == ["Rematch", "Replay", "Record", "Review"]
    record = await emulator.click(
        alice, final, next(b["custom_id"] for b in final.buttons if b["label"] == "Record")
    )
    assert record.original is not None and record.original.attachments
    text = record.original.attachments[0].data.decode()
    assert board_part(final, FOOTER).rsplit(" · ", 1)[1] in text
    table = Table(emulator)
    history = await table.slash(alice, "tholos history")
    assert history.original is not None and "🤖" in history.original.text
    assert "/channels/@me/" in history.original.text
    assert emulator.violations == []
    assert await bot.stop() == 0
    with sqlite3.connect(bot.db_path) as db:
        rows = db.execute("SELECT guild_id, channel_id, status, rated FROM games").fetchall()
    assert rows == [(0, dm.id, "finished", 0)]


async def test_a_user_install_finds_the_ai_in_the_dm(emulator: Emulator, spawn_bot: SpawnBot):
    """A member who installed the app to their account uses /tholos-ai in the DM with the bot
    (the interaction authorised by their user install) and gets a game there; in a server
    channel /tholos-ai starts an AI game as challenging the bot does."""
    bot = await global_bot(emulator, spawn_bot)
    carol = emulator.member("carol")
    emulator.install_for_user(carol)
    dm = emulator.dm_channel(carol)
    ix = await emulator.slash(carol, "tholos-ai", channel=dm, level="easy")
    assert ix.acknowledged and not ix.failed and ix.context == BOT_DM
    assert ix.owners.get(str(USER_INSTALL)) == str(carol.id)
    await emulator.wait_for(lambda: dm_boards(emulator, carol), what="carol's board in the DM")
    table = Table(emulator)
    await table.slash(carol, "tholos-ai", level="easy")
    await emulator.wait_for(lambda: table.boards(), what="the AI game in the channel")
    assert f"<@{emulator.bot_user.id}>" in table.header(), "the bot plays the game"
    table.assert_clean()
    assert await bot.stop() == 0
