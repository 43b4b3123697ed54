"""Turn reminders, end to end with the real bot and a reminder time of 2 seconds
(``THOLOS_REMINDER_AFTER``): one reminder per turn, after the set time, that pings the player
to move and nobody else, with the claim time and a link to the board; none once the move is
made, none for the AI, none twice across a kill -9; by DM, or in the game's channel when the
player's DMs are closed; none for a player who chose ``off`` or on a server that turned them
off. Waits are on conditions (a message, the due time cleared in the database), never sleeps."""

from __future__ import annotations

import asyncio
import random
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from typing import Any

import asyncpg
import pytest

from engine import Position
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Channel, Emulator, Member, Message, RandomPlayer, rest
from tests.e2e.emulator.model import DISCORD_EPOCH_MS
from tests.e2e.table import BOARD_IMAGE, Table, is_board
from tests.postgres import PostgresServer

REMIND_AFTER = 2.0
LONG_WAIT = 600.0
"""A reminder time no test outlasts: what must not be due yet is not, however slow the machine
(a test makes it due by moving the stored times back)."""
REMINDING = {"THOLOS_REMINDER_AFTER": f"{REMIND_AFTER:g}"}
PATIENCE = 60.0
"""How long a test waits for a reminder that is due (the housekeeping loop wakes for it)."""
LEASE_PATIENCE = 60.0
"""…and for one whose sender was killed holding its lease (15 s) to be settled by another."""
_MENTIONS = re.compile(r"<@[!&]?(\d+)>")


Sent = list[tuple[str, dict[str, Any]]]
"""The messages the bot posted: each ``POST …/channels/<id>/messages`` path and its body."""


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[Sent]:
    """The messages the bot posts, as sent (the emulator keeps a message's content, not the
    ``allowed_mentions`` it was sent with)."""
    bodies: Sent = []
    read_body = rest.read_body

    async def recording(request: Any) -> Any:
        body, uploads = await read_body(request)
        if request.method == "POST" and request.path.endswith("/messages"):
            bodies.append((request.path, body))
        return body, uploads

    monkeypatch.setattr(rest, "read_body", recording)
    yield bodies


async def reminding_bot(emulator: Emulator, spawn_bot: SpawnBot, **env: str) -> BotProcess:
    """The real bot, reminding after :data:`REMIND_AFTER` seconds."""
    bot = spawn_bot(emulator, env={**REMINDING, **env})
    await bot.start(sync=True)
    return bot


def reminders(emulator: Emulator, channel: Channel) -> list[Message]:
    """The reminders posted in ``channel`` (a text channel, a thread or a DM), oldest first."""
    return [m for m in emulator.messages(channel) if m.content.startswith("⏰")]


def pinged(message: Message) -> list[int]:
    """The user ids a message's content mentions."""
    return [int(found) for found in _MENTIONS.findall(message.content)]


def posted_at(message: Message) -> float:
    """When a message was posted (its snowflake's time), in seconds since the epoch."""
    return ((message.id >> 22) + DISCORD_EPOCH_MS) / 1000


def games(bot: BotProcess) -> dict[int, tuple[float | None, float, int]]:
    """Each game's ``(reminder_due_at, last_move_at, version)``, from the bot's database."""
    with closing(sqlite3.connect(bot.db_path)) as database:
        rows = database.execute("SELECT id, reminder_due_at, last_move_at, version FROM games")
        return {row[0]: (row[1], row[2], row[3]) for row in rows}


def due(bot: BotProcess) -> list[float]:
    """The reminders pending in the bot's database."""
    return [reminder for reminder, _, _ in games(bot).values() if reminder is not None]


async def nothing_pending(url: str) -> None:
    """Wait until no reminder is pending in the PostgreSQL database ``url`` (the condition is
    polled: other processes change it)."""
    connection = await asyncpg.connect(url)
    try:
        async with asyncio.timeout(PATIENCE):
            query = "SELECT COUNT(*) FROM games WHERE reminder_due_at IS NOT NULL"
            while await connection.fetchval(query):
                await asyncio.sleep(0.05)
    finally:
        await connection.close()


def the_game(bot: BotProcess) -> tuple[float | None, float, int]:
    """The only game's ``(reminder_due_at, last_move_at, version)``."""
    (game,) = games(bot).values()
    return game


def check_reminder(
    sent: Sent, reminder: Message, player: Member, last_move: float, after: float = REMIND_AFTER
) -> None:
    """``reminder`` pings ``player`` alone, in content and in the ``allowed_mentions`` it was
    sent with (nobody else can be pinged by it), came ``after`` seconds after the last move,
    and was sent with a nonce that Discord enforces (every send of it: a resend carries the
    same)."""
    assert pinged(reminder) == [player.id], reminder.content
    assert reminder.pinged == [player.id], "Discord notified the player alone"
    assert reminder.content.startswith(f"⏰ <@{player.id}>")
    bodies = [body for _, body in sent if body.get("nonce") == reminder.nonce]
    assert bodies and reminder.nonce is not None and str(reminder.nonce).startswith("r")
    for body in bodies:
        allowed = body["allowed_mentions"]
        assert allowed.get("parse") == [] and not allowed.get("replied_user"), allowed
        assert [int(user) for user in allowed["users"]] == [player.id], allowed
        assert not allowed.get("roles"), allowed
        assert body.get("enforce_nonce") is True
    assert posted_at(reminder) >= last_move + after - 0.01


def reminded_from(emulator: Emulator, channel: Channel, version: int) -> list[Message]:
    """The reminders in ``channel`` about the turns from ``version`` of its game on."""
    return [m for m in reminders(emulator, channel) if reminder_turn(m)[1] >= version]


async def test_a_reminder_comes_once_after_the_set_time_for_the_player_to_move(
    emulator: Emulator, spawn_bot: SpawnBot, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    """Alice moves: no reminder for her after that. Bob, to move, gets one reminder after the
    set time, pinging him alone, with when Alice may claim the win and a link to the board;
    one only. After his move, Alice gets hers. (On a machine slow enough that Alice's first
    move takes the reminder time, she is reminded of that turn before she plays it: once.)"""
    bot = await reminding_bot(emulator, spawn_bot)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await table.start_game(alice, bob)
    await table.play(table.position().legal_turns()[0])
    _, _, bobs_turn = the_game(bot)
    await emulator.wait_for(
        lambda: reminded_from(emulator, table.channel, bobs_turn),
        timeout=PATIENCE,
        what="Bob's reminder",
    )
    (reminder,) = reminded_from(emulator, table.channel, bobs_turn)
    _, last_move, _ = the_game(bot)
    check_reminder(sent, reminder, bob, last_move)
    claim = int(last_move + 86400) + 1
    assert f"<t:{claim}:R>" in reminder.content, reminder.content
    board = table.board
    link = f"https://discord.com/channels/{table.guild.id}/{table.channel.id}/{board.id}"
    assert f"]({link})" in reminder.content, reminder.content
    await emulator.wait_for(lambda: not due(bot), what="Bob's reminder cleared")
    assert len(reminded_from(emulator, table.channel, bobs_turn)) == 1, "one reminder per turn"
    await table.play(table.position().legal_turns()[0])
    await emulator.wait_for(
        lambda: len(reminded_from(emulator, table.channel, bobs_turn)) == 2,
        timeout=PATIENCE,
        what="Alice's reminder",
    )
    _, last_move, _ = the_game(bot)
    check_reminder(sent, reminders(emulator, table.channel)[-1], alice, last_move)
    await emulator.wait_for(lambda: not due(bot), what="Alice's reminder cleared")
    shown = [pinged(m) for m in reminders(emulator, table.channel)]
    assert shown in ([[bob.id], [alice.id]], [[alice.id], [bob.id], [alice.id]])
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_against_the_ai_only_the_human_is_reminded_in_the_games_thread(
    emulator: Emulator, spawn_bot: SpawnBot, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    """In a game against the AI (in its own thread), Alice is reminded that her game waits for
    her (no claim time: the AI never claims), once a turn; the AI never."""
    bot = await reminding_bot(emulator, spawn_bot, THOLOS_THREADS="on")
    table = Table(emulator)
    (alice,) = table.people_named("alice")
    ai = emulator.world.bot_member
    ix = await table.slash(
        alice, "tholos challenge", options={"opponent": ai, "level": "easy", "first": "me"}
    )
    assert ix.original is not None
    await emulator.wait_for(lambda: emulator.thread_of(ix.original), what="the game's thread")
    game = table.in_thread(emulator.thread_of(ix.original))
    await emulator.wait_for(lambda: game.boards(), what="the first board")
    for turn in (1, 2):
        await emulator.wait_for(
            lambda n=turn: len(reminders(emulator, game.channel)) == n,
            timeout=PATIENCE,
            what=f"Alice's reminder {turn}",
        )
        reminder = reminders(emulator, game.channel)[-1]
        _, last_move, _ = the_game(bot)
        check_reminder(sent, reminder, alice, last_move)
        assert "<t:" not in reminder.content and "Tholos AI" in reminder.content
        await emulator.wait_for(lambda: not due(bot), what="the reminder cleared")
        count = len(game.boards())
        await game.play(game.position().legal_turns()[0])  # the AI answers: a board more
        await emulator.wait_for(
            lambda c=count: len(game.boards()) >= c + 2, timeout=PATIENCE, what="the AI's turn"
        )
    assert all(pinged(m) == [alice.id] for m in reminders(emulator, game.channel))
    assert reminders(emulator, table.channel) == [], "in the game's thread, not its channel"
    table.assert_clean()
    game.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_no_reminder_is_lost_or_sent_twice_across_kill_9(
    emulator: Emulator, spawn_bot: SpawnBot, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    """Killed while a reminder is pending (it falls due while the bot is down: the stored times
    are moved back by the reminder time), the bot sends it after its restart; killed right
    after sending one, it never sends it again; and a crash between sending and clearing
    (simulated: the due time put back) resends it with the same nonce, which Discord answers
    with the first message: still one reminder."""
    bot = await reminding_bot(emulator, spawn_bot, THOLOS_REMINDER_AFTER=f"{LONG_WAIT:g}")
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    await table.start_game(alice, bob)
    assert await bot.kill() == -9
    reminder_due, last_move, version = the_game(bot)
    assert reminder_due == pytest.approx(last_move + LONG_WAIT)
    assert reminders(emulator, table.channel) == [], "killed before it was due"
    with closing(sqlite3.connect(bot.db_path)) as database, database:  # it fell due meanwhile
        database.execute(
            "UPDATE games SET last_move_at = ?, reminder_due_at = ?",
            (last_move - LONG_WAIT, reminder_due - LONG_WAIT),
        )
    reminder_due, last_move, _ = the_game(bot)
    await bot.start()
    await emulator.wait_for(
        lambda: reminders(emulator, table.channel),
        timeout=PATIENCE,
        what="the reminder, after the restart",
    )
    assert await bot.kill() == -9  # right after it appeared: perhaps before it was cleared
    await bot.start()
    await emulator.wait_for(
        lambda: not due(bot), timeout=LEASE_PATIENCE, what="the reminder cleared"
    )
    (reminder,) = reminders(emulator, table.channel)
    check_reminder(sent, reminder, alice, last_move, LONG_WAIT)
    assert await bot.stop() == 0
    with closing(sqlite3.connect(bot.db_path)) as database, database:
        database.execute("UPDATE games SET reminder_due_at = ?", (reminder_due,))
    posts = len(sent)
    await bot.start()
    await emulator.wait_for(lambda: not due(bot), timeout=PATIENCE, what="the resend settled")
    assert [body.get("nonce") for _, body in sent[posts:]] == [reminder.nonce], "resent once"
    assert reminders(emulator, table.channel) == [reminder], "Discord dropped the resend"
    assert the_game(bot)[2] == version
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_reminders_by_dm_fall_back_to_the_channel_when_dms_are_closed(
    emulator: Emulator, spawn_bot: SpawnBot, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    """Bob asks for his reminders by DM: one comes there, linking the game; once he closed
    his DMs, the next one comes in the game's channel instead (once, logged). Alice chose
    ``off``: she never gets one."""
    bot = await reminding_bot(emulator, spawn_bot)
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    shown = await table.slash(bob, "tholos settings")
    assert shown.original is not None and "here" in shown.original.content
    chose = await table.slash(bob, "tholos settings", reminders="dm")
    assert chose.original is not None and chose.original.ephemeral
    assert "dm" in chose.original.content
    await table.slash(alice, "tholos settings", reminders="off")
    await table.start_game(alice, bob)
    await emulator.wait_for(
        lambda: not due(bot), timeout=PATIENCE, what="Alice's reminder dropped: she chose off"
    )
    await table.play(table.position().legal_turns()[0])
    dms = emulator.dm_channel(bob)
    await emulator.wait_for(
        lambda: reminders(emulator, dms), timeout=PATIENCE, what="Bob's reminder by DM"
    )
    (direct,) = reminders(emulator, dms)
    _, last_move, _ = the_game(bot)
    check_reminder(sent, direct, bob, last_move)
    assert f"https://discord.com/channels/{table.guild.id}/{table.channel.id}" in direct.content
    assert emulator.guild.name in direct.content
    await emulator.wait_for(lambda: not due(bot), what="Bob's reminder cleared")
    await table.play(table.position().legal_turns()[0])
    await emulator.wait_for(
        lambda: not due(bot), timeout=PATIENCE, what="Alice's reminder dropped again"
    )
    emulator.close_dms(bob)
    await table.play(table.position().legal_turns()[0])
    await emulator.wait_for(
        lambda: reminders(emulator, table.channel),
        timeout=PATIENCE,
        what="Bob's reminder in the channel",
    )
    (fallback,) = reminders(emulator, table.channel)
    _, last_move, _ = the_game(bot)
    check_reminder(sent, fallback, bob, last_move)
    await emulator.wait_for(lambda: not due(bot), what="the fallback cleared")
    assert len(reminders(emulator, dms)) == 1 and len(reminders(emulator, table.channel)) == 1
    assert bot.log().count("DMs are closed") == 1
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_a_server_that_turns_reminders_off_gets_none(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """``/tholos-admin settings reminder_minutes: 0``: the settings say off, the pending
    reminder is dropped, and no turn stores one (a reminder time of 10 minutes: none is due
    during the test)."""
    bot = await reminding_bot(emulator, spawn_bot, THOLOS_REMINDER_AFTER=f"{LONG_WAIT:g}")
    table = Table(emulator)
    alice, bob = table.people_named("alice", "bob")
    shown = (await table.slash(alice, "tholos-admin settings")).original
    assert shown is not None
    fields = {f["name"]: f["value"] for f in shown.embeds[0]["fields"]}
    assert fields["Turn reminders after"] == "10 minutes"
    assert due(bot) == []
    await table.start_game(alice, bob)
    assert len(due(bot)) == 1
    changed = (await table.slash(alice, "tholos-admin settings", reminder_minutes=0)).original
    assert changed is not None
    fields = {f["name"]: f["value"] for f in changed.embeds[0]["fields"]}
    assert fields["Turn reminders after"] == "off"
    assert due(bot) == [], "the pending reminder is dropped"
    await table.play(table.position().legal_turns()[0])
    assert due(bot) == [], "no turn stores one"
    assert reminders(emulator, table.channel) == []
    table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_with_shards_only_the_owner_sends_and_two_processes_send_once(
    emulator: Emulator,
    spawn_bot: SpawnBot,
    postgres_server: PostgresServer,
    sent: Sent,
) -> None:
    """Two shards in two processes on one PostgreSQL, and a second process for shard 1 (a
    handoff) started while its reminder is pending: each server's reminder comes once, sent by
    a process running its shard."""
    url = await postgres_server.create_database()
    guilds = [emulator.add_guild(f"Shard {shard}", shard=(shard, 2)) for shard in (0, 1)]

    def shard(number: int) -> BotProcess:
        env = {
            **REMINDING,
            "THOLOS_REMINDER_AFTER": "8",
            "THOLOS_DB": url,
            "THOLOS_SHARD_COUNT": "2",
            "THOLOS_SHARD_IDS": str(number),
        }
        return spawn_bot(emulator, env=env, guild_commands=False)

    zero, one = shard(0), shard(1)
    await zero.start(sync=True)
    await one.start()
    tables = [Table(emulator, "games", guild=guild) for guild in guilds]
    alice, bob = tables[0].people_named("alice", "bob")
    await asyncio.gather(*(table.start_game(alice, bob) for table in tables))
    handoff = shard(1)  # no interaction while two processes run shard 1: both would answer
    await handoff.start()
    for table in tables:
        await emulator.wait_for(
            lambda t=table: reminders(emulator, t.channel), timeout=PATIENCE, what="the reminder"
        )
    await nothing_pending(url)
    for table in tables:
        assert [pinged(m) for m in reminders(emulator, table.channel)] == [[alice.id]]
    assert zero.log().count("reminded player") == 1
    assert one.log().count("reminded player") + handoff.log().count("reminded player") == 1
    assert emulator.violations == []
    for process in (zero, one, handoff):
        assert await process.stop() == 0
        process.assert_clean_log()


async def test_a_game_against_the_ai_in_a_dm_is_reminded_there(
    emulator: Emulator, spawn_bot: SpawnBot, sent: Sent
) -> None:
    """``/tholos-ai`` in the DM with the bot: the reminder comes in that DM, pings the player
    alone and links the board there (``@me``)."""
    bot = spawn_bot(emulator, env=REMINDING, guild_commands=False)
    await bot.start(sync=True)
    alice = emulator.member("alice")
    dm = emulator.dm_channel(alice)
    started = await emulator.slash(alice, "tholos-ai", channel=dm, level="easy", first="me")
    assert started.acknowledged and not started.failed
    await emulator.wait_for(
        lambda: reminders(emulator, dm), timeout=PATIENCE, what="the reminder in the DM"
    )
    (reminder,) = reminders(emulator, dm)
    _, last_move, _ = the_game(bot)
    check_reminder(sent, reminder, alice, last_move)
    assert f"https://discord.com/channels/@me/{dm.id}/" in reminder.content
    await emulator.wait_for(lambda: not due(bot), what="the reminder cleared")
    assert len(reminders(emulator, dm)) == 1
    assert emulator.violations == []
    assert await bot.stop() == 0
    bot.assert_clean_log()


_NONCE = re.compile(r"r[td]\.(\d+)\.(\d+)")


def every_reminder(emulator: Emulator, people: list[Member], channel: Channel) -> list[Message]:
    """The reminders in ``channel``, its threads and the people's DMs with the bot."""
    places = [channel, *emulator.threads(channel), *(emulator.dm_channel(p) for p in people)]
    return [m for place in places for m in reminders(emulator, place)]


def waiting_for_a_human(bot: BotProcess) -> dict[tuple[int, int], int]:
    """The turns the database says a human owes a reminder for, once due: ``(game, version)``
    → the player to move, for every active correspondence game (a live game's clock is its
    reminder) whose mover is a human (not the bot's AI) who did not turn reminders off, on a
    server that did not turn them off."""
    with closing(sqlite3.connect(bot.db_path)) as database:
        off = {
            row[0]
            for row in database.execute(
                "SELECT user_id FROM player_settings WHERE reminders = 'off'"
            )
        }
        silent = {
            row[0]
            for row in database.execute(
                "SELECT guild_id FROM guild_settings WHERE reminder_after = 0"
            )
        }
        rows = database.execute(
            "SELECT id, version, guild_id, position, white_id, black_id FROM games "
            "WHERE status = 'active' AND time_control IS NULL"
        ).fetchall()
    owed = {}
    for game, version, guild, position, white, black in rows:
        mover = (white, black)[Position.parse(position).turn]
        if mover != bot.emulator.bot_user.id and mover not in off and guild not in silent:
            owed[(game, version)] = mover
    return owed


async def test_random_play_with_pauses_and_kills_brings_one_reminder_per_pause(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
) -> None:
    """How the issue is checked: a random player using every command and button a member has
    (games in threads, against the AI too), with kill -9 restarts and a reminder time of
    2 s, pausing now and then; beside it, a game between two members the player never acts as,
    where a turn is played before each pause (so every pause has a human to move). Each pause
    brings exactly one reminder per turn a human owes that pings exactly that player, wherever
    they chose; no turn is ever reminded twice; every board is a V2 layout with its image in a
    media gallery."""
    bot = spawn_bot(emulator, env={**REMINDING, "THOLOS_THREADS": "on"})
    await bot.start(sync=True)
    people = [emulator.member("bob"), emulator.member("carol"), emulator.add_person("dave")]
    erin, frank = emulator.add_person("erin"), emulator.add_person("frank")
    everyone = [*people, erin, frank]
    general = emulator.channel("general")
    paused = await Table(emulator).start_game_in_thread(erin, frank)
    rng = random.Random(seed)
    player = RandomPlayer(
        emulator, people, general, seed=seed, command_rate=0.25, settle=bot.settle
    )
    for round_number in range(4):
        made = await player.play(25)
        assert not [ix for ix in made if ix.failed], player.history[-15:]
        await paused.play(rng.choice(paused.position().legal_turns()))
        await bot.settle()
        owed = waiting_for_a_human(bot)
        assert paused.mover().id in owed.values(), "the paused game's mover owes a reminder"
        if round_number % 2 == 1:  # killed while reminders are pending: they come after all
            assert await bot.kill() == -9
            await bot.start()

        def reminded(owed: dict[tuple[int, int], int] = owed) -> bool:
            nonces = {reminder_turn(m) for m in every_reminder(emulator, everyone, general)}
            return set(owed) <= nonces

        await emulator.wait_for(reminded, timeout=PATIENCE, what=f"the reminders of {owed}")
        if round_number % 2 == 0:  # killed right after the reminders: none comes again
            assert await bot.kill() == -9
            await bot.start()
    await bot.settle()
    seen: dict[tuple[int, int], list[Message]] = {}
    for reminder in every_reminder(emulator, everyone, general):
        seen.setdefault(reminder_turn(reminder), []).append(reminder)
    assert len(seen) >= 4, "a reminder for each turn played in the paused game at least"
    for turn, sent in seen.items():
        assert len(sent) == 1, f"turn {turn} was reminded {len(sent)} times"
        (reminder,) = sent
        assert len(reminder.pinged) == 1 and reminder.content.startswith(
            f"⏰ <@{reminder.pinged[0]}>"
        ), reminder.content
        assert reminder.pinged[0] != bot.emulator.bot_user.id, "never the AI"
    places = [general, *emulator.threads(general), *(emulator.dm_channel(p) for p in everyone)]
    boards = [
        m
        for place in places
        for m in emulator.messages(place)
        if m.attachments and BOARD_IMAGE.fullmatch(m.attachments[0].filename)
    ]
    assert boards and all(is_board(board) and board.media_items for board in boards)
    paused.assert_clean()
    assert emulator.violations == []
    assert await bot.stop() == 0


def reminder_turn(reminder: Message) -> tuple[int, int]:
    """The ``(game, version)`` a reminder is about, from its nonce."""
    found = _NONCE.fullmatch(str(reminder.nonce))
    assert found, f"a reminder without the bot's nonce: {reminder.nonce!r}"
    return int(found[1]), int(found[2])
