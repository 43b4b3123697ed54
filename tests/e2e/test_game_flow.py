"""The real bot, end to end: challenges, complete games, wrong presses, restarts and crashes.

Every test ends with no failed interaction and no rule violation recorded by the emulator.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import time
from contextlib import closing

from engine import Position
from engine.newgame import new_game
from engine.play import random_game
from engine.scoring import score
from engine.vocabulary import score_pair
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator
from tests.e2e.table import Table


def final_turns(seed: int) -> tuple[list[str], Position]:
    """A complete basic game of random turns from the standard start, and its final position."""
    game = random_game(new_game(), random.Random(seed))
    return [str(turn) for turn in game.turns], game.final


def a_game_with_a_negative_score(seed: int) -> tuple[list[str], Position]:
    """The first of the random games drawn from ``seed`` in which a player ends below zero
    (about one game in nine does)."""
    rng = random.Random(seed)
    while True:
        turns, final = final_turns(rng.randrange(2**32))
        if min(score(final).totals) < 0:
            return turns, final


async def play_out(table: Table, seed: int) -> None:
    """Play random legal turns until the game on the table is over."""
    rng = random.Random(seed)
    while table.status().find("your turn") >= 0:
        await table.play(rng.choice(table.position().legal_turns()))


async def test_a_whole_game_ends_with_the_engines_score(
    emulator: Emulator, tholos_bot: BotProcess, seed: int
):
    """Challenge, accept, a full game by clicks (one that ends with a negative score): the final
    board shows the engine's score, the negative one with a minus sign."""
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    board = await table.start_game(alice, bob)
    assert table.position(board) == new_game()
    assert table.status(board).startswith(f"<@{alice.id}>, your turn")
    image = board.attachments[0].image()
    assert image.size[0] >= 900 and board.attachments[0].description
    turns, final = a_game_with_a_negative_score(seed)
    for turn in turns:
        await table.play(turn)
    expected = score(final)
    white, black = expected.totals
    last = table.board
    assert table.position(last) == final
    assert table.status(last).startswith("Game over.")
    result = table.status(last).splitlines()[0]
    assert score_pair(white, black) in result
    assert f"\N{MINUS SIGN}{abs(min(white, black))}" in result and "–-" not in result, (
        "a negative score has a minus sign, not a hyphen"
    )
    assert [b["label"] for b in last.buttons] == ["Rematch", "Replay", "Record", "Review"]
    assert all(not board.buttons for board in table.boards()[:-1]), "only the newest board is live"
    table.assert_clean()
    assert await tholos_bot.stop() == 0
    with sqlite3.connect(tholos_bot.db_path) as db:
        stored = db.execute("SELECT turn FROM turns ORDER BY ply").fetchall()
        status = db.execute("SELECT status, white_points, black_points FROM games").fetchone()
    assert [row[0] for row in stored] == turns
    assert status == ("finished", white, black)


async def test_decline_and_withdraw(emulator: Emulator, tholos_bot: BotProcess):
    """The opponent declines; a second challenge is withdrawn with its button and a third by
    command; each message then says so and its buttons are disabled."""
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    first = (await table.slash(alice, "tholos challenge", opponent=bob)).original
    await table.click(carol, first, table.labelled(first, "Accept"))
    assert any("This challenge is for" in text for text in table.ephemeral(carol))
    await table.click(bob, first, table.labelled(first, "Decline"))
    assert "Declined" in first.content and all(b.get("disabled") for b in first.buttons)
    second = (await table.slash(alice, "tholos challenge", opponent=carol)).original
    await table.click(carol, second, table.labelled(second, "Withdraw"))
    assert any("Only the challenger" in text for text in table.ephemeral(carol))
    await table.click(alice, second, table.labelled(second, "Withdraw"))
    assert "Withdrawn" in second.content
    third = (await table.slash(bob, "tholos challenge", opponent=carol)).original
    await table.slash(bob, "tholos cancel")
    await emulator.wait_for(lambda: "Withdrawn" in third.content, what="the withdrawn challenge")
    assert all(b.get("disabled") for b in third.buttons)
    assert table.boards() == []
    table.assert_clean()


async def test_challenge_expires(emulator: Emulator, spawn_bot: SpawnBot):
    """An unanswered challenge expires: its message says so, a late Accept is refused."""
    bot = spawn_bot(emulator, env={"THOLOS_CHALLENGE_TIMEOUT": "1"})
    await bot.start(sync=True)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    challenge = (await table.slash(alice, "tholos challenge", opponent=bob)).original
    await emulator.wait_for(lambda: "Expired" in challenge.content, what="expiry")
    assert all(b.get("disabled") for b in challenge.buttons)
    await table.click(bob, challenge, table.labelled(challenge, "Accept"), stale=True)
    assert any("already expired" in text for text in table.ephemeral(bob))
    assert table.boards() == []
    table.assert_clean()
    assert await bot.stop() == 0


async def test_wrong_people_and_outdated_boards_change_nothing(
    emulator: Emulator, tholos_bot: BotProcess
):
    """Outsiders, the player not to move, and presses on old boards get ephemeral answers (the
    outsider told how to start a game with a mention of the registered command)."""
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    board = await table.start_game(alice, bob)
    take = table.custom_id(board, ":Tw1:n")
    await table.click(carol, board, take)
    await table.click(bob, board, take)
    challenge = f"</tholos challenge:{emulator.command('tholos', guild=True)['id']}>"
    said = [text for text in table.ephemeral(carol) if "game between" in text]
    assert said and challenge in said[0], "names the command as a mention Discord localises"
    assert any("not your turn" in text for text in table.ephemeral(bob))
    assert table.position() == new_game() and len(table.boards()) == 1
    await table.play("+w1")
    await table.click(alice, board, take, stale=True)  # a client still showing the old board
    await table.click(bob, board, take, stale=True)
    outdated = [t for t in table.ephemeral(bob) if "out of date" in t]
    assert outdated and str(table.board.id) in outdated[0], "links to the current board"
    assert len(table.boards()) == 2
    table.assert_clean()


async def test_simultaneous_presses_make_one_move(emulator: Emulator, tholos_bot: BotProcess):
    """Two final presses at the same moment: one turn is played, the other is told it's late."""
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    board = await table.start_game(alice, bob)
    press = table.custom_id(board, ":Tw1:n")  # one press: take one white stone
    both = await asyncio.gather(
        table.click(alice, board, press, stale=True), table.click(alice, board, press, stale=True)
    )
    assert all(ix.acknowledged for ix in both)
    await tholos_bot.settle()
    assert len(table.boards()) == 2
    assert str(table.position()) == "-/-/-/-/-/-/- www bb b -"
    assert sum("out of date" in text for text in table.ephemeral(alice)) == 1
    table.assert_clean()


async def test_restart_mid_game_then_finish_on_the_old_buttons(
    emulator: Emulator, tholos_bot: BotProcess, seed: int
):
    """After a clean restart, the board posted before it keeps working to the end."""
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await table.start_game(alice, bob)
    turns, final = final_turns(seed)
    for turn in turns[:10]:
        await table.play(turn)
    assert await tholos_bot.restart() == 0
    for turn in turns[10:]:
        await table.play(turn)
    assert table.position() == final and table.status().startswith("Game over.")
    table.assert_clean()


async def test_kill_mid_game_then_finish(emulator: Emulator, tholos_bot: BotProcess, seed: int):
    """SIGKILL between turns loses nothing: the game goes on from the same board."""
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await table.start_game(alice, bob)
    turns, final = final_turns(seed)
    for turn in turns[:12]:
        await table.play(turn)
    assert await tholos_bot.kill() == -9
    await tholos_bot.start()
    for turn in turns[12:]:
        await table.play(turn)
    assert table.position() == final
    table.assert_clean()


async def test_kill_while_a_turn_is_being_posted(emulator: Emulator, tholos_bot: BotProcess):
    """SIGKILL right after the final press was acknowledged (the turn is stored, its board is
    being posted): after the restart the turn is there and a board for it is on the channel."""
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    board = await table.start_game(alice, bob)
    press = await table.click_path(alice, board, "Tw1", wait=False)
    await emulator.wait_for(lambda: press.acknowledged, what="the press acknowledged")
    assert await tholos_bot.kill() == -9
    await tholos_bot.start()
    await emulator.wait_for(  # at once, or once the killed poster's lease runs out (10 s)
        lambda: str(table.position()) == "-/-/-/-/-/-/- www bb b -",
        what="the stored turn's board",
    )
    await tholos_bot.settle()
    shown = table.position()
    await table.play(shown.legal_turns()[0])
    assert emulator.violations == []


async def test_resign(emulator: Emulator, tholos_bot: BotProcess):
    """/tholos resign asks to confirm; confirming ends the game for the opponent."""
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await table.start_game(alice, bob)
    await table.play("+w1")
    ask = await table.slash(bob, "tholos resign")
    assert ask.original is not None and ask.original.ephemeral
    await table.click(bob, ask.original, table.labelled(ask.original, "Yes, resign"))
    await emulator.wait_for(lambda: table.status().startswith("Game over."), what="final board")
    assert "by resignation" in table.status() and f"<@{alice.id}> wins" in table.status()
    table.assert_clean()


def idle_for(bot: BotProcess) -> float:
    """Seconds since the last move of the bot's only active game, by the clock it reads."""
    with closing(sqlite3.connect(bot.db_path)) as database:
        (last_move,) = database.execute(
            "SELECT last_move_at FROM games WHERE status = 'active'"
        ).fetchone()
    return time.time() - last_move


async def test_timeout_claim(emulator: Emulator, spawn_bot: SpawnBot):
    """With a tiny inactivity timeout, the waiting player claims the win."""
    bot = spawn_bot(emulator, env={"THOLOS_INACTIVITY_TIMEOUT": "1"})
    await bot.start(sync=True)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    board = await table.start_game(alice, bob)
    claim = table.labelled(board, "Claim win (opponent idle)")
    await table.click(alice, board, claim)
    assert any("your turn" in text for text in table.ephemeral(alice))
    await emulator.wait_for(lambda: idle_for(bot) >= 1, what="alice idle for 1 s")
    await table.click(bob, board, claim)
    await emulator.wait_for(lambda: table.status().startswith("Game over."), what="final board")
    assert "on time" in table.status() and f"<@{bob.id}> wins" in table.status()
    table.assert_clean()
    assert await bot.stop() == 0


async def test_advanced_game_with_ornaments_and_a_rematch(
    emulator: Emulator, tholos_bot: BotProcess, seed: int
):
    """An advanced game with 5 ornaments to the end, then a rematch with colours swapped."""
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    board = await table.start_game(alice, bob, mode="advanced", ornaments=5)
    position = table.position(board)
    assert sum(1 for ornament in position.ornaments if ornament) == 5
    assert "Advanced" in table.header(board)
    await play_out(table, seed)
    assert table.position().is_over()
    final = table.board
    await table.click(bob, final, table.labelled(final, "Rematch"))
    challenge = emulator.last_message(table.channel)
    assert "challenges you" in challenge.content and f"<@{alice.id}>" in challenge.content
    await table.click(alice, challenge, table.labelled(challenge, "Accept"))
    await emulator.wait_for(lambda: table.board.id != final.id, what="the rematch board")
    assert table.mover().id == bob.id, "Bob plays White and moves first in the rematch"
    table.assert_clean()


async def test_sigterm_finishes_the_turn_under_way(emulator: Emulator, tholos_bot: BotProcess):
    """SIGTERM just after a final press is acknowledged: the new board is still posted."""
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    board = await table.start_game(alice, bob)
    await table.click_path(alice, board, "Tw1")  # returns once the last click is acknowledged
    assert await tholos_bot.stop(settle=False) == 0
    assert len(table.boards()) == 2 and str(table.position()) == "-/-/-/-/-/-/- www bb b -"
    table.assert_clean()
    tholos_bot.assert_clean_log()
