"""The ``/tholos`` commands that are not about playing a game, where the bot is not (issue 46):
a member who installed the app runs them in a DM with a friend, in a group DM of three and in a
server that never added the bot. Learning, puzzles, the games being played, histories,
replays, records, analysis and a finished game's buttons answer there — privately, but for
Review's note — on interaction answers only; a tournament's commands refuse politely, saying
what works there. The bot never calls those channels (``emulator.violations`` stays empty),
and a finished game of one DM opens from that DM only.

The games listed are stored by the test (the bot reads them as any other), but for the one
whose final board is pressed: how they are played there is tests/e2e/test_anywhere.py's.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from bot.base.game_options import GameOptions
from bot.base.people import Person
from bot.storage import open_database
from tests.databases import Clock, services_on
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Interaction, Member
from tests.e2e.emulator.model import Channel
from tests.e2e.table import Table
from tests.e2e.test_anywhere import start
from tests.e2e.test_direct_messages import global_bot
from tests.features.analysis.test_e2e_from_discord import launched
from tests.features.live.test_e2e_board import free_port
from tests.features.play.test_service import by

NEEDS_THE_BOT = "only in servers that added me"


async def private(emulator: Emulator, ix: Interaction) -> str:
    """The text of ``ix``'s answer, which only its member sees (its original or follow-ups),
    once given (a deferred answer comes later)."""
    assert ix.acknowledged and not ix.failed, ix
    await emulator.wait_for(
        lambda: ix.messages and not any(message.loading for message in ix.messages),
        what=f"the answer to {ix}",
    )
    messages = ix.messages
    assert all(message.ephemeral for message in messages), ix
    return "\n".join(message.text for message in messages)


async def stored_game(
    db_path: Path, channel: Channel, venue: str, white: Member, black: Member, *, finish: bool
) -> int:
    """A game between ``white`` and ``black`` stored in ``channel`` (no server: server id 0,
    ``venue`` saying where), two random turns played, then resigned by ``black`` if ``finish``:
    its id."""
    database = await open_database(str(db_path))
    try:
        services = services_on(database, Clock(), seed=len(venue))
        made = await services.challenges.challenge(
            guild_id=0,
            channel_id=channel.id,
            challenger=Person(white.id, white.user.username),
            opponent=Person(black.id, black.user.username),
            options=GameOptions(colour="white", first="me"),
        )
        answer = await services.challenges.answer(made.id, by(black.id, channel.id), "accept")
        game = answer.game
        assert game is not None
        if finish:
            game = await services.play.resign(game.id, game.version, by(black.id, channel.id))
    finally:
        await database.close()
    with sqlite3.connect(db_path) as db:
        db.execute("UPDATE games SET venue = ? WHERE id = ?", (venue, game.id))
    return game.id


async def test_the_commands_answer_where_the_bot_is_not(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    """In a DM between two members, a group DM of three and a server without the bot: learn,
    puzzle, games, history, replay, record, analyse answer their member privately (nothing
    finished here yet, no live board on this bot: said so); a tournament's standings and
    withdraw refuse, naming what works here. No call to those channels."""
    rng = random.Random(seed)
    bot = await global_bot(emulator, spawn_bot)
    alice, bob, carol = (emulator.member(name) for name in ("alice", "bob", "carol"))
    for member in (alice, bob, carol):
        emulator.install_for_user(member)
    elsewhere = emulator.add_guild_without_bot("Elsewhere")
    places = [
        emulator.dm_between(alice, bob),
        emulator.dm_between(alice, bob, carol, name="friends"),
        emulator.channel("general", elsewhere),
    ]
    for place in places:
        member = rng.choice((alice, bob))
        lesson = await emulator.slash(member, "tholos learn", channel=place)
        assert "📘" in await private(emulator, lesson)
        steps = [b for b in lesson.messages[-1].buttons if b["custom_id"].startswith("tholos:le:")]
        pressed = await emulator.click(member, lesson.messages[-1], steps[0]["custom_id"])
        assert pressed.acknowledged and not pressed.failed
        puzzle = await emulator.slash(member, "tholos puzzle", channel=place)
        assert "puzzle rating" in await private(emulator, puzzle)
        games = await emulator.slash(member, "tholos games", channel=place)
        assert "No game is being played here." in await private(emulator, games)
        history = await emulator.slash(member, "tholos history", channel=place)
        assert "0 finished games" in await private(emulator, history)
        for command in ("tholos replay", "tholos record"):
            asked = await emulator.slash(member, command, channel=place)
            assert "no finished game in this channel" in await private(emulator, asked), command
        analyse = await emulator.slash(member, "tholos analyse", channel=place)
        assert "live board isn't switched on" in await private(emulator, analyse)
        for command in ("tholos tournament standings", "tholos tournament withdraw"):
            asked = await emulator.slash(member, command, channel=place)
            assert NEEDS_THE_BOT in await private(emulator, asked), command
    assert emulator.violations == []
    assert await bot.stop() == 0


async def test_a_dms_games_are_listed_and_opened_there(emulator: Emulator, spawn_bot: SpawnBot):
    """The games of a DM between Alice and Bob: ``/tholos games`` there lists the one being
    played, not the group DM's (an open challenge in Alice's DM with Carol is listed there; a
    server without the bot lists its own game, linked into it); its
    finished game's record and replay open there, not from the group DM (not even to a
    player: a DM's games are that DM's); ``/tholos analyse`` there suggests it and launches
    the live board for it; the history there lists it to Bob, privately, and Bob's history
    asked by Carol in the group DM does not. No call to those channels."""
    emulator.enable_activities()
    bot = spawn_bot(emulator, env={"THOLOS_WEB_PORT": str(free_port())}, guild_commands=False)
    await bot.start(sync=True)
    alice, bob, carol = (emulator.member(name) for name in ("alice", "bob", "carol"))
    for member in (alice, bob, carol):
        emulator.install_for_user(member)
    dm = emulator.dm_between(alice, bob)
    group = emulator.dm_between(alice, bob, carol, name="friends")
    finished = await stored_game(bot.db_path, dm, "dm", alice, bob, finish=True)
    playing = await stored_game(bot.db_path, dm, "dm", alice, bob, finish=False)
    elsewhere = await stored_game(bot.db_path, group, "group_dm", bob, carol, finish=False)

    listed = await private(emulator, await emulator.slash(bob, "tholos games", channel=dm))
    assert f"<@{alice.id}> vs <@{bob.id}>" in listed and f"/channels/@me/{dm.id}" in listed
    assert f"<@{carol.id}>" not in listed, "another DM's game is not this DM's"
    in_group = await private(emulator, await emulator.slash(carol, "tholos games", channel=group))
    assert f"<@{bob.id}> vs <@{carol.id}>" in in_group and f"<@{alice.id}> vs" not in in_group
    assert (playing, elsewhere) != (0, 0)
    quiet = emulator.dm_between(alice, carol)
    opened = await emulator.slash(alice, "tholos challenge", channel=quiet)
    assert opened.original is not None and not opened.failed
    waiting = await private(emulator, await emulator.slash(carol, "tholos games", channel=quiet))
    assert "Open challenges" in waiting and f"/channels/@me/{quiet.id}" in waiting
    assert "Open challenges" not in listed and "Open challenges" not in in_group
    server = emulator.add_guild_without_bot("Elsewhere")
    general = emulator.channel("general", server)
    await stored_game(bot.db_path, general, "server_without_bot", carol, alice, finish=False)
    there = await private(emulator, await emulator.slash(alice, "tholos games", channel=general))
    assert f"<@{carol.id}> vs <@{alice.id}>" in there and f"<@{bob.id}>" not in there
    assert f"/channels/{server.id}/{general.id}" in there, "its link leads into that server"

    record = await emulator.slash(alice, "tholos record", channel=dm, game=finished)
    assert record.original is not None and record.original.attachments
    assert record.original.ephemeral
    replay = await emulator.slash(bob, "tholos replay", channel=dm, game=finished)
    assert "the whole game, turn by turn" in await private(emulator, replay)
    assert replay.messages[-1].attachments, "the replay's animation"
    for member in (bob, carol):  # a DM's game opens in that DM only, to whoever asks there
        refused = await emulator.slash(member, "tholos record", channel=group, game=finished)
        assert await private(emulator, refused) == "That isn't a finished game played here."
    last = await emulator.slash(bob, "tholos record", channel=dm)
    assert last.original is not None and f"#{finished}" in last.original.text

    suggested = await emulator.autocomplete(alice, "tholos analyse", channel=dm, focused="game")
    assert [choice["value"] for choice in suggested.choices or []] == [finished]
    assert launched(await emulator.slash(alice, "tholos analyse", channel=dm))
    with sqlite3.connect(bot.db_path) as db:
        asked = db.execute("SELECT user_id, channel_id, game_id FROM page_requests").fetchall()
    assert asked == [(alice.id, dm.id, finished)]

    history = await private(emulator, await emulator.slash(bob, "tholos history", channel=dm))
    assert "1 finished game" in history and f"<@{alice.id}>" in history
    theirs = await private(
        emulator,
        await emulator.slash(carol, "tholos history", channel=group, options={"member": bob}),
    )
    assert "No finished games" in theirs, "Bob's game with Alice is none of Carol's"
    assert emulator.violations == []
    assert await bot.stop() == 0


async def test_a_finished_games_buttons_in_a_dm_between_members(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    """Alice and Bob play a turn in their DM and Bob resigns: the final board's Replay and
    Record answer the presser alone; Review says the AI is at it (the bot could not edit a
    message there), and pressed again once it is done shows the review to the presser alone.
    No call to the DM."""
    rng = random.Random(seed)
    bot = await global_bot(emulator, spawn_bot)
    alice, bob = emulator.member("alice"), emulator.member("bob")
    for member in (alice, bob):
        emulator.install_for_user(member)
    table = Table(emulator, emulator.dm_between(alice, bob))
    await start(table, alice, bob)
    await table.play(rng.choice(table.position().legal_turns()))
    ask = await table.slash(bob, "tholos resign")
    assert ask.original is not None
    await table.click(bob, ask.original, table.labelled(ask.original, "Yes, resign"))
    await emulator.wait_for(lambda: "Game over" in table.status(), what="the final board")
    final = table.board

    replay = await table.click(bob, final, table.labelled(final, "Replay"))
    assert "the whole game, turn by turn" in await private(emulator, replay)
    record = await table.click(alice, final, table.labelled(final, "Record"))
    assert "The record of game" in await private(emulator, record)
    review = await table.click(bob, final, table.labelled(final, "Review"))
    assert review.original is not None and not review.original.ephemeral
    assert "press Review again" in review.original.text
    await emulator.wait_for(lambda: reviewed(bot), what="the review", timeout=300)
    again = await table.click(alice, table.board, table.labelled(table.board, "Review"))
    assert "AI review: " in await private(emulator, again)
    assert emulator.violations == []
    assert await bot.stop() == 0
    bot.assert_clean_log()


def reviewed(bot: BotProcess) -> bool:
    """The one game's review is done."""
    with sqlite3.connect(bot.db_path) as db:
        return db.execute("SELECT status FROM reviews").fetchall() == [("done",)]
