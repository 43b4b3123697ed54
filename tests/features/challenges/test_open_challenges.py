"""Open challenges: anyone may take one, the first to accept has it (on both backends)."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.base.game_options import GameOptions
from bot.base.people import Person
from bot.base.refusals import Refusal
from bot.features.challenges.service import ChallengeService
from bot.features.challenges.store import MAX_OPEN_CHALLENGES, ChallengeStore
from bot.features.ratings.store import RatingStore
from bot.storage.db import Database
from bot.storage.games.store import GameStore
from tests.databases import Services
from tests.features.play.test_service import ALICE, BOB, CAROL, CHANNEL, GUILD, NAMES, by

DAVE = 400
NAMES = NAMES | {DAVE: "Dave"}


async def open_challenge(
    service: Services, challenger: int = ALICE, channel: int = CHANNEL, **options
):
    """``challenger`` (Alice) posts an open challenge in ``channel``: White, moving first."""
    rating_range = options.pop("rating_range", None)
    return await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=channel,
        challenger=Person(challenger, NAMES[challenger]),
        opponent=None,
        options=GameOptions(**({"colour": "white", "first": "me"} | options)),
        rating_range=rating_range,
    )


async def test_anyone_but_the_challenger_may_take_an_open_challenge(service):
    made = await open_challenge(service)
    assert made.is_open and made.open_to_all and made.opponent_id is None
    with pytest.raises(Refusal, match="your own challenge"):
        await service.challenges.answer(made.id, by(ALICE), "accept", name="Alice")
    with pytest.raises(Refusal, match="can't be declined"):
        await service.challenges.answer(made.id, by(BOB), "decline", name="Bob")
    with pytest.raises(Refusal, match="Only the challenger"):
        await service.challenges.answer(made.id, by(CAROL), "withdraw", name="Carol")
    assert (await service.challenges.challenges.challenge(made.id)).status == "pending"

    taken = await service.challenges.answer(made.id, by(CAROL), "accept", name="Carol")
    game = taken.game
    assert game is not None
    assert (game.white_id, game.black_id, game.white_name, game.black_name) == (
        ALICE,
        CAROL,
        "Alice",
        "Carol",
    )
    challenge = taken.challenge
    assert (challenge.status, challenge.opponent_id, challenge.opponent_name) == (
        "accepted",
        CAROL,
        "Carol",
    )
    assert challenge.open_to_all and not challenge.is_open
    with pytest.raises(Refusal, match="Someone was faster"):
        await service.challenges.answer(made.id, by(BOB), "accept", name="Bob")


async def test_members_racing_for_an_open_challenge_get_one_game(service, other_process, seed):
    """Two members press Accept at once, through two processes: one game, one "faster"."""
    rng = random.Random(seed)
    for round_ in range(4):
        made = await open_challenge(service, channel=CHANNEL + round_)
        racers = rng.sample([BOB, CAROL, DAVE], 2)
        results = await asyncio.gather(
            service.challenges.answer(
                made.id, by(racers[0], made.channel_id), "accept", name=NAMES[racers[0]]
            ),
            other_process.challenges.answer(
                made.id, by(racers[1], made.channel_id), "accept", name=NAMES[racers[1]]
            ),
            return_exceptions=True,
        )
        won = [r for r in results if not isinstance(r, BaseException)]
        lost = [r for r in results if isinstance(r, BaseException)]
        assert len(won) == 1 and len(lost) == 1, results
        assert isinstance(lost[0], Refusal) and "faster" in str(lost[0])
        winner = racers[results.index(won[0])]
        stored = await service.challenges.challenges.challenge(made.id)
        assert stored.opponent_id == winner and stored.game_id == won[0].game.id
        assert {won[0].game.white_id, won[0].game.black_id} == {ALICE, winner}


async def test_a_member_holds_one_open_challenge_a_channel_and_a_few_a_server(service, clock):
    first = await open_challenge(service)
    with pytest.raises(Refusal, match="already waiting in this channel"):
        await open_challenge(service)
    await open_challenge(service, channel=CHANNEL + 1)
    await open_challenge(service, channel=CHANNEL + 2)
    assert MAX_OPEN_CHALLENGES == 3
    with pytest.raises(Refusal, match="3 open challenges"):
        await open_challenge(service, channel=CHANNEL + 3)
    await service.challenges.answer(first.id, by(ALICE), "withdraw")
    fourth = await open_challenge(service, channel=CHANNEL + 3)
    assert fourth.is_open
    assert await open_challenge(service, BOB)  # others have their own allowance
    clock.now += 601  # expired open challenges no longer count
    for channel in range(CHANNEL + 4, CHANNEL + 7):
        await open_challenge(service, channel=channel)


async def test_the_servers_open_challenges_are_listed_soonest_to_expire_first(service, clock):
    listings = service.challenges.challenges
    assert await listings.open_challenges(GUILD, clock.now, 5) == (0, [])
    made = []
    for index, member in enumerate((ALICE, BOB, CAROL)):
        made.append(await open_challenge(service, member, channel=CHANNEL + index))
        clock.now += 10
    named = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger=Person(DAVE, "Dave"),
        opponent=Person(ALICE, "Alice"),
        options=GameOptions(),
    )
    assert not named.is_open and not named.open_to_all
    count, shown = await listings.open_challenges(GUILD, clock.now, 2)
    assert count == 3 and [c.id for c in shown] == [made[0].id, made[1].id]
    await service.challenges.answer(made[1].id, by(DAVE, made[1].channel_id), "accept", name="Dave")
    clock.now += 600 - 15  # the first has expired, the third not yet
    count, shown = await listings.open_challenges(GUILD, clock.now, 5)
    assert count == 1 and [c.id for c in shown] == [made[2].id]


async def _rate(database: Database, user_id: int, rating: float) -> None:
    async with database.transaction() as transaction:
        await transaction.execute(
            "INSERT INTO member_ratings (pool, user_id, rating, deviation, volatility, games, "
            "wins, losses, draws, updated_at) "
            "VALUES ('correspondence', ?, ?, 80, 0.06, 30, 15, 15, 0, 0)",
            (user_id, rating),
        )


async def test_a_rating_range_admits_only_members_rated_within_it(database: Database, clock):
    ratings = RatingStore(database)
    lobby = ChallengeService(
        ChallengeStore(database),
        GameStore(database),
        challenge_timeout=600,
        clock=clock,
        rating=ratings.rating,
    )
    service = Services(lobby, None)  # type: ignore[arg-type]  # no turns are played here
    await _rate(database, ALICE, 1600.0)
    await _rate(database, BOB, 1851.0)
    await _rate(database, CAROL, 1400.0)
    made = await open_challenge(service, rating_range=200)
    assert made.rating_range == 200
    with pytest.raises(Refusal, match=r"from 1400 to 1800.*yours is 1851"):
        await lobby.answer(made.id, by(BOB), "accept", name="Bob")
    assert (await lobby.challenges.challenge(made.id)).status == "pending"
    taken = await lobby.answer(made.id, by(CAROL), "accept", name="Carol")  # 200 away: in
    assert taken.game is not None and taken.challenge.opponent_id == CAROL
    newcomer = await open_challenge(service, channel=CHANNEL + 1, rating_range=50)
    with pytest.raises(Refusal, match="yours is 1500"):  # unrated: a newcomer's 1500
        await lobby.answer(newcomer.id, by(DAVE, CHANNEL + 1), "accept", name="Dave")
    with pytest.raises(Refusal, match="rating range is for open challenges"):
        await lobby.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger=Person(ALICE, "Alice"),
            opponent=Person(BOB, "Bob"),
            options=GameOptions(),
            rating_range=100,
        )
