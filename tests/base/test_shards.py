"""Shard ownership, defined once (``bot.base.shards``): the SQL condition the sweeps select with
agrees with the Python test on both backends, and every sweep of a sharded process reads only
its own servers' rows."""

from __future__ import annotations

import random

import pytest

from bot.base.game import GamePlace, NewGame
from bot.base.game_options import GameOptions
from bot.base.people import Person
from bot.base.shards import DIRECT_MESSAGES, EVERY_SERVER, Shards
from bot.features.challenges.store import ChallengeStore
from bot.features.reminders.store import ReminderStore
from bot.features.reviews.store import ReviewStore
from bot.storage.games.store import GameStore
from bot.storage.sweeps import Sweeps
from engine.newgame import new_game
from tests.features.play.test_service import ALICE, BOB

LARGEST_SNOWFLAKE = (1 << 63) - 1
AI = 999


def test_shards_are_checked_and_read_from_the_settings():
    """Ids out of range, repeated or unordered are refused; no count means one process for
    every server, no ids every shard of the count; direct messages are shard 0's."""
    for count, ids in ((0, (0,)), (2, (2,)), (2, ()), (3, (2, 1)), (3, (1, 1))):
        with pytest.raises(ValueError, match="shard"):
            Shards(count, ids)
    assert Shards.of(None, None) == EVERY_SERVER and EVERY_SERVER.every
    assert Shards.of(4, None) == Shards(4, (0, 1, 2, 3)) and Shards.of(4, None).every
    assert not Shards(4, (0, 3)).every
    assert all(Shards(count, (0,)).owns(DIRECT_MESSAGES) for count in range(1, 20))


def random_shards(rng: random.Random) -> Shards:
    """Some shards of some count (every shard now and then)."""
    count = rng.randint(1, 40)
    ids = sorted(rng.sample(range(count), rng.randint(1, count)))
    return Shards(count, tuple(ids))


async def test_the_sql_condition_agrees_with_the_python_test(database):
    """For thousands of server ids (random snowflakes, and the edges: direct messages, the
    shard bits' boundaries, the largest snowflake) and random shard sets, the rows the SQL
    condition selects are exactly the servers :meth:`Shards.owns` accepts — on SQLite and on
    PostgreSQL's ``BIGINT``."""
    seed = random.randrange(2**32)
    print(f"seed {seed}")
    rng = random.Random(seed)
    edges = [DIRECT_MESSAGES, 1, (1 << 22) - 1, 1 << 22, (1 << 22) + 1, LARGEST_SNOWFLAKE]
    guilds = sorted({*edges, *(rng.randrange(1 << 63) for _ in range(3000))})
    async with database.transaction() as transaction:
        await transaction.execute("CREATE TABLE servers (guild_id BIGINT PRIMARY KEY)")
        await transaction.executemany(
            "INSERT INTO servers (guild_id) VALUES (?)", [(guild,) for guild in guilds]
        )
    tried = [Shards(), Shards(2, (1,)), Shards(7, (0, 6))]
    tried += [random_shards(rng) for _ in range(40)]
    for shards in tried:
        condition, values = shards.sql()
        rows = await database.fetchall(
            f"SELECT guild_id FROM servers WHERE {condition} ORDER BY guild_id", values
        )
        expected = [guild for guild in guilds if shards.owns(guild)]
        assert [row[0] for row in rows] == expected, (seed, shards)
    assert any(0 < len([g for g in guilds if s.owns(g)]) < len(guilds) for s in tried)


SERVERS = {0: (DIRECT_MESSAGES, 3 << 22), 1: (1 << 40,), 2: (5 << 22,)}
"""Servers of each of 3 shards (direct messages on shard 0)."""


async def test_every_sweep_reads_only_its_own_servers_rows(database, service, clock):
    """A game against the AI, a game whose board is missing, a pending challenge, a queued
    review and a due reminder on servers of each of 3 shards: a process running some of the
    shards finds only theirs in every sweep; an unsharded one finds them all."""
    games = GameStore(database)
    for number, guild in enumerate(guild for guilds in SERVERS.values() for guild in guilds):
        channel = 100 + number
        place = GamePlace(guild, channel)
        start = new_game("basic", seed=number)
        new = NewGame(
            place, Person(ALICE, "Alice"), Person(AI, "AI"), number, start, ai_level="easy"
        )
        ai_game = await games.create_ai_game(new, now=clock.now)
        await ReviewStore(database).request(ai_game.id, guild, channel, ALICE, clock.now, 1)
        await service.challenges.challenge(
            guild_id=guild,
            channel_id=channel + 50,
            challenger=Person(ALICE, "Alice"),
            opponent=Person(BOB, "Bob"),
            options=GameOptions(),
        )
        async with database.transaction() as transaction:  # a reminder due now
            await transaction.execute(
                "UPDATE games SET reminder_due_at = ? WHERE id = ?", (clock.now, ai_game.id)
            )
    later = clock.now + 10_000

    async def swept(shards: Shards) -> dict[str, set[int]]:
        """The servers each sweep of a process running ``shards`` finds rows of."""
        sweeps = Sweeps(database, shards)
        reviews, reminders = ReviewStore(database, shards), ReminderStore(database, shards)
        challenges = ChallengeStore(database, shards)
        return {
            "ai": {game.guild_id for game in await sweeps.ai_games()},
            "boards": {game.guild_id for game in await sweeps.games_needing_a_board(later)},
            "expired": {c.guild_id for c in await challenges.expired(later)},
            "reviews": {review.guild_id for review in await reviews.waiting()},
            "reminders": {due.guild_id for due in await reminders.due(later, 100)},
        }

    everything = {guild for guilds in SERVERS.values() for guild in guilds}
    assert all(found == everything for found in (await swept(EVERY_SERVER)).values())
    for ids in ((0,), (1,), (2,), (0, 2)):
        expected = {guild for shard in ids for guild in SERVERS[shard]}
        found = await swept(Shards(3, ids))
        assert found == dict.fromkeys(found, expected), ids
        assert await ChallengeStore(database, Shards(3, ids)).next_expiry() == clock.now + 600
        assert await ChallengeStore(database, Shards(4, (2,))).next_expiry() is None
