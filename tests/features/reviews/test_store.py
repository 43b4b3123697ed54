"""After the game, on both backends: a member's finished games (history, paged, newest first;
the recent ones of a channel), and reviews queued once per game, run, stored."""

from __future__ import annotations

from bot.base.game_options import GameOptions
from bot.base.people import Person
from bot.features.reviews.store import ReviewStore
from bot.storage.leases import Lease, LeaseStore
from bot.storage.listings import GameListings
from tests.features.play.test_service import ALICE, BOB, CAROL, CHANNEL, GUILD, by


async def finished(
    service, clock, opponent: int = BOB, channel: int = CHANNEL, *, later: float = 10.0
):
    """A game Alice starts against ``opponent`` in ``channel`` and resigns at once, ``later``
    seconds after the one before (0: at the same moment)."""
    clock.now += later
    made = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=channel,
        challenger=Person(ALICE, "Alice"),
        opponent=Person(opponent, "Opponent"),
        options=GameOptions(),
    )
    game = (await service.challenges.answer(made.id, by(opponent, channel), "accept")).game
    return await service.play.resign(game.id, game.version, by(ALICE, channel))


async def test_history_pages_a_members_finished_games_newest_first(service, clock):
    games = [await finished(service, clock, opponent) for opponent in (BOB, CAROL, BOB)]
    games.append(await finished(service, clock, BOB, CHANNEL + 1))
    store = GameListings(service.play.games.database)
    assert await store.finished_count(GUILD, ALICE) == 4
    assert await store.finished_count(GUILD, CAROL) == 1
    first = await store.finished_page(GUILD, ALICE, 0, 3)
    second = await store.finished_page(GUILD, ALICE, 1, 3)
    assert [g.id for g in first + second] == [g.id for g in reversed(games)]
    assert [g.id for g in await store.finished_page(GUILD, BOB, 0, 10)] == [
        games[3].id,
        games[2].id,
        games[0].id,
    ]
    recent = await store.recent_finished(CHANNEL, ALICE, 2)
    assert [g.id for g in recent] == [games[2].id, games[1].id]
    assert await store.recent_finished(CHANNEL, CAROL + 1, 5) == []


async def test_a_review_is_queued_once_and_stored(service, clock, database):
    game = await finished(service, clock)
    reviews = ReviewStore(database)
    record, new = await reviews.request(game.id, GUILD, CHANNEL, BOB, clock.now, 12)
    assert new and (record.status, record.done, record.total) == ("queued", 0, 12)
    again, new = await reviews.request(game.id, GUILD, CHANNEL, ALICE, clock.now + 1, 12)
    assert not new and again.requested_by == BOB
    await reviews.set_message(game.id, 555)
    assert [r.game_id for r in await reviews.waiting()] == [game.id]
    await reviews.progress(game.id, 5, 12)
    running = await reviews.review(game.id)
    assert (running.status, running.done, running.message_id) == ("running", 5, 555)
    await reviews.finish(game.id, '{"turns": []}', clock.now + 30)
    done = await reviews.review(game.id)
    assert (done.status, done.done, done.review) == ("done", 12, '{"turns": []}')
    assert await reviews.waiting() == []
    await reviews.progress(game.id, 1, 12)  # a late report changes nothing
    assert (await reviews.review(game.id)).status == "done"


async def test_a_review_lease_is_renewed_only_by_its_holder(database, clock):
    mine, theirs = LeaseStore(database, "me"), LeaseStore(database, "them")
    lease = Lease("review:1", 30)
    assert await mine.acquire(lease, clock.now)
    assert not await theirs.acquire(lease, clock.now + 20)
    assert await mine.renew(lease, clock.now + 20)
    assert not await theirs.acquire(lease, clock.now + 40)
    assert not await theirs.renew(lease, clock.now + 40)
    assert await theirs.acquire(lease, clock.now + 51)
