"""The pool through the real bot: two servers open it, a member of each runs ``/tholos play``,
joins (the opt-in), waits, and the waves pair them — one rated game, shown in both servers; the
waiting message follows the queue (the count, Leave, Refresh); a server that did not open the
pool refuses, the DM with the bot does not; blocks.

Every test ends with no failed interaction and no rule violation recorded by the emulator.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator

import pytest

from engine.ai import LEVEL_RATINGS, level_for_rating
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Member, Message
from tests.e2e.table import Table
from tests.e2e.test_direct_messages import global_bot

WAITING = "Looking for an opponent"


@pytest.fixture
async def tholos_bot(emulator: Emulator, spawn_bot: SpawnBot) -> AsyncIterator[BotProcess]:
    """The bot with its commands registered globally (in every server, and in DMs)."""
    bot = await global_bot(emulator, spawn_bot)
    yield bot
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def open_pool(table: Table, admin: Member) -> None:
    """``admin`` opens the pool on the table's server."""
    ix = await table.slash(admin, "tholos-admin settings", pool="on")
    assert ix.original is not None and ix.original.embeds, ix
    fields = {f["name"]: f["value"] for f in ix.original.embeds[0]["fields"]}
    assert fields["Pool"] == "on"


async def join(table: Table, member: Member, pace: str) -> Message:
    """``member`` runs ``/tholos play pace`` for the first time and joins: the waiting
    message."""
    ix = await table.slash(member, "tholos play", pace=pace)
    opt_in = ix.original
    assert opt_in is not None and opt_in.ephemeral and "The pool pairs you" in opt_in.text
    assert "Discord display name" in opt_in.text
    await table.click(member, opt_in, table.labelled(opt_in, "Join the pool"))
    assert WAITING in opt_in.text, opt_in.text
    return opt_in


async def test_two_members_of_two_servers_are_paired(emulator: Emulator, tholos_bot: BotProcess):
    """Alice in the first server and Bob in the second wait for 5+5: one rated pool game, shown
    in both channels; each waiting message says who they play."""
    second = emulator.add_guild("Tholos Two")
    here, there = Table(emulator), Table(emulator, "general", second)
    alice, bob = here.people_named("alice", "bob")
    await open_pool(here, alice)
    await open_pool(there, alice)
    waiting = await join(here, alice, "5+5")
    assert "1 member waits for this pace" in waiting.text
    refreshed = await here.click(alice, waiting, here.labelled(waiting, "Refresh"))
    assert not refreshed.failed and WAITING in waiting.text
    bobs = await join(there, bob, "5+5")
    await emulator.wait_for(lambda: "Paired with" in waiting.text, what="Alice paired")
    await emulator.wait_for(lambda: "Paired with" in bobs.text, what="Bob paired")
    assert "member 2" not in waiting.text and "bob" in waiting.text.lower()
    await tholos_bot.settle()
    with sqlite3.connect(tholos_bot.db_path) as db:
        games = db.execute(
            "SELECT white_id, black_id, rated, pool, time_control FROM games"
        ).fetchall()
        queue = db.execute("SELECT COUNT(*) FROM pool_queue").fetchone()
    [(white, black, rated, pool, pace)] = games
    assert {white, black} == {alice.id, bob.id} and (rated, pool, pace) == (1, 1, "5+5")
    assert queue == (0,)
    await emulator.wait_for(
        lambda: here.boards() and there.boards(), what="the game's board in both servers"
    )
    here.assert_clean()
    there.assert_clean()


async def test_the_pool_where_it_is_open(emulator: Emulator, tholos_bot: BotProcess):
    """A server that did not open the pool refuses, naming the setting; in the DM with the bot
    the member waits; Leave takes them out; a second /tholos play asks no consent again."""
    table = Table(emulator)
    carol = emulator.member("carol")
    refused = await table.slash(carol, "tholos play")
    assert refused.original is not None and "hasn't opened the pool" in refused.original.text
    dm = Table(emulator, emulator.dm_channel(carol))
    waiting = await join(dm, carol, "correspondence")
    assert "correspondence" in waiting.text
    await dm.click(carol, waiting, dm.labelled(waiting, "Leave"))
    assert "You left the pool's queue" in waiting.text and waiting.buttons == []
    again = await dm.slash(carol, "tholos play")
    assert again.original is not None and WAITING in again.original.text, "no consent asked"
    left = await dm.slash(carol, "tholos pool leave")
    assert left.original is not None and "You left the pool" in left.original.text
    with sqlite3.connect(tholos_bot.db_path) as db:
        assert db.execute("SELECT COUNT(*) FROM pool_queue").fetchone() == (0,)
        assert db.execute("SELECT COUNT(*) FROM pool_members").fetchone() == (0,)
    table.assert_clean()
    dm.assert_clean()


async def test_blocked_members_wait_on(emulator: Emulator, tholos_bot: BotProcess):
    """Bob blocked Alice: he does not see her open challenge in /tholos games (Carol does), and
    both wait for the same pace in the bot's DM, never paired; unblocked, the next wave pairs
    them."""
    alice, bob, carol = emulator.member("alice"), emulator.member("bob"), emulator.member("carol")
    hers, his = (
        Table(emulator, emulator.dm_channel(alice)),
        Table(emulator, emulator.dm_channel(bob)),
    )
    blocked = await his.slash(bob, "tholos pool block", options={"member": alice})
    assert blocked.original is not None and "You blocked" in blocked.original.text
    server = Table(emulator)
    await server.slash(alice, "tholos challenge")
    for member, sees in ((carol, True), (bob, False)):
        listed = await server.slash(member, "tholos games")
        assert listed.original is not None
        assert ("Open challenges" in (listed.original.embeds[0]["description"] or "")) == sees
    waiting = await join(hers, alice, "3+2")
    await join(his, bob, "3+2")
    await emulator.wait_for(lambda: "2 members wait" in waiting.text, what="the count followed")
    await tholos_bot.settle()
    with sqlite3.connect(tholos_bot.db_path) as db:
        assert db.execute("SELECT COUNT(*) FROM games").fetchone() == (0,)
    await his.slash(bob, "tholos pool unblock", options={"member": alice})
    await emulator.wait_for(lambda: "Paired with" in waiting.text, what="paired once unblocked")
    for table in (hers, his, server):
        table.assert_clean()


async def test_the_ai_at_your_level_after_a_while_with_nobody(
    emulator: Emulator, tholos_bot: BotProcess
):
    """Carol waited long enough with nobody for 5+5 (her wait moved back in the database):
    Refresh offers the AI at her level, with its rating, rated or not (the DM with the bot is
    where the bot is); the rated one takes her out of the queue and starts a rated game against
    the AI in the DM."""
    carol = emulator.member("carol")
    dm = Table(emulator, emulator.dm_channel(carol))
    waiting = await join(dm, carol, "5+5")
    assert "Play the AI" not in str(waiting.buttons)
    with sqlite3.connect(tholos_bot.db_path) as db:
        db.execute("UPDATE pool_queue SET since = since - 60")
    await dm.click(carol, waiting, dm.labelled(waiting, "Refresh"))
    level = level_for_rating(1500)  # a newcomer's
    shown = f"{level} · {LEVEL_RATINGS[level]}"
    assert f"Play me, the AI, at your level meanwhile: {shown}." in waiting.text
    dm.labelled(waiting, f"Play the AI, unrated: {shown}")
    await dm.click(carol, waiting, dm.labelled(waiting, f"Play the AI, rated: {shown}"))
    await emulator.wait_for(lambda: dm.boards(), what="the game against the AI")
    await tholos_bot.settle()
    with sqlite3.connect(tholos_bot.db_path) as db:
        assert db.execute("SELECT COUNT(*) FROM pool_queue").fetchone() == (0,)
        assert db.execute("SELECT ai_level, time_control, rated FROM games").fetchall() == [
            (level, "5+5", 1)
        ]
    dm.assert_clean()


async def test_from_a_dm_between_members_the_game_comes_to_the_dm_with_the_bot(
    emulator: Emulator, tholos_bot: BotProcess
):
    """Alice added the app to her account and queues from her DM with Bob (the bot is not
    there): told her game will be in her DM with the bot; Carol queues from hers; their game is
    shown in both DMs with the bot, nothing posted in the DM between members."""
    alice, bob, carol = emulator.member("alice"), emulator.member("bob"), emulator.member("carol")
    emulator.install_for_user(alice)
    between = Table(emulator, emulator.dm_between(alice, bob))
    waiting = await join(between, alice, "correspondence")
    assert "Your game will be in our direct messages." in waiting.text
    assert "Play the AI, rated" not in str(waiting.buttons)
    carols = Table(emulator, emulator.dm_channel(carol))
    await join(carols, carol, "correspondence")
    await emulator.wait_for(lambda: "Paired with" in waiting.text, what="Alice paired")
    alices = Table(emulator, emulator.dm_channel(alice))
    await emulator.wait_for(
        lambda: alices.boards() and carols.boards(), what="the board in both DMs with the bot"
    )
    assert between.boards() == []
    with sqlite3.connect(tholos_bot.db_path) as db:
        places = db.execute("SELECT user_id, guild_id, channel_id FROM game_places").fetchall()
    assert sorted(places) == sorted(
        [(alice.id, 0, alices.channel.id), (carol.id, 0, carols.channel.id)]
    )
    for table in (between, alices, carols):
        table.assert_clean()
