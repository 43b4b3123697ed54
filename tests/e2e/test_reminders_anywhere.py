"""Turn reminders and stats where the bot is not (issue 46 items 5 and 6), end to end with the
real bot, its commands registered globally, and the emulator keeping Discord's rules.

Games in a DM between members, a group DM and a server without the bot are written to the
bot's database before it starts (as the play flow would store them), each long idle: the bot
sends one reminder by DM to the player who chose ``dm`` and whom Discord lets it write to (the
app installed to their account, no server shared), none to one who chose ``here``, and tries
once for DMs Discord refuses (closed, or neither a shared server nor an install: 403/50007),
never again; it makes no request to any of those games' channels (the emulator would record a
violation). ``/tholos settings`` and ``/tholos stats`` answer in every place, saying what
happens there.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from contextlib import closing
from pathlib import Path

from bot.base.game import GamePlace, NewGame, Venue
from bot.base.people import Person
from bot.base.server_rules import ReminderDefaults
from bot.features.reminders.store import ReminderChoice, ReminderStore
from bot.storage import open_database
from bot.storage.games.changes import insert_game
from engine.newgame import new_game
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import Channel, Emulator, Member

REMIND_AFTER = 2.0
PATIENCE = 60.0
"""How long the test waits for the due reminders to be settled (the first sweep at start)."""
CLOSED = (403, 50007)


async def idle_game(
    path: Path, channel: Channel, venue: Venue, to_move: Member, other: Member
) -> None:
    """A game at ``venue`` (server id 0: the bot is not there) in ``channel``, ``to_move``
    (White) to move, idle for a minute: its reminder is due."""
    database = await open_database(str(path))
    try:
        new = NewGame(
            GamePlace(0, channel.id, venue=venue),
            Person(to_move.id, to_move.user.global_name or "?"),
            Person(other.id, other.user.global_name or "?"),
            7,
            new_game(),
        )
        async with database.transaction() as transaction:
            await insert_game(
                transaction,
                new,
                now=time.time() - 60,
                reminders=ReminderDefaults(REMIND_AFTER, 86400.0),
            )
    finally:
        await database.close()


async def choose(path: Path, member: Member, choice: ReminderChoice) -> None:
    database = await open_database(str(path))
    try:
        await ReminderStore(database).choose(member.id, choice, time.time())
    finally:
        await database.close()


async def nothing_pending(path: Path) -> None:
    """Wait until no reminder is pending in the bot's database."""
    async with asyncio.timeout(PATIENCE):
        while True:
            with closing(sqlite3.connect(path)) as database:
                query = "SELECT COUNT(*) FROM games WHERE reminder_due_at IS NOT NULL"
                if database.execute(query).fetchone()[0] == 0:
                    return
            await asyncio.sleep(0.05)


async def test_reminders_where_the_bot_is_not_go_by_dm_only_once(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """Dave (no server shared, the app installed) chose dm: reminded in his DM with the bot,
    linked to the DM the game is in. Bob chose here: nothing. Carol chose dm but closed her
    DMs, Erin chose dm with neither a server nor the app: each refused once, not retried.
    Nothing goes to the games' channels."""
    alice, bob, carol = (emulator.member(name) for name in ("alice", "bob", "carol"))
    dave, erin = emulator.add_user("dave"), emulator.add_user("erin")
    between = emulator.dm_between(dave, alice)
    group = emulator.dm_between(alice, bob, carol, name="friends")
    elsewhere = emulator.add_guild_without_bot("Elsewhere")
    without_bot = emulator.channel("general", elsewhere)
    erins = emulator.dm_between(erin, alice)
    bot = spawn_bot(emulator, guild_commands=False, env={"THOLOS_REMINDER_AFTER": "2"})
    await bot.start(sync=True)  # the app now offers the user install
    emulator.install_for_user(dave)
    assert await bot.stop() == 0
    path = bot.db_path
    await idle_game(path, between, "dm", dave, alice)
    await idle_game(path, group, "group_dm", bob, carol)
    await idle_game(path, without_bot, "server_without_bot", carol, alice)
    await idle_game(path, erins, "dm", erin, alice)
    for member, choice in ((dave, "dm"), (bob, "here"), (carol, "dm"), (erin, "dm")):
        await choose(path, member, choice)
    emulator.close_dms(carol)
    await bot.start()  # its first sweep finds the four due
    await nothing_pending(path)

    [reminder] = emulator.messages(emulator.dm_channel(dave))
    assert reminder.content.startswith(f"⏰ <@{dave.id}>, it's your turn against Alice.")
    assert f"https://discord.com/channels/@me/{between.id}" in reminder.content
    assert reminder.pinged == [dave.id]
    for channel in (between, group, without_bot, erins):
        assert emulator.messages(channel) == [], "nothing where the bot is not"
    assert emulator.messages(emulator.dm_channel(bob)) == []
    refused = sorted(r.path for r in emulator.requests if r.status == 403)
    assert refused == sorted(
        f"/api/v10/channels/{emulator.dm_channel(member).id}/messages" for member in (carol, erin)
    ), "each refused DM tried once"
    assert bot.log().count("DMs are closed to the bot") == 2
    assert emulator.violations == []
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_settings_and_stats_answer_in_every_place(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """Dave (the app installed, no server shared) runs ``/tholos settings`` and ``/tholos
    stats`` in his DM with the bot, a DM with Alice, a group DM and a server without the bot:
    each answers (settings for him alone), saying what happens to reminders of games where the
    bot is not, and that he has no rating yet (those games are unrated). In a server with the
    bot, Alice gets the server's reminder time as before, and the same line about the other
    places."""
    bot = spawn_bot(emulator, guild_commands=False)
    await bot.start(sync=True)
    alice, bob = emulator.member("alice"), emulator.member("bob")
    dave = emulator.add_user("dave")
    emulator.install_for_user(dave)
    elsewhere = emulator.add_guild_without_bot("Elsewhere", [dave, alice])
    places = [
        emulator.dm_channel(dave),
        emulator.dm_between(dave, alice),
        emulator.dm_between(dave, alice, bob),
        emulator.channel("general", elsewhere),
    ]
    for place in places:
        here = await emulator.slash(dave, "tholos settings", channel=place, reminders="here")
        shown = here.original
        assert shown is not None and shown.ephemeral, place.name
        assert shown.content.startswith("Saved. Your turn reminders: here")
        assert "I can't post, so you get no reminders there: choose dm" in shown.content
        assert "On this server" not in shown.content
        chose = await emulator.slash(dave, "tholos settings", channel=place, reminders="dm")
        assert chose.original is not None and chose.original.ephemeral
        assert chose.original.content.startswith("Saved. Your turn reminders: dm")
        assert "if Discord lets me write to you" in chose.original.content
        stats = (await emulator.slash(dave, "tholos stats", channel=place)).original
        assert stats is not None and not stats.ephemeral
        fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
        assert fields["Rating"] == "Not rated yet."
        assert fields["Games"] == "No finished games outside servers yet."
    server = (await emulator.slash(alice, "tholos settings")).original
    assert server is not None and "On this server they come after" in server.content
    assert "where I'm not a member" in server.content
    stats = (await emulator.slash(alice, "tholos stats")).original
    assert stats is not None
    fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
    assert fields["Rating"] == "Not rated yet."
    assert "Outside servers (unrated)" not in fields
    assert emulator.violations == []
    assert await bot.stop() == 0
    bot.assert_clean_log()
