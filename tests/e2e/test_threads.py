"""A thread per game (``THOLOS_THREADS=on``): many games at once in one channel, each in its own
thread, the channel keeping one line per game; commands from the channel; no permission to
open threads; Discord's limit of active threads; a thread deleted mid-game; a game against the
AI."""

from __future__ import annotations

import asyncio

from engine.ai import LEVEL_RATINGS
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Member, Message
from tests.e2e.emulator.model import CREATE_PUBLIC_THREADS
from tests.e2e.table import Table

THREADS = {"THOLOS_THREADS": "on"}


async def threads_bot(emulator: Emulator, spawn_bot: SpawnBot) -> BotProcess:
    bot = spawn_bot(emulator, env=THREADS)
    await bot.start(sync=True)
    return bot


async def challenge_and_accept(table: Table, challenger: Member, opponent: Member) -> Message:
    """``challenger`` (White, first) challenges ``opponent``, who accepts; the challenge."""
    made = await table.slash(
        challenger, "tholos challenge", opponent=opponent, colour="white", first="me"
    )
    assert made.original is not None
    await table.click(opponent, made.original, table.labelled(made.original, "Accept"))
    return made.original


async def test_three_games_at_once_each_in_its_thread(emulator: Emulator, spawn_bot: SpawnBot):
    """Three games in one channel by six players: each in a thread named after its players,
    with both of them added; boards only in the threads; the channel keeps one line per game,
    linking its thread and, once it ends, its result."""
    bot = await threads_bot(emulator, spawn_bot)
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    dave, erin, frank = (emulator.add_person(name) for name in ("dave", "erin", "frank"))
    pairs = [(alice, bob), (carol, dave), (erin, frank)]
    lines = [await challenge_and_accept(table, *pair) for pair in pairs]
    await emulator.wait_for(
        lambda: all(
            (thread := emulator.thread_of(line)) and Table(emulator, thread).boards()
            for line in lines
        ),
        what="a board in each game's thread",
    )
    threads = [emulator.thread_of(line) for line in lines]
    assert [thread.name for thread in threads] == [
        "Alice vs Bob · Tholos",
        "Carol vs Dave · Tholos",
        "Erin vs Frank · Tholos",
    ]
    for (first, second), thread, line in zip(pairs, threads, lines, strict=True):
        assert {first.id, second.id} <= emulator.thread_members(thread)
        assert line.content.startswith("⚔️") and f"<#{thread.id}>" in line.content
        assert line.buttons == []
    assert table.boards() == [], "no board in the channel itself"
    games = [table.in_thread(thread) for thread in threads]
    await asyncio.gather(*(game.play("+w1") for game in games))
    await asyncio.gather(*(game.play("+b1") for game in games))
    assert all(len(game.boards()) == 3 for game in games)
    ask = await games[1].slash(carol, "tholos resign")
    assert ask.original is not None and ask.original.ephemeral
    await games[1].click(carol, ask.original, games[1].labelled(ask.original, "Yes, resign"))
    await emulator.wait_for(lambda: lines[1].content.startswith("🏁"), what="the result line")
    assert f"<@{dave.id}> wins" in lines[1].content and f"<#{threads[1].id}>" in lines[1].content
    assert games[1].status().startswith("Game over.")
    await emulator.wait_for(
        lambda: threads[1].auto_archive_duration == 60, what="the ended game's thread to archive"
    )
    assert threads[0].auto_archive_duration == 1440
    assert lines[0].content.startswith("⚔️") and lines[2].content.startswith("⚔️")
    table.assert_clean()
    assert await bot.stop() == 0


async def test_commands_in_the_channel_act_on_the_callers_game(
    emulator: Emulator, spawn_bot: SpawnBot
):
    """In the channel, /tholos board posts the caller's only game's board in its thread and
    says where; with two games it asks which, and the ``game`` option autocompletes the
    caller's games; the board's cooldown is per member; in a thread it needs no option."""
    bot = await threads_bot(emulator, spawn_bot)
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    first = await challenge_and_accept(table, alice, bob)
    await emulator.wait_for(lambda: emulator.thread_of(first) is not None, what="a thread")
    game = table.in_thread(emulator.thread_of(first))
    await emulator.wait_for(lambda: game.boards(), what="the first board")
    await table.slash(bob, "tholos board")
    await emulator.wait_for(lambda: len(game.boards()) == 2, what="the board again, in the thread")
    await emulator.wait_for(
        lambda: any(f"<#{game.channel.id}>" in text for text in table.ephemeral(bob)),
        what="where the board is, told privately",
    )
    await challenge_and_accept(table, carol, bob)
    await emulator.wait_for(
        lambda: (
            sum(bool(Table(emulator, t).boards()) for t in emulator.threads(table.channel)) == 2
        ),
        what="the second game's board",
    )
    await table.slash(bob, "tholos claim")
    assert any("You have 2 games going here" in text for text in table.ephemeral(bob))
    suggested = await table.autocomplete(bob, "tholos board", "game")
    assert suggested.choices is not None and len(suggested.choices) == 2
    labels = [choice["name"] for choice in suggested.choices]
    assert all(" vs " in label and "· ply " in label for label in labels), labels
    typed = await table.autocomplete(bob, "tholos board", "game", "carol")
    assert typed.choices is not None and len(typed.choices) == 1
    assert "carol" in typed.choices[0]["name"].lower()
    assert (await table.autocomplete(alice, "tholos resign", "game")).choices == [
        choice for choice in suggested.choices if "alice" in choice["name"].lower()
    ]
    carols = table.in_thread(
        next(t for t in emulator.threads(table.channel) if t.id != game.channel.id)
    )
    before = len(carols.boards())
    await table.slash(bob, "tholos board", game=typed.choices[0]["value"])
    assert any("Just a moment" in text for text in table.ephemeral(bob)), "bob's cooldown"
    await table.slash(carol, "tholos board", game=typed.choices[0]["value"])
    await emulator.wait_for(
        lambda: len(carols.boards()) == before + 1, what="the chosen game's board, in its thread"
    )
    assert len(game.boards()) == 2
    await game.slash(alice, "tholos claim")
    assert any("still has time" in text or "your turn" in text for text in game.ephemeral(alice))
    table.assert_clean()
    assert await bot.stop() == 0


async def test_without_thread_permissions_the_game_is_played_in_the_channel(
    emulator: Emulator, spawn_bot: SpawnBot
):
    """Where the bot may not open threads, the challenger is told what to grant and the game
    is played in the channel, as before threads."""
    bot = await threads_bot(emulator, spawn_bot)
    table = Table(emulator, "games")
    emulator.deny(table.channel, CREATE_PUBLIC_THREADS)
    alice, bob = table.people_named("alice", "bob")
    await challenge_and_accept(table, alice, bob)
    assert any("Create Public Threads" in text for text in table.ephemeral(alice))
    await emulator.wait_for(lambda: table.boards(), what="the board in the channel")
    assert emulator.threads(table.channel) == []
    await table.play("+w1")
    table.assert_clean()
    assert await bot.stop() == 0


async def test_at_discords_limit_of_active_threads_the_game_is_played_in_the_channel(
    emulator: Emulator, spawn_bot: SpawnBot
):
    """When the server has as many active threads as Discord allows, a new game is played in
    the channel, the player who accepted is told why, and the game in a thread goes on."""
    bot = await threads_bot(emulator, spawn_bot)
    emulator.config.max_active_threads = 1
    table = Table(emulator)
    alice, bob, carol = table.people_named("alice", "bob", "carol")
    first = await challenge_and_accept(table, alice, bob)
    await emulator.wait_for(lambda: emulator.thread_of(first) is not None, what="a thread")
    threaded = table.in_thread(emulator.thread_of(first))
    await emulator.wait_for(lambda: threaded.boards(), what="the first game's board")
    await challenge_and_accept(table, carol, alice)
    await emulator.wait_for(lambda: table.boards(), what="the second board, in the channel")
    assert any("limit of active threads" in text for text in table.ephemeral(alice))
    assert len(emulator.threads(table.channel)) == 1
    await table.play("+w1")
    await threaded.play("+w1")
    assert len(table.boards()) == 2 and len(threaded.boards()) == 2
    assert table.failed() == []
    assert [v.rule for v in emulator.violations] == ["threads.active-limit"]
    assert await bot.stop() == 0


async def test_a_thread_deleted_mid_game_moves_the_game_to_a_new_one(
    emulator: Emulator, spawn_bot: SpawnBot
):
    """A moderator deletes a game's thread: /tholos board in the channel opens a new thread on
    a new line and posts the board there; the game goes on from where it was."""
    bot = await threads_bot(emulator, spawn_bot)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    line = await challenge_and_accept(table, alice, bob)
    await emulator.wait_for(lambda: emulator.thread_of(line) is not None, what="a thread")
    old = table.in_thread(emulator.thread_of(line))
    await emulator.wait_for(lambda: old.boards(), what="the first board")
    await old.play("+w1")
    position = old.position()
    emulator.delete_channel(old.channel)
    await table.slash(bob, "tholos board")
    await emulator.wait_for(lambda: len(emulator.threads(table.channel)) == 1, what="a thread")
    new = table.in_thread(emulator.threads(table.channel)[0])
    await emulator.wait_for(lambda: new.boards(), what="the board in the new thread")
    assert new.channel.id != old.channel.id and new.position() == position
    await new.play("+b1")
    unknown = [v.rule for v in emulator.violations]
    assert unknown == ["http.unknown-resource"], emulator.violations  # the post that found it gone
    assert new.failed() == [] and table.failed() == []
    assert await bot.stop() == 0


async def test_a_game_against_the_ai_gets_a_thread(emulator: Emulator, spawn_bot: SpawnBot):
    """Challenging the bot posts a line in the channel and plays the game in its thread: the
    AI's turn arrives there."""
    bot = await threads_bot(emulator, spawn_bot)
    table = Table(emulator)
    (alice,) = table.people_named("alice")
    started = await table.slash(
        alice,
        "tholos challenge",
        opponent=emulator.bot_user,
        level="easy",
        colour="white",
        first="me",
    )
    assert started.original is not None and not started.original.ephemeral
    line = started.original
    await emulator.wait_for(lambda: emulator.thread_of(line) is not None, what="a thread")
    game = table.in_thread(emulator.thread_of(line))
    await emulator.wait_for(lambda: game.boards(), what="the first board")
    assert game.channel.name == f"Alice vs Tholos AI (easy · {LEVEL_RATINGS['easy']}) · Tholos"
    await game.play("+w1")
    await emulator.wait_for(lambda: len(game.boards()) == 3, what="the AI's turn")
    assert f"<#{game.channel.id}>" in line.content
    table.assert_clean()
    assert await bot.stop() == 0
