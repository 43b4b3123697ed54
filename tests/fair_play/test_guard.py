"""Fair play on a real database (both backends): the index of the positions of the games being
played (and those one turn from them) kept in the transactions that record the games, seen by
every process; puzzles' positions refused to the members who have not answered them; the
analysis board's best turn and a game's hint refused there, with the sentence why."""

from __future__ import annotations

import json
import random
from types import SimpleNamespace

import pytest

from bot.base.game import Game, GamePlace, NewGame
from bot.base.people import Caller, Person
from bot.base.refusals import Refusal
from bot.discord.visibility import Visibility
from bot.fair_play.guard import GAME_IN_PROGRESS, PUZZLE_UNANSWERED, FairPlay
from bot.features.analysis.web import AnalysisPages
from bot.features.hints.service import HintService
from bot.features.puzzles.feature import shipped_puzzles
from bot.features.puzzles.store import PuzzleStore
from bot.storage.db import Database
from bot.storage.games.changes import record_turn
from bot.storage.games.store import GameStore
from bot.storage.watched import (
    OPENING_PLIES,
    game_watching,
    watch_games_in_progress,
    watched_keys,
)
from bot.workers.ai import Adviser
from engine import Position, position_key, successors
from tests.databases import Services
from tests.features.play.test_service import ALICE, BOB, CAROL, CHANNEL, GUILD, play, started

AI = 999
NOW = 1_000_000.0


async def keys_of(database: Database, game_id: int) -> set[int]:
    """The keys the index holds for ``game_id``."""
    rows = await database.fetchall(
        "SELECT position_key FROM watched_positions WHERE game_id = ?", (game_id,)
    )
    return {int(row[0]) for row in rows}


async def refused(fair_play: FairPlay, position: Position, user_id: int) -> str | None:
    """The refusal's message for ``position`` asked by ``user_id`` (``None``: helped)."""
    try:
        await fair_play.check(position, user_id)
    except Refusal as refusal:
        return refusal.message
    return None


def written_differently(position: Position) -> str:
    """``position``'s notation with its workshop stones and ornaments reversed and spaces
    doubled — what a member might paste."""
    columns, white, black, side, ornaments = str(position).split(" ")
    ornaments = ",".join(reversed(ornaments.split(",")))
    return f"  {columns}   {white[::-1]}  {black[::-1]} {side}  {ornaments} "


async def test_a_member_game_is_watched_turn_by_turn_until_it_ends(
    service: Services, database: Database, other_process: Services, seed: int
):
    """After each turn the index holds exactly the game's position and its successors (none
    in the opening); every process refuses them; the game's end empties it."""
    rng = random.Random(seed)
    game = await started(service, mode="advanced", ornaments=3)
    here, there = FairPlay(database), FairPlay(other_process.play.games.database)
    assert game.rated and await keys_of(database, game.id) == set()
    assert await refused(here, game.position, CAROL) is None, "the opening is open"
    while game.is_active:
        turn = rng.choice(game.position.legal_turns())
        game = (await play(service, game, str(turn))).game
        held = await keys_of(database, game.id)
        if not game.is_active:
            break
        assert held == watched_keys(game.position, game.plies)
        after = rng.choice(sorted(successors(game.position), key=str)) if held else None
        if game.plies >= OPENING_PLIES:
            assert position_key(game.position) in held
            assert await refused(there, game.position, CAROL) == GAME_IN_PROGRESS
            assert await refused(here, game.position, game.to_move) == GAME_IN_PROGRESS
            assert await game_watching(database, game.position, besides=game.id) is None
        else:
            assert await refused(here, game.position, CAROL) is None
        if after is not None:
            assert await refused(there, after, ALICE) == GAME_IN_PROGRESS
    assert await keys_of(database, game.id) == set()
    assert await refused(there, game.position, CAROL) is None


async def test_pasted_notation_is_compared_in_canonical_form(service: Services, database):
    """Spaces doubled, workshop stones and ornaments in another order: the same position."""
    game = await started(service, mode="advanced", ornaments=4)
    for _ in range(3):
        turn = next(t for t in game.position.legal_turns() if "@" in str(t))
        game = (await play(service, game, str(turn))).game
    pasted = written_differently(game.position)
    assert pasted.split() != str(game.position).split(" ")
    analysis, page = page_analysis(database, adviser=None)
    await analysis.answer(page, {"type": "analysis_best", "position": pasted})
    assert page.frames[-1] == {"type": "error", "code": "refused", "message": GAME_IN_PROGRESS}


async def test_resigned_and_aborted_games_leave_the_index(service: Services, database):
    game = await started(service)
    for _ in range(2):
        game = (await play(service, game, str(game.position.legal_turns()[0]))).game
    assert await keys_of(database, game.id)
    await service.play.resign(game.id, game.version, Caller(BOB, CHANNEL))
    assert await keys_of(database, game.id) == set()
    other = await started(service)
    for _ in range(3):
        other = (await play(service, other, str(other.position.legal_turns()[-1]))).game
    assert await keys_of(database, other.id)
    await service.play.abort(other.id, GUILD, CAROL)
    assert await keys_of(database, other.id) == set()


async def ai_game(database: Database, start: Position, *, hints: bool = False) -> Game:
    """Carol's unrated game against the AI from ``start``, in a channel of its own."""
    place = GamePlace(GUILD, CHANNEL + 1)
    new = NewGame(
        place,
        Person(CAROL, "Carol"),
        Person(AI, "AI"),
        7,
        start,
        ai_level="easy",
        ai_id=AI,
        hints=hints,
    )
    return await GameStore(database).create_ai_game(new, now=NOW)


async def test_games_against_the_ai_are_not_watched(service: Services, database: Database):
    member = await started(service)
    for _ in range(3):
        member = (await play(service, member, str(member.position.legal_turns()[0]))).game
    game = await ai_game(database, member.position)
    for _ in range(3):
        after = game.position.apply(game.position.legal_turns()[0])
        async with database.transaction() as transaction:
            game = await record_turn(
                transaction,
                game,
                player_id=game.to_move,
                turn=str(game.position.legal_turns()[0]),
                position_after=after,
                outcome=None,
                now=NOW,
            )
    assert game.plies == 3 and await keys_of(database, game.id) == set()


async def test_the_games_under_way_before_the_index_are_indexed_at_start(
    service: Services, database: Database
):
    game = await started(service)
    for _ in range(2):
        game = (await play(service, game, str(game.position.legal_turns()[0]))).game
    async with database.transaction() as transaction:  # as before migration 17
        await transaction.execute("DELETE FROM watched_positions")
    assert await watch_games_in_progress(database) == 1
    assert await keys_of(database, game.id) == watched_keys(game.position, game.plies)
    assert await watch_games_in_progress(database) == 0


async def test_a_puzzle_is_refused_until_the_member_answers_it(database: Database):
    """Its position and those one and two turns from it (a turn, and a reply to each other
    turn: their values rank the puzzle's turns): refused to whoever has not answered it
    (solved, missed or shown), helped once answered."""
    store = PuzzleStore(database)
    await store.add(shipped_puzzles()[:3], NOW)
    fair_play = FairPlay(database)
    attempt = await store.serve(ALICE, NOW)
    position = attempt.puzzle.puzzle.position
    after = position.apply(attempt.puzzle.puzzle.answer)
    replies = [
        tried.apply(reply)
        for tried in (position.apply(turn) for turn in position.legal_turns())
        for reply in tried.legal_turns()
    ]
    assert replies, "a puzzle's position is not one turn from the end"
    for asked in (position, after, *replies):
        assert await refused(fair_play, asked, ALICE) == PUZZLE_UNANSWERED
    await store.answer(attempt.id, ALICE, str(attempt.puzzle.puzzle.answer), True, NOW)
    for asked in (position, after, replies[-1]):
        assert await refused(fair_play, asked, ALICE) is None
        assert await refused(fair_play, asked, BOB) == PUZZLE_UNANSWERED
    missed = await store.serve(BOB, NOW)
    await store.answer(missed.id, BOB, None, False, NOW)  # shown the answer
    assert await refused(fair_play, missed.puzzle.puzzle.position, BOB) is None


async def test_puzzles_stored_before_the_index_are_indexed_by_the_next_add(database):
    store = PuzzleStore(database)
    puzzles = shipped_puzzles()[:2]
    await store.add(puzzles, NOW)
    async with database.transaction() as transaction:  # as before migration 17
        await transaction.execute("DELETE FROM puzzle_positions")
    assert await refused(FairPlay(database), puzzles[0].position, ALICE) is None
    assert await store.add(puzzles, NOW) == 0
    assert await refused(FairPlay(database), puzzles[0].position, ALICE) == PUZZLE_UNANSWERED


class Socket:
    """What a page's WebSocket is sent (frames, decoded)."""

    closed = False

    def __init__(self) -> None:
        self.frames: list[dict] = []

    async def send_str(self, text: str) -> None:
        self.frames.append(json.loads(text))


def page_analysis(
    database: Database, adviser: Adviser | None, user_id: int = CAROL
) -> tuple[AnalysisPages, SimpleNamespace]:
    """The analysis board of a page of ``user_id``'s (its frames in ``page.frames``)."""
    app = SimpleNamespace(
        database=database,
        adviser=adviser,
        client=None,
        visibility=Visibility(None),  # type: ignore[arg-type]
    )
    analysis = AnalysisPages(app, SimpleNamespace(), SimpleNamespace())  # type: ignore[arg-type]
    socket = Socket()
    session = SimpleNamespace(user_id=user_id, guild_id=GUILD, channel_id=CHANNEL)
    page = SimpleNamespace(socket=socket, session=session, language="en", frames=socket.frames)
    return analysis, page


@pytest.fixture
def adviser():
    """The bot's real hints worker."""
    adviser = Adviser()
    yield adviser
    adviser.close()


async def test_the_analysis_boards_best_turn_is_refused_while_the_game_goes_on(
    service: Services, database: Database, adviser: Adviser
):
    """A rated game between members under way: its position and the one after a turn pasted
    into the analysis board get the refusal in the page's language; once it is over, the
    best turn; a shipped puzzle likewise until it is answered."""
    game = await started(service)
    for _ in range(4):
        game = (await play(service, game, str(game.position.legal_turns()[1]))).game
    analysis, page = page_analysis(database, adviser, user_id=game.to_move)
    successor = game.position.apply(game.position.legal_turns()[0])
    for position in (game.position, successor):
        await analysis.answer(page, {"type": "analysis_best", "position": str(position)})
        assert page.frames[-1]["code"] == "refused"
        assert page.frames[-1]["message"] == GAME_IN_PROGRESS
    spanish, spanish_page = page_analysis(database, adviser)
    spanish_page.language = "es"
    await spanish.answer(spanish_page, {"type": "analysis_best", "position": str(successor)})
    assert spanish_page.frames[-1]["code"] == "refused"
    await service.play.resign(game.id, game.version, Caller(BOB, CHANNEL))
    await analysis.answer(page, {"type": "analysis_best", "position": str(game.position)})
    best = page.frames[-1]
    assert best["type"] == "best" and best["position"] == str(game.position)
    assert Position.parse(best["position"]).apply(best["notation"])
    store = PuzzleStore(database)
    await store.add(shipped_puzzles()[:1], NOW)
    puzzle = shipped_puzzles()[0]
    await analysis.answer(page, {"type": "analysis_best", "position": str(puzzle.position)})
    assert page.frames[-1]["message"] == PUZZLE_UNANSWERED
    attempt = await store.serve(page.session.user_id, NOW)
    await store.answer(attempt.id, page.session.user_id, "T w 1", False, NOW)
    await analysis.answer(page, {"type": "analysis_best", "position": str(puzzle.position)})
    assert page.frames[-1]["type"] == "best"
    assert puzzle.position.apply(page.frames[-1]["notation"])


async def test_a_hint_is_refused_in_a_position_of_a_game_under_way(
    service: Services, database: Database, adviser: Adviser
):
    """Carol's game against the AI with hints reaches the position of Alice and Bob's rated
    game: no hint (none counted) until theirs is over."""
    member = await started(service)
    for _ in range(2):
        member = (await play(service, member, str(member.position.legal_turns()[2]))).game
    game = await ai_game(database, member.position, hints=True)
    assert game.to_move == CAROL
    hints = HintService(GameStore(database), adviser)
    with pytest.raises(Refusal) as refusal:
        await hints.hint(game.id, game.version, Caller(CAROL, game.channel_id))
    assert refusal.value.message == GAME_IN_PROGRESS
    assert (await GameStore(database).game(game.id)).hints_used == 0
    await service.play.resign(member.id, member.version, Caller(ALICE, CHANNEL))
    given = await hints.hint(game.id, game.version, Caller(CAROL, game.channel_id))
    assert given.hint.turn in game.position.legal_turns() and given.used == 1
