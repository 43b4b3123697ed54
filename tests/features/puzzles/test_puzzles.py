"""Puzzles without Discord, on a real database (both backends): the shipped set, serving near a
member's rating without repeats until all are seen, answers that count once and move the
ratings the right way, streaks, and the puzzle of the day claimed once per server and day."""

from __future__ import annotations

import asyncio
import random
from types import SimpleNamespace

import pytest

from bot.features.puzzles.daily import day_of, seconds_to_next_day
from bot.features.puzzles.feature import shipped_puzzles
from bot.features.puzzles.harvest import Harvest
from bot.features.puzzles.store import PuzzleStore, starting_rating
from bot.features.puzzles.words import caption, verdict, why
from bot.storage.db import Database
from bot.storage.games.store import GameStore
from bot.storage.servers import ServerSettings, ServerSettingsStore
from bot.workers.ai import SEARCH_NODE_LIMIT, PuzzleFinder
from engine import parse_turn
from engine.puzzles import (
    DRAW,
    MIN_CHOICES,
    WIN,
    Puzzle,
    first_puzzle,
    game_positions,
    verify,
)
from rendering.translator import ENGLISH
from tests.databases import services_on
from tests.discord_fakes import eventually
from tests.features.play.test_service import CHANNEL
from tests.features.reviews.test_review_loop import finished_game, seeded

NOW = 1_000_000.0
MOST_PLIES = 500
"""More turns than any game has: a game is played to its end."""
SEARCHED = 4
"""The search of finished games looks at their positions with at most 4 places left (the bot:
6), which keeps the test's exhaustive searches short."""
ANA, BEA = 11, 12


async def stocked(database: Database, count: int = 12) -> PuzzleStore:
    store = PuzzleStore(database)
    assert await store.add(shipped_puzzles()[:count], NOW) == count
    return store


SHIPPED = shipped_puzzles()


@pytest.mark.parametrize("number", range(0, len(SHIPPED), 10))
def test_every_shipped_puzzle_is_proven_again(number: int):
    """Each shipped puzzle's answer is the only best turn, by a new exhaustive search (ten
    puzzles a test, so that the workers share them)."""
    for puzzle in SHIPPED[number : number + 10]:
        assert verify(puzzle), puzzle.to_json()


def test_the_shipped_set_is_large_and_varied():
    puzzles = shipped_puzzles()
    assert len(puzzles) >= 25
    assert len({str(p.position) for p in puzzles}) == len(puzzles)
    assert {p.best for p in puzzles} <= {WIN, DRAW}
    assert all(p.difficulty >= MIN_CHOICES and p.alternative < p.best for p in puzzles)
    assert {p.position.turn for p in puzzles} == {0, 1}, "both colours to move"


async def test_adding_twice_stores_once(database: Database):
    store = await stocked(database)
    assert await store.add(shipped_puzzles()[:14], NOW) == 2
    assert await store.count() == 14


async def test_a_member_sees_every_puzzle_once_before_any_twice(database: Database):
    seed = random.randrange(2**32)
    print("seed", seed)
    rng = random.Random(seed)
    store = await stocked(database, 6)
    seen = []
    for _ in range(6):
        attempt = await store.serve(ANA, NOW, rng)
        again = await store.serve(ANA, NOW, rng)
        assert again.id == attempt.id, "an open puzzle is served again until answered"
        await store.answer(attempt.id, ANA, "T w 1", rng.random() < 0.5, NOW)
        seen.append(attempt.puzzle.id)
    assert len(set(seen)) == 6
    attempt = await store.serve(ANA, NOW, rng)
    assert attempt.cycle == 2 and attempt.puzzle.id in seen


async def test_right_answers_raise_the_member_and_lower_the_puzzle(database: Database):
    store = await stocked(database)
    right = await store.serve(ANA, NOW)
    answer = str(right.puzzle.puzzle.answer)
    solved = await store.answer(right.id, ANA, answer, True, NOW)
    assert solved.first and solved.before is not None and solved.attempt.correct
    after = (await store.puzzle(right.puzzle.id)).rating.rating
    assert solved.player.rating.rating > 1500 and after < right.puzzle.rating.rating
    assert (solved.player.solved, solved.player.attempts, solved.player.streak) == (1, 1, 1)
    twice = await store.answer(right.id, ANA, "T w 1", False, NOW + 5)
    assert not twice.first and twice.attempt.correct and twice.attempt.answer == answer
    assert twice.player.rating == solved.player.rating, "answering twice counts once"
    wrong = await store.serve(BEA, NOW)
    failed = await store.answer(wrong.id, BEA, "T w 1", False, NOW)
    after = (await store.puzzle(wrong.puzzle.id)).rating.rating
    assert failed.player.rating.rating < 1500 and after > wrong.puzzle.rating.rating
    assert (failed.player.solved, failed.player.streak, failed.player.attempts) == (0, 0, 1)


async def test_asking_for_the_answer_is_a_miss(database: Database):
    store = await stocked(database)
    attempt = await store.serve(ANA, NOW)
    shown = await store.answer(attempt.id, ANA, None, False, NOW)
    assert shown.first and shown.attempt.answer is None and shown.attempt.correct is False
    assert shown.player.rating.rating < 1500 and shown.player.streak == 0
    first = verdict(ENGLISH, shown).splitlines()[0]
    assert first.startswith("💡 **The answer:** ") and f"`{attempt.puzzle.puzzle.answer}`" in first


async def test_streaks_and_best_streak(database: Database):
    store = await stocked(database)
    for correct in (True, True, True, False, True):
        attempt = await store.serve(ANA, NOW)
        answered = await store.answer(attempt.id, ANA, "x", correct, NOW)
    player = answered.player
    assert (player.streak, player.best_streak, player.solved, player.attempts) == (1, 3, 4, 5)


async def test_concurrent_answers_to_one_attempt_count_once(database: Database):
    store = await stocked(database)
    attempt = await store.serve(ANA, NOW)
    results = await asyncio.gather(
        *(store.answer(attempt.id, ANA, "x", index % 2 == 0, NOW) for index in range(6))
    )
    assert sum(result.first for result in results) == 1
    player = await store.player(ANA)
    assert player.attempts == 1


async def test_someone_elses_attempt_is_refused(database: Database):
    store = await stocked(database)
    attempt = await store.serve(ANA, NOW)
    try:
        await store.answer(attempt.id, BEA, "x", True, NOW)
    except LookupError:
        pass
    else:
        raise AssertionError("answered another member's attempt")
    assert (await store.attempt(attempt.id)).answered_at is None


async def test_the_puzzle_of_the_day_is_claimed_once(database: Database):
    store = await stocked(database)
    servers = ServerSettingsStore(database)
    await servers.set(5 << 22, ServerSettings(puzzle_channel=77), by=1, now=NOW)
    assert await store.dailies.wanted() == [(5 << 22, 77)]
    claims = await asyncio.gather(
        *(PuzzleStore(database).dailies.claim(5 << 22, "2026-11-26", 77, "en") for _ in range(4))
    )
    assert len({claim.puzzle_id for claim in claims}) == 1
    daily = claims[0]
    assert await store.dailies.posted(daily.guild_id, daily.day, 900)
    assert not await store.dailies.posted(daily.guild_id, daily.day, 901)
    tomorrow = await store.dailies.claim(5 << 22, "2026-11-27", 77, "en")
    assert tomorrow.puzzle_id != daily.puzzle_id, "a server never gets the same puzzle twice"
    first = await store.daily_attempt(daily, ANA, NOW)
    assert (await store.daily_attempt(daily, ANA, NOW + 1)).id == first.id
    await store.answer(first.id, ANA, str(first.puzzle.puzzle.answer), True, NOW)
    second = await store.daily_attempt(daily, BEA, NOW)
    await store.answer(second.id, BEA, "x", False, NOW)
    tally = await store.dailies.get(daily.guild_id, daily.day)
    assert (tally.solvers, tally.tries, tally.first_solver) == (1, 2, ANA)
    assert [d.day for d in await store.dailies.unrevealed("2026-11-27")] == ["2026-11-26"]
    await store.dailies.reveal(daily.guild_id, daily.day)
    assert await store.dailies.unrevealed("2026-11-28") == []


def test_a_new_puzzle_is_rated_by_its_choices():
    assert [starting_rating(n) for n in (2, 4, 8, 16, 32, 64)] == [
        1200.0,
        1350.0,
        1500.0,
        1650.0,
        1800.0,
        1800.0,
    ]


def test_days_turn_at_utc_midnight():
    assert day_of(0.0) == "1970-01-01" and day_of(86399.5) == "1970-01-01"
    assert day_of(86400.0) == "1970-01-02"
    assert seconds_to_next_day(86400.0 * 3 + 10) == 86390.0


def test_the_words_of_a_puzzle():
    puzzles = shipped_puzzles()
    for puzzle in puzzles:
        said = caption(ENGLISH, puzzle)
        colour = "White" if puzzle.position.turn == 0 else "Black"
        assert said.startswith(colour) and ("win" if puzzle.best == WIN else "draw") in said
        assert ("draw" in why(ENGLISH, puzzle)) == (DRAW in (puzzle.best, puzzle.alternative))


async def test_a_verdict_explains_and_shows_the_rating(database: Database):
    store = await stocked(database)
    attempt = await store.serve(ANA, NOW)
    answered = await store.answer(attempt.id, ANA, str(attempt.puzzle.puzzle.answer), True, NOW)
    text = verdict(ENGLISH, answered)
    assert text.startswith("✅") and f"`{attempt.puzzle.puzzle.answer}`" in text
    assert "1500 → " in text and "(+" in text


async def test_finished_games_are_searched_for_their_puzzle_once(database: Database, clock):
    """Random games played to the end and stored; the search (the real worker process) stores
    exactly the puzzle the engine finds in each, once, named after its game — with a second
    searcher on the same database taking its share."""
    rng = seeded()
    app = SimpleNamespace(stores=SimpleNamespace(games=GameStore(database)))
    service = services_on(database, clock)
    expected = {}
    while len(expected) < 3 or not any(expected.values()):
        game = await finished_game(service, CHANNEL, MOST_PLIES, rng)
        turns = [parse_turn(r.turn) for r in await app.stores.games.turns(game.id)]
        found = first_puzzle(
            game_positions(game.start_position, turns),
            f"game {game.id}",
            late=SEARCHED,
            limit=SEARCH_NODE_LIMIT,
        )
        expected[game.id] = found
    store = PuzzleStore(database)
    finder = PuzzleFinder()
    try:
        first = Harvest(app, store, finder, late=SEARCHED)
        second = Harvest(app, PuzzleStore(database), finder, late=SEARCHED)
        searched = 0
        while await first.search_next() | await second.search_next():
            searched += 1
        assert not await first.search_next(), "every game searched once"
    finally:
        finder.close()
    rows = await database.fetchall("SELECT position, answer, source FROM puzzles")
    wanted = {(str(p.position), str(p.answer), p.source) for p in expected.values() if p}
    assert {tuple(row) for row in rows} == wanted
    for position, _, _ in rows:
        assert verify(Puzzle.from_json(await store_line(store, position))), position


async def store_line(store: PuzzleStore, position: str) -> str:
    row = await store.database.fetchone("SELECT id FROM puzzles WHERE position = ?", (position,))
    stored = await store.puzzle(row[0])
    return stored.puzzle.to_json()


async def test_a_finished_game_wakes_the_search(database: Database, clock):
    """The search rests when every finished game was searched; a game that finishes (here:
    resigned after a few random turns) wakes it at once, on the database's announcement."""
    rng = seeded()
    app = SimpleNamespace(stores=SimpleNamespace(games=GameStore(database)), database=database)
    harvest = Harvest(app, PuzzleStore(database), late=SEARCHED)  # type: ignore[arg-type]
    await harvest.listen()
    try:
        service = services_on(database, clock)
        await finished_game(service, CHANNEL, rng.randrange(1, 6), rng)
        await eventually(harvest.loop().wakeup.is_set, "the search woken")
    finally:
        harvest.close()
