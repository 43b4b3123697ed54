"""Ratings in the database: updated when a game ends, never for unrated games, rebuilt
identically from the history."""

from __future__ import annotations

import asyncio
import itertools
import random
from contextlib import asynccontextmanager

import pytest

from bot.base.game_options import GameOptions
from bot.base.glicko2 import Rating, rate
from bot.base.people import Caller, Person
from bot.features.ratings import store as ratings_module
from bot.features.ratings.store import Mark, RatingStore
from engine.builder import TurnBuilder, turn_path
from tests.databases import Services
from tests.history import replayed_by_hand, stored_ratings

GUILD = 1
PEOPLE = [100, 200, 300, 400, 500]
PAIRS = list(itertools.combinations(PEOPLE, 2))


async def start(service: Services, white: int, black: int, channel: int):
    """A started basic game between ``white`` (moving first) and ``black`` in ``channel``."""
    made = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=channel,
        challenger=Person(white, f"p{white}"),
        opponent=Person(black, f"p{black}"),
        options=GameOptions(colour="white", first="me"),
    )
    return (await service.challenges.answer(made.id, Caller(black, channel), "accept")).game


async def ratings_table(database) -> list[tuple]:
    """Every rating row, exactly."""
    return [tuple(row) for row in await database.fetchall("SELECT * FROM ratings ORDER BY 1, 2")]


async def test_the_game_that_ends_rates_both_players(service, database):
    """A resignation is a loss: both players are rated in the transaction that ends it."""
    ratings = RatingStore(database)
    game = await start(service, 100, 200, channel=7)
    assert await ratings.players(GUILD) == 0
    await service.play.resign(game.id, game.version, Caller(200, 7))
    newcomer = Rating()
    expected_winner = rate(newcomer, [(newcomer, 1.0)])
    (rank, winner), (_, loser) = await ratings.page(GUILD, 0)
    assert rank == 1 and winner.user_id == 100 and (winner.wins, winner.games) == (1, 1)
    assert winner.rating == expected_winner
    assert loser.user_id == 200 and loser.losses == 1 and loser.provisional
    assert await ratings.player(GUILD, 200) == (2, loser)


async def test_unrated_games_and_challenges_change_nothing(service, database):
    """A declined challenge and a game against the AI leave the ratings alone."""
    made = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=8,
        challenger=Person(100, "a"),
        opponent=Person(200, "b"),
        options=GameOptions(),
    )
    await service.challenges.answer(made.id, Caller(200, 8), "decline")
    game = await service.challenges.new_games.start_ai_game(
        guild_id=GUILD,
        channel_id=9,
        human=Person(100, "a"),
        ai=Person(999, "AI"),
        level="hard",
        options=GameOptions(colour="white", first="me"),
    )
    assert not game.rated
    await service.play.resign(game.id, game.version, Caller(100, 9))
    assert await ratings_table(database) == []
    assert [g.ai_level for g in await RatingStore(database).history(GUILD, 100)] == ["hard"]


async def test_rebuild_gives_the_same_numbers_as_the_games_did(service, database, clock, seed):
    """After many games (wins, losses, full games with their scores), a rebuild from the history
    reproduces every rating exactly."""
    rng = random.Random(seed)
    played = set()
    for number in range(40):
        white, black = rng.sample(PEOPLE, 2)
        played |= {white, black}
        game = await start(service, white, black, channel=1000 + number)
        clock.now += rng.random() * 100
        if number % 8 == 0:  # play it out: points, columns or a draw decide
            while game.is_active:
                turn = rng.choice(game.position.legal_turns())
                game = (await _play(service, game, turn)).game
        else:
            loser = rng.choice((white, black))
            await service.play.resign(game.id, game.version, Caller(loser, game.channel_id))
    before = await ratings_table(database)
    assert [row[1] for row in before] == sorted(played)  # (guild, user, …): one row a player
    rebuilt = await RatingStore(database).rebuild()
    assert (rebuilt.games, rebuilt.during, rebuilt.written) == (40, 0, 0)
    assert await ratings_table(database) == before


async def spoil_ratings(database) -> None:
    """Ratings as a bug might leave them: every row wrong, one player who never played."""
    async with database.transaction() as transaction:
        await transaction.execute("UPDATE ratings SET rating = 1000, games = games + 3")
        await transaction.execute(
            "INSERT INTO ratings (guild_id, user_id, rating, deviation, volatility, games, "
            "wins, losses, draws, updated_at) VALUES (?, 999, 1700, 50, 0.06, 4, 4, 0, 0, 0)",
            (GUILD,),
        )


@pytest.mark.parametrize("last_round", [100, 0], ids=["locked-catch-up", "catch-up-rounds"])
async def test_games_ending_during_a_rebuild_are_rated_and_the_result_equals_a_rebuild_at_rest(
    service, other_process, database, monkeypatch, last_round
):
    """A rebuild of spoiled ratings in batches of two rows, while another process ends a game
    before each batch: every game is rated once, the table equals Glicko-2 over the history in
    rating order, and a second rebuild (nothing running) finds nothing to change."""
    for number in range(12):
        white, black = PAIRS[number % len(PAIRS)]
        game = await start(service, white, black, channel=2000 + number)
        await service.play.resign(game.id, game.version, Caller(black, game.channel_id))
    await spoil_ratings(database)
    later = [await start(other_process, 600 + n, PEOPLE[n], channel=3000 + n) for n in range(4)]
    monkeypatch.setattr(ratings_module, "REBUILD_BATCH", 2)
    monkeypatch.setattr(ratings_module, "REBUILD_LAST_ROUND", last_round)
    transaction = ratings_module._Writes.transaction

    def end_a_game_then_write(self):
        @asynccontextmanager
        async def write():
            if later:  # a game ends between the rebuild's read and its next write
                game = later.pop()
                await other_process.play.resign(
                    game.id, game.version, Caller(game.white_id, game.channel_id)
                )
            async with transaction(self) as writing:
                yield writing

        return write()

    monkeypatch.setattr(ratings_module._Writes, "transaction", end_a_game_then_write)
    rebuilt = await RatingStore(database).rebuild()
    assert not later
    assert (rebuilt.games, rebuilt.during) == (16, 4)
    assert await stored_ratings(database) == await replayed_by_hand(database)
    assert (GUILD, 999) not in await stored_ratings(database)
    monkeypatch.setattr(ratings_module._Writes, "transaction", transaction)
    again = await RatingStore(database).rebuild()
    assert (again.games, again.during, again.written) == (16, 0, 0)


async def test_a_rebuild_beside_two_processes_ending_games_matches_glicko_over_the_history(
    service, other_process, database, monkeypatch
):
    """Games end in two processes while a rebuild (batches of one row) runs beside them: the
    ratings equal Glicko-2 over the whole history, the games ended meanwhile included."""
    for number in range(10):
        game = await start(service, PEOPLE[number % 5], PEOPLE[(number + 2) % 5], 4000 + number)
        await service.play.resign(game.id, game.version, Caller(game.black_id, game.channel_id))
    await spoil_ratings(database)
    monkeypatch.setattr(ratings_module, "REBUILD_BATCH", 1)
    games = [
        await start(process, 700 + n, PEOPLE[n % 5], 5000 + n)
        for n, process in enumerate([service, other_process] * 5)
    ]

    async def end_games(process, mine):
        for game in mine:
            await process.play.resign(game.id, game.version, Caller(game.black_id, game.channel_id))

    rebuilt, *_ = await asyncio.gather(
        RatingStore(database).rebuild(),
        end_games(service, games[0::2]),
        end_games(other_process, games[1::2]),
    )
    assert 10 <= rebuilt.games <= 20  # the games that ended after it were rated as usual
    assert await stored_ratings(database) == await replayed_by_hand(database)


async def _play(service, game, turn):
    """Play ``turn`` through the button paths (skipping a bonus it doesn't use)."""
    path = turn_path(game.position, turn)
    if TurnBuilder(game.position, path).turn is None:
        path = (*path, "-")
    return await service.play.choose(
        game.id, game.version, "".join(path), Caller(game.to_move, game.channel_id)
    )


async def fill_ratings(database, ratings: dict[int, float]) -> None:
    """Rating rows for ``ratings`` (user id → rating), straight into the table."""
    async with database.transaction() as transaction:
        await transaction.executemany(
            "INSERT INTO ratings (guild_id, user_id, rating, deviation, volatility, games, wins, "
            "losses, draws, updated_at) VALUES (?, ?, ?, 60, 0.06, 9, 5, 4, 0, 0)",
            [(GUILD, user, rating) for user, rating in ratings.items()],
        )


# Ties in runs, and ratings one ulp apart (0.1 + 0.2 is not 0.3): a keyset that rounded the
# rating would skip or repeat players.
TIED = {user: (1500.0, 0.1 + 0.2, 0.3, 1e-05, -12.5)[user % 5] for user in range(1, 48)}
ORDER = sorted(TIED, key=lambda user: (-TIED[user], user))


async def test_paging_forward_and_backward_over_ties_shows_everyone_once(database):
    """Next from each page's last row, then Previous from each page's first row, visit the 47
    players exactly once each, in leaderboard order; each page by number is the same page,
    whether read from the top or from the bottom."""
    await fill_ratings(database, TIED)
    ratings = RatingStore(database)
    pages = [await ratings.page(GUILD, page) for page in range(5)]
    assert [rank for page in pages for rank, _ in page] == list(range(1, 48))
    assert [player.user_id for page in pages for _, player in page] == ORDER
    assert await ratings.page(GUILD, 5) == []
    forward = [player for _, player in pages[0]]
    while found := await ratings.seek(GUILD, Mark.of(forward[-1]), "n"):
        assert len(found) == min(10, 47 - len(forward))
        forward += found
    assert [player.user_id for player in forward] == ORDER
    backward = [player for _, player in pages[-1]]
    while found := await ratings.seek(GUILD, Mark.of(backward[0]), "p"):
        backward = found + backward
    assert [player.user_id for player in backward] == ORDER
    assert [player for _, player in pages[3]] == await ratings.seek(
        GUILD, Mark.of(pages[4][0][1]), "p"
    )


async def test_the_last_page_is_read_from_the_bottom(database):
    """The last page, short or whole, holds the last players with their ranks, and equals the
    tail of the whole order (read backwards through the index)."""
    await fill_ratings(database, TIED)
    ratings = RatingStore(database)
    last = await ratings.page(GUILD, 4, players=47)
    assert [(rank, player.user_id) for rank, player in last] == list(
        zip(range(41, 48), ORDER[40:], strict=True)
    )
    await fill_ratings(database, {100 + user: 1500.0 for user in range(3)})
    assert [rank for rank, _ in await ratings.page(GUILD, 4)] == list(range(41, 51))
