"""How Discord opens the analysis board, end to end (the bot's own process, the emulator as
Discord): ``/tholos analyse [game]`` and a finished board's **Analyse** find the finished game
as ``/tholos replay`` does, store the ask for the page the member opens next in that channel,
and launch the Activity (LAUNCH_ACTIVITY). A game still being played, a game of another server
or no finished game at all is refused privately and stores nothing. Where the bot does not serve
the live board there is no Analyse button and the command says so; where Discord refuses the
launch (Activities off) the member is told how to turn them on, and nothing breaks."""

from __future__ import annotations

import random
import sqlite3

import pytest

from bot.words.phrases import LIVE_UNAVAILABLE
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Interaction, Member, Message
from tests.e2e.table import Table
from tests.features.live.test_e2e_board import free_port

LAUNCH_ACTIVITY = 12
"""The interaction response type that launches the app's Activity."""
CHANNEL_MESSAGE = 4
AFTER_GAME = ["Rematch", "Replay", "Record", "Review"]
"""The final board's buttons wherever the bot does not serve the live board."""
LIVE_AFTER_GAME = [*AFTER_GAME, "Analyse", "Open the live board"]
NOT_FINISHED = "That isn't a finished game of this server."


def asks(bot: BotProcess) -> list[tuple[int, int, int, float]]:
    """The stored page requests: member, channel, game and when, in that order."""
    with sqlite3.connect(bot.db_path) as database:
        return database.execute(
            "SELECT user_id, channel_id, game_id, requested_at FROM page_requests ORDER BY 1, 2"
        ).fetchall()


def asked(bot: BotProcess) -> set[tuple[int, int, int]]:
    """Who asked to analyse which game where."""
    return {(user, channel, game) for user, channel, game, _ in asks(bot)}


def game_of(board: Message) -> int:
    """The game a board's buttons act on (every button carries its id)."""
    ids = {int(button["custom_id"].split(":")[2]) for button in board.buttons}
    assert len(ids) == 1, ids
    return ids.pop()


async def finished_game(table: Table, white: Member, black: Member, rng: random.Random) -> int:
    """``white`` and ``black`` play two turns here, then ``black`` resigns: the game's id."""
    await table.start_game(white, black)
    game_id = game_of(table.board)
    await play_then_resign(table, black, rng)
    return game_id


async def play_then_resign(table: Table, black: Member, rng: random.Random) -> None:
    """Two random turns at ``table``, then ``black`` resigns; once the final board is there."""
    for _ in range(2):
        await table.play(rng.choice(table.position().legal_turns()))
    ask = await table.slash(black, "tholos resign")
    assert ask.original is not None
    await table.click(black, ask.original, table.labelled(ask.original, "Yes, resign"))
    await table.emu.wait_for(lambda: table.status().startswith("Game over."), what="the end")


def launched(ix: Interaction) -> bool:
    """The bot answered ``ix`` by launching the Activity, and said nothing."""
    return ix.ack_type == LAUNCH_ACTIVITY and ix.activity is not None and ix.messages == []


def told(ix: Interaction) -> str:
    """The one private message the bot answered ``ix`` with."""
    (message,) = ix.messages
    assert message.ephemeral and ix.activity is None, message.text
    return message.text


async def test_analyse_stores_the_ask_and_launches_the_live_board(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    """No game yet: refused. A game being played: refused. Once over, its board's Analyse (a
    spectator's press) and ``/tholos analyse game:`` ask for it, ``/tholos analyse`` for the
    member's last finished game here, each replacing the member's earlier ask in the channel;
    a game of another server is refused and changes nothing."""
    rng = random.Random(seed)
    emulator.enable_activities()
    other = emulator.add_guild()
    bot = spawn_bot(emulator, env={"THOLOS_WEB_PORT": str(free_port())}, guild_commands=False)
    await bot.start(sync=True)
    table, elsewhere = Table(emulator), Table(emulator, guild=other)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    here = table.channel.id

    assert told(await table.slash(alice, "tholos analyse")) == (
        "You have no finished game in this channel yet."
    )
    await table.start_game(alice, bob)
    playing = game_of(table.board)
    assert told(await table.slash(alice, "tholos analyse", game=playing)) == NOT_FINISHED
    assert asks(bot) == []

    await table.play(rng.choice(table.position().legal_turns()))
    ask = await table.slash(bob, "tholos resign")
    assert ask.original is not None
    await table.click(bob, ask.original, table.labelled(ask.original, "Yes, resign"))
    await emulator.wait_for(lambda: table.status().startswith("Game over."), what="the end")
    first = table.board
    assert [button["label"] for button in first.buttons] == LIVE_AFTER_GAME
    assert launched(await table.click(carol, first, table.labelled(first, "Analyse")))
    assert asked(bot) == {(carol.id, here, playing)}

    second = await finished_game(table, bob, alice, rng)
    assert launched(await table.slash(alice, "tholos analyse"))
    assert launched(await table.slash(bob, "tholos analyse", game=playing))
    assert asked(bot) == {
        (carol.id, here, playing),
        (alice.id, here, second),
        (bob.id, here, playing),
    }
    assert launched(await table.slash(alice, "tholos analyse", game=playing))
    assert asked(bot) == {
        (carol.id, here, playing),
        (alice.id, here, playing),
        (bob.id, here, playing),
    }
    suggested = await table.autocomplete(alice, "tholos analyse", "game")
    assert suggested.choices is not None
    assert [choice["value"] for choice in suggested.choices] == [second, playing]

    foreign = await finished_game(elsewhere, alice, bob, rng)
    before = asks(bot)
    assert told(await table.slash(alice, "tholos analyse", game=foreign)) == NOT_FINISHED
    assert told(await elsewhere.slash(alice, "tholos analyse", game=second)) == NOT_FINISHED
    assert asks(bot) == before, "a refusal stores nothing"
    assert launched(await elsewhere.slash(alice, "tholos analyse"))
    assert (alice.id, elsewhere.channel.id, foreign) in asked(bot)
    for place in (table, elsewhere):
        place.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


@pytest.mark.parametrize("where", ["no-live-board", "activities-off"])
async def test_where_the_live_board_cannot_open_the_member_is_told_why(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int, where: str
):
    """A bot that does not serve the live board offers no Analyse and says so to the command,
    storing nothing. One that serves it where Discord refuses the launch (Activities off for
    the app) answers the command, Analyse and Open the live board alike with how to turn them
    on; the ask stored before the launch is left to go stale, and the bot goes on working."""
    rng = random.Random(seed)
    env = {} if where == "no-live-board" else {"THOLOS_WEB_PORT": str(free_port())}
    if where == "no-live-board":
        emulator.enable_activities()  # Discord would launch it: the bot has nothing to serve
    bot = spawn_bot(emulator, env=env)
    await bot.start(sync=True)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    game_id = await finished_game(table, alice, bob, rng)
    final = table.board
    command = await table.slash(alice, "tholos analyse")
    if where == "no-live-board":
        assert [button["label"] for button in final.buttons] == AFTER_GAME
        said = told(command)
        assert "live board isn't switched on" in said
        assert "/tholos challenge" in said or "</tholos challenge:" in said
        assert asks(bot) == [] and emulator.violations == []
    else:
        assert [button["label"] for button in final.buttons] == LIVE_AFTER_GAME
        presses = [
            await table.click(bob, final, table.labelled(final, label))
            for label in ("Analyse", "Open the live board")
        ]
        for ix in (command, *presses):
            assert ix.ack_type == CHANNEL_MESSAGE and told(ix) == LIVE_UNAVAILABLE
        assert "Activities → Settings" in LIVE_UNAVAILABLE and "Use Activities" in LIVE_UNAVAILABLE
        assert [violation.rule for violation in emulator.violations] == [
            "interaction.launch-activity"
        ] * 3, "Discord refused the three launches"
        assert asked(bot) == {
            (alice.id, table.channel.id, game_id),
            (bob.id, table.channel.id, game_id),
        }
    assert emulator.activity_instance(table.channel) is None
    assert table.failed() == []
    record = await table.slash(alice, "tholos record")
    assert f"game #{game_id}" in told(record) and record.messages[0].attachments
    assert await bot.stop() == 0
    bot.assert_clean_log()
