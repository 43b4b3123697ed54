"""Play anywhere on Discord: whole games between members where the bot is not — a DM between two
members, a group DM of three (one watching), a server that never added the bot — reached by one
member's install of the app. Every board is an answer to a press (the bot cannot post there);
the bot is killed (kill -9) at random moments and the next press carries on; nothing is posted
where the bot may not post; every stored game is replayed by the rules engine; in English and
Spanish."""

from __future__ import annotations

import random
import re
import sqlite3

from engine import Position, parse_turn
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Channel, Emulator, Member, Message
from tests.e2e.table import Table
from tests.e2e.test_direct_messages import global_bot

KILLS_PER_GAME = 2
STEP = re.compile(r"tholos:s:\d+:\d+:[^:]+:n")
"""A board's step button (one more choice of the turn being built)."""


async def installed_by(emulator: Emulator, spawn_bot: SpawnBot, member: Member) -> BotProcess:
    """The bot (its commands registered globally, as in production) and ``member``'s install of
    the app to their account."""
    bot = await global_bot(emulator, spawn_bot)
    emulator.install_for_user(member)
    return bot


async def start(table: Table, challenger: Member, opponent: Member) -> None:
    """``challenger`` challenges ``opponent`` at the table, who accepts: the first board."""
    ix = await table.slash(challenger, "tholos challenge", opponent=opponent)
    assert ix.original is not None and not ix.original.ephemeral, "the challenge is public"
    assert f"<@{opponent.id}>" in ix.original.text
    await table.click(opponent, ix.original, table.custom_id(ix.original, ":accept"))
    await table.emu.wait_for(lambda: table.boards(), what="the game's first board")


async def play_out(table: Table, bot: BotProcess, rng: random.Random, kills: int) -> set[int]:
    """Play the table's game to its end by pressing random step buttons of its newest board,
    as its player to move (the turn builds one choice at a time; a whole turn brings a new
    board), killing the bot ``kills`` times right after a press (its answer, its stored turn,
    the new board: any may be lost; the next press carries on). The ids of the presses cut
    short."""
    kill_at = set(rng.sample(range(1, 60), kills))
    cut: set[int] = set()
    pressed = 0
    while not table.position().is_over():
        board, steps = newest_with_steps(table)
        mover = table.mover(board)
        pressed += 1
        if pressed in kill_at:
            cut.add((await table.click(mover, board, rng.choice(steps), wait=False)).id)
            assert await bot.kill() == -9
            await bot.start()
            continue
        ix = await table.click(mover, board, rng.choice(steps))
        assert (not ix.failed and ix.original is None) or not ix.original.ephemeral, ix
        await bot.settle()
    return cut


def newest_with_steps(table: Table) -> tuple[Message, list[str]]:
    """The newest board offering a choice (step buttons not disabled), and its steps: where the
    player to move presses (the newest board may be the AI's to move, its turn lost to a kill:
    the board pressed before keeps its steps until the AI's turn is out)."""
    for board in reversed(table.boards()):
        steps = [
            b["custom_id"]
            for b in board.buttons
            if STEP.fullmatch(b["custom_id"]) and not b.get("disabled")
        ]
        if steps:
            return board, steps
    raise AssertionError(f"no board offers a choice: {table.status()!r}")


def assert_nothing_broken(emulator: Emulator, cut: set[int]) -> None:
    """No rule of Discord broken — nothing posted where the bot is not, no expired token used
    — but the presses a kill -9 cut short, which their member saw fail."""
    broken = [v for v in emulator.violations if v.interaction_id not in cut]
    assert broken == [], broken
    assert {v.rule for v in emulator.violations} <= {"interaction.not-acknowledged"}


def stored_games(bot: BotProcess) -> list[tuple]:
    with sqlite3.connect(bot.db_path) as db:
        return db.execute(
            "SELECT id, guild_id, channel_id, venue, status, rated, start_position, position "
            "FROM games ORDER BY id"
        ).fetchall()


def replayed(bot: BotProcess, game_id: int, start: str) -> Position:
    """The game's turns as stored, replayed by the rules engine from its start."""
    with sqlite3.connect(bot.db_path) as db:
        turns = db.execute(
            "SELECT turn FROM turns WHERE game_id = ? ORDER BY ply", (game_id,)
        ).fetchall()
    position = Position.parse(start)
    for (turn,) in turns:
        position = position.apply(parse_turn(turn))
    return position


def assert_finished_there(bot: BotProcess, channel: Channel, venue: str) -> None:
    """One game, played in ``channel`` (``venue``), finished, unrated, and its stored turns
    replay to its stored position."""
    [(game_id, guild_id, channel_id, where, status, rated, start, end)] = stored_games(bot)
    assert (guild_id, channel_id, where, status, rated) == (0, channel.id, venue, "finished", 0)
    assert str(replayed(bot, game_id, start)) == end


async def test_a_whole_game_in_a_dm_between_members(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    """Alice installed the app; in her DM with Bob she challenges him, he accepts, and they play
    it out on answers alone, the bot killed a few times; each turn's new board pings the
    player to move; no request went to the DM (the bot is not in it)."""
    alice, bob = emulator.member("alice"), emulator.member("bob")
    bot = await installed_by(emulator, spawn_bot, alice)
    table = Table(emulator, emulator.dm_between(alice, bob))
    await start(table, alice, bob)
    assert table.board.text.count("your turn") == 1
    cut = await play_out(table, bot, random.Random(seed), KILLS_PER_GAME)
    assert "Game over" in table.status()
    assert next(b["label"] for b in table.board.buttons) == "Rematch"
    assert_nothing_broken(emulator, cut)
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert_finished_there(bot, table.channel, "dm")


async def test_a_group_dm_of_three_one_watching(emulator: Emulator, spawn_bot: SpawnBot, seed: int):
    """In a group DM of three, Alice (who installed the app) plays Carol, in Spanish; Bob
    watches: his press on a board is refused privately and changes nothing."""
    alice, bob, carol = (emulator.member(name) for name in ("alice", "bob", "carol"))
    emulator.set_locale(alice, "es-ES")
    bot = await installed_by(emulator, spawn_bot, alice)
    table = Table(emulator, emulator.dm_between(alice, bob, carol, name="Tholos night"))
    ix = await table.slash(alice, "tholos challenge", opponent=carol)
    assert ix.original is not None and "¡" in ix.original.text, "the challenge, in Spanish"
    await table.click(carol, ix.original, table.custom_id(ix.original, ":accept"))
    await emulator.wait_for(lambda: table.boards(), what="the game's first board")
    board = table.board
    step = next(b["custom_id"] for b in board.buttons if b["custom_id"].endswith(":n"))
    watched = await table.click(bob, board, step)
    assert watched.original is not None and watched.original.ephemeral
    assert table.board.id == board.id and len(table.boards()) == 1
    cut = await play_out(table, bot, random.Random(seed), KILLS_PER_GAME)
    assert "Partida terminada" in table.status()
    assert_nothing_broken(emulator, cut)
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert_finished_there(bot, table.channel, "group_dm")


async def test_a_server_without_the_bot(emulator: Emulator, spawn_bot: SpawnBot, seed: int):
    """A server that never added the bot: Bob installed the app and challenges Alice in its
    #general; the game is played on answers there, no thread, and Rematch starts the next."""
    alice, bob = emulator.member("alice"), emulator.member("bob")
    bot = await installed_by(emulator, spawn_bot, bob)
    guild = emulator.add_guild_without_bot("Elsewhere", [bob, alice])
    table = Table(emulator, emulator.channel("general", guild))
    await start(table, bob, alice)
    cut = await play_out(table, bot, random.Random(seed), KILLS_PER_GAME)
    rematch = await table.click(alice, table.board, table.labelled(table.board, "Rematch"))
    assert rematch.original is not None and f"<@{bob.id}>" in rematch.original.text
    assert emulator.threads(table.channel) == [], "the bot opens no thread where it is not"
    assert_nothing_broken(emulator, cut)
    assert await bot.stop() == 0
    bot.assert_clean_log()
    [first, *_] = stored_games(bot)
    assert first[3] == "server_without_bot" and first[4] == "finished"


async def test_a_board_never_shown_is_shown_at_the_next_press(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    """A turn stored while its board could not be shown there (as a crash after the store, a
    turn on the live board, or a clock leaves it): the next press on the old board shows the
    game as it is — the old board's controls gone, the new board its answer — and plays on."""
    alice, bob = emulator.member("alice"), emulator.member("bob")
    bot = await installed_by(emulator, spawn_bot, alice)
    table = Table(emulator, emulator.dm_between(alice, bob))
    await start(table, alice, bob)
    old = table.board
    assert await bot.stop() == 0
    rng = random.Random(seed)
    position = table.position(old)
    turn = rng.choice(position.legal_turns())
    after = position.apply(turn)
    with sqlite3.connect(bot.db_path) as db:  # the turn, stored as the bot stores one
        db.execute(
            "UPDATE games SET position = ?, version = version + 1, plies = plies + 1",
            (str(after),),
        )
        db.execute(
            "INSERT INTO turns (game_id, ply, player_id, turn, position_after, created_at) "
            "VALUES (1, 1, ?, ?, ?, 0)",
            (table.mover(old).id, str(turn), str(after)),
        )
    await bot.start()
    steps = [b["custom_id"] for b in old.buttons if STEP.fullmatch(b["custom_id"])]
    ix = await table.click(table.mover(old), old, rng.choice(steps))
    assert not ix.failed
    await emulator.wait_for(lambda: len(table.boards()) == 2, what="the board never shown")
    await bot.settle()
    assert table.position() == after
    assert not [b for b in table.boards()[0].buttons if STEP.fullmatch(b["custom_id"])]
    assert "The game went on" in table.status(table.boards()[0])
    cut = await play_out(table, bot, rng, kills=0)
    assert cut == set() and emulator.violations == []
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert_finished_there(bot, table.channel, "dm")


async def test_the_ai_in_a_dm_between_members(emulator: Emulator, spawn_bot: SpawnBot, seed: int):
    """/tholos-ai in a DM between members (Bob installed the app): the AI plays its turns within
    Bob's presses — each of its boards answers the press that left it to move — across kill -9;
    Alice, the other member of the DM, may not press for him."""
    alice, bob = emulator.member("alice"), emulator.member("bob")
    bot = await installed_by(emulator, spawn_bot, bob)
    table = Table(emulator, emulator.dm_between(bob, alice))
    ix = await table.slash(bob, "tholos-ai", level="easy")
    assert ix.acknowledged and not ix.failed
    await emulator.wait_for(lambda: table.boards(), what="the AI game's first board")
    await bot.settle()
    board, steps = newest_with_steps(table)
    assert table.mover(board) == bob
    refused = await table.click(alice, board, steps[0])
    assert refused.original is not None and refused.original.ephemeral
    cut = await play_out(table, bot, random.Random(seed), KILLS_PER_GAME)
    assert_nothing_broken(emulator, cut)
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert_finished_there(bot, table.channel, "dm")
