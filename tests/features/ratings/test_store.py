"""Ratings in the database: one per member in each pool, updated when a game ends (never for
unrated games), the deviation grown with the time not played, rated games against the AI, the
leaderboards of a server and of everyone, and a rebuild that recomputes exactly what is stored
— every figure checked against the tests' own Glicko-2 (:mod:`tests.glicko2_paper`)."""

from __future__ import annotations

import asyncio
import itertools
import random
from contextlib import asynccontextmanager

import pytest

from bot.base.game import GamePlace, NewGame
from bot.base.game_options import GameOptions
from bot.base.paces import TimeControl
from bot.base.people import Caller, Person
from bot.features.ratings import rebuild as rebuild_module
from bot.features.ratings.pools import RATING_PERIOD
from bot.features.ratings.rebuild import rebuild_ratings
from bot.features.ratings.store import Board, Mark, RatingStore
from bot.storage.games.changes import insert_game
from engine.builder import TurnBuilder, turn_path
from engine.newgame import new_game
from tests.databases import Services
from tests.glicko2_paper import AI_RD, Player, glicko2, later
from tests.history import assert_rated_as_by_hand, replayed_by_hand, stored_ratings

GUILD = 1
PEOPLE = [100, 200, 300, 400, 500]
PAIRS = list(itertools.combinations(PEOPLE, 2))
AI = 999
DAY = 86400.0


async def start(
    service: Services,
    white: int,
    black: int,
    channel: int,
    clock: TimeControl | None = None,
    guild: int = GUILD,
):
    """A started basic game between ``white`` (moving first) and ``black`` in ``channel``
    (live with ``clock``, else correspondence)."""
    made = await service.challenges.challenge(
        guild_id=guild,
        channel_id=channel,
        challenger=Person(white, f"p{white}"),
        opponent=Person(black, f"p{black}"),
        options=GameOptions(colour="white", first="me", clock=clock),
    )
    return (await service.challenges.answer(made.id, Caller(black, channel), "accept")).game


async def rated_ai_game(database, member: int, channel: int, level: str, now: float):
    """A rated game between ``member`` (White) and the AI at ``level``."""
    new = NewGame(
        GamePlace(GUILD, channel),
        Person(member, f"p{member}"),
        Person(AI, "AI"),
        7,
        new_game(),
        rated=True,
        ai_level=level,
        ai_id=AI,
    )
    async with database.transaction() as transaction:
        return await insert_game(transaction, new, now=now)


async def member_rows(database) -> list[tuple]:
    """Every member_ratings row, exactly."""
    return [
        tuple(row) for row in await database.fetchall("SELECT * FROM member_ratings ORDER BY 1, 2")
    ]


async def server_rows(database) -> list[tuple]:
    """Every server_players row, exactly."""
    return [
        tuple(row) for row in await database.fetchall("SELECT * FROM server_players ORDER BY 1, 2")
    ]


async def test_the_game_that_ends_rates_both_members_in_its_pool(service, database, clock):
    """A resignation is a loss: both members are rated in the correspondence pool, in the
    transaction that ends it, as the paper's Glicko-2 says; both join the server's board."""
    game = await start(service, 100, 200, channel=7)
    await service.play.resign(game.id, game.version, Caller(200, 7))
    newcomer = Player()
    ratings = RatingStore(database)
    winner = await ratings.member("correspondence", 100, clock.now)
    loser = await ratings.member("correspondence", 200, clock.now)
    assert winner is not None and loser is not None
    expected = glicko2(newcomer, [(newcomer, 1.0)])
    assert winner.rating.rating == pytest.approx(expected.r, rel=1e-12)
    assert winner.rating.deviation == pytest.approx(expected.rd, rel=1e-12)
    assert (winner.games, winner.wins, loser.losses) == (1, 1, 1)
    assert loser.provisional and not loser.ranked
    assert await ratings.member("live", 100, clock.now) is None
    servers = await database.fetchall("SELECT guild_id, user_id FROM server_players ORDER BY 2")
    assert [tuple(row) for row in servers] == [(GUILD, 100), (GUILD, 200)]
    await assert_rated_as_by_hand(database)


async def test_a_live_game_rates_the_live_pool_only(service, database, clock):
    """A game with a clock moves the live ratings; the correspondence ones stay as they were."""
    first = await start(service, 100, 200, channel=7)
    await service.play.resign(first.id, first.version, Caller(200, 7))
    before = [row for row in await member_rows(database) if row[0] == "correspondence"]
    live = await start(service, 100, 200, channel=8, clock=TimeControl(5, 5))
    await service.play.resign(live.id, live.version, Caller(100, 8))
    rows = await member_rows(database)
    assert [row for row in rows if row[0] == "correspondence"] == before
    assert [(row[0], row[1], row[6], row[7]) for row in rows if row[0] == "live"] == [
        ("live", 100, 0, 1),
        ("live", 200, 1, 0),
    ]
    await assert_rated_as_by_hand(database)


async def test_unrated_games_and_challenges_change_nothing(service, database):
    """A declined challenge, an unrated game against the AI and a game in a DM between members
    leave the ratings and the servers' boards alone."""
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
        ai=Person(AI, "AI"),
        level="hard",
        options=GameOptions(colour="white", first="me"),
    )
    assert not game.rated
    await service.play.resign(game.id, game.version, Caller(100, 9))
    new = NewGame(GamePlace(0, 7001, venue="dm"), Person(100, "a"), Person(200, "b"), 7, new_game())
    async with database.transaction() as transaction:
        elsewhere = await insert_game(transaction, new, now=1000.0)
    await service.play.resign(elsewhere.id, elsewhere.version, Caller(200, 7001))
    assert await member_rows(database) == []
    assert await database.fetchall("SELECT * FROM server_players") == []
    assert [g.ai_level for g in await RatingStore(database).history(GUILD, 100)] == ["hard"]


async def test_a_rated_game_against_the_ai_rates_the_member_against_its_fixed_rating(
    service, database, clock
):
    """The member is rated against the level's fixed rating ± 60; the AI gets no rating, and
    its rating stays the same for the next game."""
    for number, level in enumerate(("hard", "hard", "easy")):
        game = await rated_ai_game(database, 100, 50 + number, level, clock.now)
        assert game.rated and game.ai_level == level
        clock.now += DAY
        await service.play.resign(game.id, game.version, Caller(100, 50 + number))
    rows = await member_rows(database)
    assert [(row[0], row[1], row[6], row[7]) for row in rows] == [("correspondence", 100, 0, 3)]
    assert [tuple(row) for row in await database.fetchall("SELECT * FROM server_players")] == [
        (GUILD, 100)
    ]
    await assert_rated_as_by_hand(database)
    by_hand = await replayed_by_hand(database)
    assert by_hand["correspondence", 100].player.rd > AI_RD


async def test_a_rating_shown_later_has_its_deviation_grown(service, database, clock):
    """Between games the deviation grows with the periods not played: what the store shows
    and hands the pool (newcomers 1500 ± 350 with it) at a later moment, and what the next
    game is rated from."""
    game = await start(service, 100, 200, channel=7)
    await service.play.resign(game.id, game.version, Caller(200, 7))
    ratings = RatingStore(database)
    now = await ratings.member("correspondence", 100, clock.now)
    assert now is not None
    later_on = clock.now + 100 * RATING_PERIOD
    grown_later = await ratings.member("correspondence", 100, later_on)
    assert grown_later is not None and grown_later.rating.rating == now.rating.rating
    expected = later(Player(now.rating.rating, now.rating.deviation, now.rating.volatility), 100)
    assert grown_later.rating.deviation == pytest.approx(expected.rd, rel=1e-12)
    pool = await ratings.pool_ratings("correspondence", [100, 100, 600], later_on)
    assert pool[100] == grown_later.rating
    assert (pool[600].rating, pool[600].deviation) == (1500.0, 350.0)
    clock.now = later_on
    again = await start(service, 100, 200, channel=8)
    await service.play.resign(again.id, again.version, Caller(100, 8))
    await assert_rated_as_by_hand(database)


async def fill_ratings(database, ratings: dict[int, float], deviation: float = 60.0) -> None:
    """Settled ratings for ``ratings`` (user id → rating) in the correspondence pool, members
    of the server (straight into the tables)."""
    async with database.transaction() as transaction:
        await transaction.executemany(
            "INSERT INTO member_ratings (pool, user_id, rating, deviation, volatility, games, "
            "wins, losses, draws, updated_at) "
            "VALUES ('correspondence', ?, ?, ?, 0.06, 30, 15, 15, 0, 1000000)",
            [(user, rating, deviation) for user, rating in ratings.items()],
        )
        await transaction.executemany(
            "INSERT INTO server_players (guild_id, user_id) VALUES (?, ?)",
            [(GUILD, user) for user in ratings],
        )


# Ties in runs, and ratings one ulp apart (0.1 + 0.2 is not 0.3): a keyset that rounded the
# rating would skip or repeat players.
TIED = {user: (1500.0, 0.1 + 0.2, 0.3, 1e-05, -12.5)[user % 5] for user in range(1, 48)}
ORDER = sorted(TIED, key=lambda user: (-TIED[user], user))
BOARD = Board("correspondence", GUILD, 1_000_000.0)


async def test_paging_forward_and_backward_over_ties_shows_everyone_once(database):
    """Next from each page's last row, then Previous from each page's first row, visit the 47
    players exactly once each, in leaderboard order; each page by number is the same page,
    whether read from the top or from the bottom."""
    await fill_ratings(database, TIED)
    boards = RatingStore(database).boards
    pages = [await boards.page(BOARD, page) for page in range(5)]
    assert [rank for page in pages for rank, _ in page] == list(range(1, 48))
    assert [player.user_id for page in pages for _, player in page] == ORDER
    assert await boards.page(BOARD, 5) == []
    forward = [player for _, player in pages[0]]
    while found := await boards.seek(BOARD, Mark.of(forward[-1]), "n"):
        assert len(found) == min(10, 47 - len(forward))
        forward += found
    assert [player.user_id for player in forward] == ORDER
    backward = [player for _, player in pages[-1]]
    while found := await boards.seek(BOARD, Mark.of(backward[0]), "p"):
        backward = found + backward
    assert [player.user_id for player in backward] == ORDER
    assert [player for _, player in pages[3]] == await boards.seek(
        BOARD, Mark.of(pages[4][0][1]), "p"
    )


async def test_the_last_page_is_read_from_the_bottom(database):
    """The last page, short or whole, holds the last players with their ranks, and equals the
    tail of the whole order (read backwards)."""
    await fill_ratings(database, TIED)
    boards = RatingStore(database).boards
    last = await boards.page(BOARD, 4, players=47)
    assert [(rank, player.user_id) for rank, player in last] == list(
        zip(range(41, 48), ORDER[40:], strict=True)
    )
    await fill_ratings(database, {100 + user: 1500.0 for user in range(3)})
    assert [rank for rank, _ in await boards.page(BOARD, 4)] == list(range(41, 51))


async def test_a_board_ranks_settled_members_of_its_scope_until_their_deviation_grows(database):
    """A server's board: its members whose deviation (grown to now) is 90 or less; the global
    board: those who joined the pool, by their name. A member unseen for long enough drops off
    (their deviation reaches 90) and comes back with a game."""
    await fill_ratings(database, {1: 1700.0, 2: 1600.0, 3: 1650.0})
    async with database.transaction() as transaction:
        await transaction.execute("UPDATE member_ratings SET deviation = 95 WHERE user_id = 3")
        await transaction.execute("DELETE FROM server_players WHERE user_id = 2")
        await transaction.execute(
            "INSERT INTO pool_members (user_id, name, joined_at) VALUES (2, 'Bea', 0)"
        )
    boards = RatingStore(database).boards
    at = 1_000_000.0
    server, everyone = Board("correspondence", GUILD, at), Board("correspondence", None, at)
    assert [(rank, p.user_id) for rank, p in await boards.page(server, 0)] == [(1, 1)]
    assert [(p.user_id, p.name) for _, p in await boards.page(everyone, 0)] == [(2, "Bea")]
    assert (await boards.rank(server, 1), await boards.rank(server, 3)) == (1, None)
    assert await boards.players(Board("live", GUILD, at)) == 0
    # 60² + σ²t = 90² after t = 4500 / (0.06 · 173.7178)² ≈ 41.4 periods
    periods = (90**2 - 60**2) / (0.06 * 173.7178) ** 2
    for t, on in ((periods - 0.01, 1), (periods + 0.01, 0)):
        assert await boards.players(Board("correspondence", GUILD, at + t * RATING_PERIOD)) == on


async def test_pool_ratings_hands_the_pool_every_member_asked(database):
    """Members rated in the pool with their deviation grown to now; the others as newcomers;
    more members than one query's chunk."""
    await fill_ratings(database, {user: 1400.0 + user for user in range(1, 700)})
    asked = [*range(1, 700), 5000]
    ratings = await RatingStore(database).pool_ratings("correspondence", asked, 1_000_000.0)
    assert sorted(ratings) == sorted(asked)
    assert ratings[5].rating == 1405.0 and ratings[5].deviation == 60.0
    assert (ratings[5000].rating, ratings[5000].deviation) == (1500.0, 350.0)
    assert await RatingStore(database).pool_ratings("live", [5], 0.0) == {5: ratings[5000]}


async def test_rebuild_gives_the_same_numbers_as_the_games_did(service, database, clock, seed):
    """After many games in both pools, days apart or minutes apart (wins, losses, full games
    with their scores, rated games against the AI), the stored ratings are the paper's
    Glicko-2 over the games, and a rebuild from the history reproduces every row exactly (and
    the servers' boards' members, if missing)."""
    rng = random.Random(seed)
    for number in range(40):
        clock.now += rng.choice((60.0, 3 * DAY, 40 * DAY))
        if number % 7 == 3:
            game = await rated_ai_game(
                database, rng.choice(PEOPLE), 900 + number, rng.choice(("easy", "hard")), clock.now
            )
            await service.play.resign(game.id, game.version, Caller(game.white_id, 900 + number))
            continue
        white, black = rng.sample(PEOPLE, 2)
        live = TimeControl(5, 5) if number % 3 == 0 else None
        game = await start(service, white, black, channel=1000 + number, clock=live)
        if number % 8 == 0:  # play it out: points, columns or a draw decide
            while game.is_active:
                turn = rng.choice(game.position.legal_turns())
                game = (await _play(service, game, turn)).game
        else:
            loser = rng.choice((white, black))
            await service.play.resign(game.id, game.version, Caller(loser, game.channel_id))
    before = await member_rows(database)
    await assert_rated_as_by_hand(database)
    servers = await server_rows(database)
    assert servers == [(GUILD, user) for user in PEOPLE]
    async with database.transaction() as transaction:  # a history copied without them
        await transaction.execute("DELETE FROM server_players")
    rebuilt = await rebuild_ratings(database)
    assert (rebuilt.games, rebuilt.during, rebuilt.written) == (40, 0, 0)
    assert await member_rows(database) == before
    assert await server_rows(database) == servers


async def spoil_ratings(database) -> None:
    """Ratings as a bug might leave them: every row wrong, one member who never played."""
    async with database.transaction() as transaction:
        await transaction.execute("UPDATE member_ratings SET rating = 1000, games = games + 3")
        await transaction.execute(
            "INSERT INTO member_ratings (pool, user_id, rating, deviation, volatility, games, "
            "wins, losses, draws, updated_at) "
            "VALUES ('live', 999, 1700, 50, 0.06, 4, 4, 0, 0, 0)"
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
    later_games = [
        await start(other_process, 600 + n, PEOPLE[n], channel=3000 + n) for n in range(4)
    ]
    monkeypatch.setattr(rebuild_module, "REBUILD_BATCH", 2)
    monkeypatch.setattr(rebuild_module, "REBUILD_LAST_ROUND", last_round)
    transaction = rebuild_module._Writes.transaction

    def end_a_game_then_write(self):
        @asynccontextmanager
        async def write():
            if later_games:  # a game ends between the rebuild's read and its next write
                game = later_games.pop()
                await other_process.play.resign(
                    game.id, game.version, Caller(game.white_id, game.channel_id)
                )
            async with transaction(self) as writing:
                yield writing

        return write()

    monkeypatch.setattr(rebuild_module._Writes, "transaction", end_a_game_then_write)
    rebuilt = await rebuild_ratings(database)
    assert not later_games
    assert (rebuilt.games, rebuilt.during) == (16, 4)
    await assert_rated_as_by_hand(database)
    assert ("live", 999) not in await stored_ratings(database)
    monkeypatch.setattr(rebuild_module._Writes, "transaction", transaction)
    again = await rebuild_ratings(database)
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
    monkeypatch.setattr(rebuild_module, "REBUILD_BATCH", 1)
    games = [
        await start(process, 700 + n, PEOPLE[n % 5], 5000 + n)
        for n, process in enumerate([service, other_process] * 5)
    ]

    async def end_games(process, mine):
        for game in mine:
            await process.play.resign(game.id, game.version, Caller(game.black_id, game.channel_id))

    rebuilt, *_ = await asyncio.gather(
        rebuild_ratings(database),
        end_games(service, games[0::2]),
        end_games(other_process, games[1::2]),
    )
    assert 10 <= rebuilt.games <= 20  # the games that ended after it were rated as usual
    await assert_rated_as_by_hand(database)


async def _play(service, game, turn):
    """Play ``turn`` through the button paths (skipping a bonus it doesn't use)."""
    path = turn_path(game.position, turn)
    if TurnBuilder(game.position, path).turn is None:
        path = (*path, "-")
    return await service.play.choose(
        game.id, game.version, "".join(path), Caller(game.to_move, game.channel_id)
    )
