"""Turn reminders in storage and the services, on both backends: the due time is stored in the
write that leaves a human to move (a new game, every turn), resolved from the server's settings
as the bot resolves them; the sweep's queries; clearing as a compare-and-set."""

from __future__ import annotations

import itertools
import random
import re

import pytest

from bot.base.game_options import GameOptions
from bot.base.people import Person
from bot.base.server_rules import ReminderDefaults
from bot.base.shards import Shards
from bot.features.challenges.service import ChallengeService
from bot.features.challenges.store import ChallengeStore
from bot.features.play.service import PlayService, TurnPlayed
from bot.features.reminders.feature import reminder_text
from bot.features.reminders.store import ReminderStore
from bot.i18n.catalogues import translator
from bot.loops.alarm import Alarm
from bot.loops.background import nonce
from bot.storage.db import scalar
from bot.storage.games.sql_rules import reminder_due
from bot.storage.games.store import GameStore
from bot.storage.leases import LeaseStore, reminder_lease
from bot.storage.servers import ServerSettings, ServerSettingsStore
from tests.databases import Clock, Services
from tests.features.play.test_service import ALICE, BOB, CHANNEL, GUILD, by, play, started

DAY = 86400.0
AI = 999


def reminding(database, clock: Clock, defaults: ReminderDefaults, rung: list[float]) -> Services:
    """The services of a bot that reminds with ``defaults``; the due times rung go to
    ``rung``."""
    games = GameStore(database)
    return Services(
        ChallengeService(
            ChallengeStore(database),
            games,
            challenge_timeout=600,
            clock=clock,
            rng=random.Random(4),
            reminders=defaults,
            alarm=rung.append,
        ),
        PlayService(
            games, inactivity_timeout=DAY, clock=clock, reminders=defaults, alarm=rung.append
        ),
    )


@pytest.fixture
def rung() -> list[float]:
    return []


@pytest.fixture
def service(database, clock, rung) -> Services:
    """Services reminding after half the idle-claim time (the default)."""
    return reminding(database, clock, ReminderDefaults(None, DAY), rung)


async def test_every_turn_stores_when_the_next_player_is_reminded(service, clock, rung):
    """A new game: its first player is reminded half a day after it starts; each turn moves
    that to half a day after it, for the other player; the alarm hears each due time; a
    finished game has none."""
    start = clock.now
    game = await started(service)
    assert game.reminder_due_at == start + DAY / 2
    clock.now += 100
    played = await play(service, game, "+w1")
    assert played.game.reminder_due_at == clock.now + DAY / 2
    assert rung == [start + DAY / 2, clock.now + DAY / 2]
    resigned = await service.play.resign(game.id, played.game.version, by(BOB))
    assert resigned.reminder_due_at is None


async def test_writes_that_are_not_turns_leave_the_reminder_alone(service, database):
    """Recording the board and moving the game to another thread change nothing."""
    game = await started(service)
    store = service.play.games
    assert await store.set_board_message(game.id, 555, game.version)
    moved = await store.move(game, channel_id=77, parent_id=CHANNEL, parent_message_id=5)
    assert moved.reminder_due_at == game.reminder_due_at is not None
    aborted = await service.play.abort(game.id, GUILD, ALICE)
    assert aborted.reminder_due_at is None


@pytest.mark.parametrize(
    ("bot_after", "server_after", "server_idle", "expected"),
    [
        (None, None, None, DAY / 2),  # half the bot's idle-claim time
        (None, None, 1000.0, 500.0),  # half the server's
        (120.0, None, 1000.0, 120.0),  # THOLOS_REMINDER_AFTER
        (120.0, 600.0, 1000.0, 600.0),  # the server's own
        (120.0, 0.0, None, None),  # off on the server
        (0.0, None, 1000.0, None),  # off for the bot
        (0.0, 60.0, None, 60.0),  # …but on for a server that wants them
    ],
)
async def test_the_reminder_time_is_resolved_like_the_server_rules(
    database, clock, bot_after, server_after, server_idle, expected
):
    """The due time, computed in the write itself, follows the server's reminder time, else
    the bot's, else half the idle-claim time in force; 0 turns reminders off. The same as
    :meth:`ReminderDefaults.resolve` (what ``/tholos-admin settings`` shows)."""
    defaults = ReminderDefaults(bot_after, DAY)
    settings = ServerSettings(inactivity_timeout=server_idle, reminder_after=server_after)
    await ServerSettingsStore(database).set(GUILD, settings, ALICE, clock.now)
    service = reminding(database, clock, defaults, [])
    game = await started(service)
    due = None if expected is None else clock.now + expected
    assert game.reminder_due_at == due
    resolved = defaults.resolve(server_after, server_idle)
    assert (resolved or None) == expected
    clock.now += 10
    played = await play(service, game, "+w1")
    assert played.game.reminder_due_at == (None if expected is None else clock.now + expected)


SETTINGS = (None, 0.0, 90.0)
"""A setting unset, 0, or a time."""


async def test_sql_and_python_resolve_the_reminder_time_alike_in_every_case(database, clock):
    """For every combination of the server's reminder and idle-claim times and the bot's
    (each unset, 0 or a time; also a server without a settings row), the reminder the SQL of
    the write that stores a turn schedules is :meth:`ReminderDefaults.resolve`'s time (none
    when it is 0: off), on both backends: one rule, in ``bot.base.server_rules``, in both
    languages."""
    servers, unset = ServerSettingsStore(database), GUILD + 1
    checked = set()
    for server_after, server_idle in itertools.product(SETTINGS, SETTINGS):
        settings = ServerSettings(inactivity_timeout=server_idle, reminder_after=server_after)
        await servers.set(GUILD, settings, ALICE, clock.now)
        for bot_after, bot_idle in itertools.product((None, 0.0, 120.0), (DAY, 50.0)):
            defaults = ReminderDefaults(bot_after, bot_idle)
            for guild in (GUILD, unset):
                due, values = reminder_due(defaults, 0.0, guild)
                in_sql = await scalar(database, f"SELECT {due}", values)
                resolved = defaults.resolve(
                    *((server_after, server_idle) if guild == GUILD else (None, None))
                )
                assert in_sql == (resolved or None), (guild, settings, defaults)
                checked.add(resolved)
    assert checked == {0.0, 90.0, 120.0, 45.0, 25.0, DAY / 2}  # every branch of the rule


async def test_the_ai_is_never_reminded(service, clock):
    """Against the AI: the human is reminded when they are to move (first, or after the AI's
    turn); after the human's turn the AI is to move, and nothing is due."""
    human, ai = Person(ALICE, "Alice"), Person(AI, "Tholos AI", bot=True)
    first = await service.challenges.new_games.start_ai_game(
        guild_id=GUILD,
        channel_id=CHANNEL,
        human=human,
        ai=ai,
        level="easy",
        options=GameOptions(colour="white", first="me"),
    )
    assert first.reminder_due_at == clock.now + DAY / 2
    played = await play(service, first, "+w1")
    assert played.game.to_move == AI and played.game.reminder_due_at is None
    clock.now += 5
    answer = played.game.position.legal_turns()[0]
    after_ai = await service.play.ai_turn(played.game, answer)
    assert after_ai is not None and after_ai.game.to_move == ALICE
    assert after_ai.game.reminder_due_at == clock.now + DAY / 2
    second = await service.challenges.new_games.start_ai_game(
        guild_id=GUILD,
        channel_id=CHANNEL + 1,
        human=Person(BOB, "Bob"),
        ai=ai,
        level="easy",
        options=GameOptions(colour="white", first="opponent"),
    )
    assert second.to_move == AI and second.reminder_due_at is None


async def test_the_sweep_finds_due_reminders_oldest_first_and_clears_them_once(
    service, database, clock
):
    """Due reminders come oldest first, at most the limit; the next one is known; clearing is
    a compare-and-set on the version (a turn played meanwhile keeps its own reminder)."""
    store = ReminderStore(database)
    games = []
    for number in range(3):
        made = await service.challenges.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL + number,
            challenger=Person(ALICE, "Alice"),
            opponent=Person(BOB + number, "Bob"),
            options=GameOptions(colour="white", first="me"),
        )
        answered = await service.challenges.answer(
            made.id, by(BOB + number, CHANNEL + number), "accept"
        )
        assert answered.game is not None
        games.append(answered.game)
        clock.now += 10
    first_due = games[0].reminder_due_at
    assert first_due is not None
    assert await store.due(first_due - 1, 10) == []
    assert await store.next_due(0) == first_due
    due = await store.due(first_due + 10, 10)
    assert [r.game_id for r in due] == [games[0].id, games[1].id]
    assert [r.game_id for r in await store.due(first_due + 100, 1)] == [games[0].id]
    assert await store.next_due(first_due) == games[1].reminder_due_at
    # a turn played since the sweep read it: the old version's clear changes nothing
    clock.now += 1000
    played = await service.play.choose(games[1].id, games[1].version, "Tw1", by(ALICE, CHANNEL + 1))
    assert isinstance(played, TurnPlayed)
    assert not await store.clear(games[1].id, games[1].version)
    assert (await service.play.games.game(games[1].id)).reminder_due_at == (
        played.game.reminder_due_at
    )
    lease, leases = reminder_lease(games[0].id, games[0].version), LeaseStore(database, "me")
    assert await leases.acquire(lease, clock.now)
    assert await store.clear(games[0].id, games[0].version, lease)
    assert await leases.expires_at(lease) is None  # clearing ended the lease
    assert not await store.clear(games[0].id, games[0].version)
    assert (await service.play.games.game(games[0].id)).reminder_due_at is None
    assert [r.game_id for r in await store.due(first_due + 100, 10)] == [games[2].id]
    assert await store.postpone(games[2].id, games[2].version, first_due + 500)
    assert await store.due(first_due + 100, 10) == []
    assert await store.next_due(0) == first_due + 500


async def test_the_sweep_sees_only_its_shards(service, database, clock):
    """A process running shard 1 of 2 sees the reminders of shard 1's servers only."""
    guilds = {0: 4 << 22, 1: 7 << 22}
    for shard, guild in guilds.items():
        made = await service.challenges.challenge(
            guild_id=guild,
            channel_id=CHANNEL + shard,
            challenger=Person(ALICE, "Alice"),
            opponent=Person(BOB, "Bob"),
            options=GameOptions(colour="white", first="me"),
        )
        await service.challenges.answer(made.id, by(BOB, CHANNEL + shard), "accept")
    later = clock.now + DAY
    for shard, guild in guilds.items():
        store = ReminderStore(database, Shards(2, (shard,)))
        assert [r.guild_id for r in await store.due(later, 10)] == [guild]
        assert await store.next_due(0) == clock.now + DAY / 2
    assert len(await ReminderStore(database).due(later, 10)) == 2


async def test_a_server_setting_change_moves_its_pending_reminders(service, database, clock):
    """Changing a server's reminder (or idle-claim) time moves its pending reminders to their
    last move plus the new time; 0 clears them."""
    game = await started(service)
    store, servers = ReminderStore(database), ServerSettingsStore(database)
    defaults = ReminderDefaults(None, DAY)
    await servers.set(GUILD, ServerSettings(reminder_after=60.0), ALICE, clock.now)
    assert await store.reschedule_server(GUILD, defaults) == game.last_move_at + 60
    await servers.set(GUILD, ServerSettings(inactivity_timeout=1000.0), ALICE, clock.now)
    assert await store.reschedule_server(GUILD, defaults) == game.last_move_at + 500
    await servers.set(GUILD, ServerSettings(reminder_after=0.0), ALICE, clock.now)
    assert await store.reschedule_server(GUILD, defaults) is None
    assert (await service.play.games.game(game.id)).reminder_due_at is None


async def test_players_choose_where_their_reminders_go(database):
    """``here`` until a player chooses; the choice is kept, and changed."""
    store = ReminderStore(database)
    assert await store.choice(ALICE) == "here"
    await store.choose(ALICE, "dm", 1.0)
    await store.choose(BOB, "off", 1.0)
    assert (await store.choice(ALICE), await store.choice(BOB)) == ("dm", "off")
    await store.choose(ALICE, "here", 2.0)
    assert await store.choice(ALICE) == "here"


def test_nonces_are_the_same_for_a_turn_and_fit_discords_limit():
    """One nonce per game version and destination, at most 25 characters, even for huge
    ids."""
    assert nonce("rt", 12, 3) == nonce("rt", 12, 3) == "rt.12.3"
    assert len({nonce("rt", 12, 3), nonce("rt", 12, 4), nonce("rd", 12, 3)}) == 3
    huge = nonce("rd", 2**63 - 1, 2**31)
    assert len(huge) <= 25 and huge == nonce("rd", 2**63 - 1, 2**31)
    assert huge != nonce("rd", 2**63 - 2, 2**31)


async def test_the_alarm_wakes_a_sleeper_only_for_something_sooner():
    """While awake every ring counts; asleep, only a due time before its wake-up."""
    alarm = Alarm()
    alarm.ring(50.0)
    assert alarm.rung.is_set()
    alarm.awake()
    alarm.sleeping_until(100.0)
    alarm.ring(150.0)
    assert not alarm.rung.is_set()
    alarm.ring(99.0)
    assert alarm.rung.is_set()


async def test_the_reminder_says_who_where_and_until_when(service, clock):
    """The reminder mentions the player to move only (the opponent by name), links the board,
    and gives the claim time as a Discord timestamp (or says it has come); against the AI it
    only says the game waits; by DM it also says on which server the game is."""
    game = await started(service)
    t = translator("en")
    claim = clock.now + DAY
    text = reminder_text(t, game, claim, clock.now)
    assert text.startswith(f"⏰ <@{ALICE}>, it's your turn against Bob")
    assert re.findall(r"<@!?&?(\d+)>", text) == [str(ALICE)]
    assert f"<t:{int(claim) + 1}:R>" in text
    assert f"(https://discord.com/channels/{GUILD}/{CHANNEL})" in text  # no board yet
    assert "already" in reminder_text(t, game, clock.now, clock.now)
    direct = reminder_text(t, game, claim, clock.now, direct=True, server="Delphi")
    assert "on Delphi: https://discord.com/channels/" in direct
    assert "waiting for your move" in reminder_text(t, game, None, clock.now)
