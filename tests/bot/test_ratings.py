"""Ratings in the database: updated when a game ends, never for unrated games, rebuilt
identically from the history."""

from __future__ import annotations

import random

from bot.domain import Caller, GameOptions, Person
from bot.glicko2 import Rating, rate
from bot.storage import RatingStore
from engine.builder import TurnBuilder, turn_path
from tests.bot.conftest import Services

GUILD = 1
PEOPLE = [100, 200, 300, 400, 500]


async def start(service: Services, white: int, black: int, channel: int):
    """A started basic game between ``white`` (moving first) and ``black`` in ``channel``."""
    made = await service.lobby.challenge(
        guild_id=GUILD, channel_id=channel, challenger=Person(white, f"p{white}"),
        opponent=Person(black, f"p{black}"), options=GameOptions(colour="white", first="me"),
    )  # fmt: skip
    return (await service.lobby.answer(made.id, Caller(black, channel), "accept")).game


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
    made = await service.lobby.challenge(
        guild_id=GUILD, channel_id=8, challenger=Person(100, "a"), opponent=Person(200, "b"),
        options=GameOptions(),
    )  # fmt: skip
    await service.lobby.answer(made.id, Caller(200, 8), "decline")
    game = await service.lobby.start_ai_game(
        guild_id=GUILD, channel_id=9, human=Person(100, "a"), ai=Person(999, "AI"), level="hard",
        options=GameOptions(colour="white", first="me"),
    )  # fmt: skip
    assert not game.rated
    await service.play.resign(game.id, game.version, Caller(100, 9))
    assert await ratings_table(database) == []
    assert [g.ai_level for g in await RatingStore(database).history(GUILD, 100)] == ["hard"]


async def test_rebuild_gives_the_same_numbers_as_the_games_did(service, database, clock):
    """After many games (wins, losses, full games with their scores), a rebuild from the history
    reproduces every rating exactly."""
    rng = random.Random(12)
    for number in range(40):
        white, black = rng.sample(PEOPLE, 2)
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
    assert len(before) == len(PEOPLE)
    replayed = await RatingStore(database).rebuild()
    assert replayed == 40
    assert await ratings_table(database) == before


async def _play(service, game, turn):
    """Play ``turn`` through the button paths (skipping a bonus it doesn't use)."""
    path = turn_path(game.position, turn)
    if TurnBuilder(game.position, path).turn is None:
        path = (*path, "-")
    return await service.play.choose(
        game.id, game.version, "".join(path), Caller(game.to_move, game.channel_id)
    )
