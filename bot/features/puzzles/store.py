"""The puzzle repository: puzzles and their ratings, members' puzzle ratings, attempts, and each
server's puzzle of the day.

What must happen once is a compare-and-set: an attempt is answered once (``answered_at`` from
``NULL``; answering again reads the first answer back, and the ratings moved once); a server's
puzzle of the day is claimed by its primary key (server, day) before it is posted, and its
message recorded from ``NULL``, so a restart or a second process never posts it twice.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from bot.base.glicko2 import Rating, rate
from bot.base.languages import Language
from bot.base.shards import EVERY_SERVER, Shards
from bot.storage.db import Database, Row, Transaction, scalar
from bot.storage.watched import index_puzzles
from engine import Position
from engine.puzzles import Puzzle
from engine.turns import parse_turn

PUZZLE_LOCK = "puzzle-player"
"""A member's attempts are served and answered one at a time (their cycle and rating)."""
PUZZLE_RATING_LOCK = "puzzle-rating"
"""A puzzle's rating is moved by one answer at a time (taken after the member's lock)."""
NEAREST = 5
"""A member gets one of the five unseen puzzles rated nearest to them, at random."""


def starting_rating(difficulty: int) -> float:
    """A new puzzle's rating, before anyone tried it, from its choices: 1500 for 8 legal
    turns, 150 more for each doubling (1200 for 2, 1800 for 32), within 1200-1800; then the
    attempts move it."""
    return min(1800.0, max(1200.0, 1500.0 + 150.0 * math.log2(difficulty / 8)))


_PUZZLE_COLUMNS = (
    "p.id, p.position, p.answer, p.best, p.alternative, p.source, p.difficulty, p.rating, "
    "p.deviation, p.volatility, p.attempts, p.solved"
)
_ATTEMPT_COLUMNS = (
    "a.id, a.user_id, a.cycle, a.guild_id, a.day, a.answered_at, a.answer, a.correct, a.rated"
)
_PLAYER_COLUMNS = (
    "user_id, rating, deviation, volatility, attempts, solved, streak, best_streak, cycle"
)
_DAILY_COLUMNS = (
    "guild_id, day, puzzle_id, channel_id, language, message_id, first_solver, solvers, tries, "
    "revealed"
)


@dataclass(frozen=True, slots=True)
class StoredPuzzle:
    """A puzzle as stored: its id, the puzzle, its rating and how often it was solved."""

    id: int
    puzzle: Puzzle
    rating: Rating
    attempts: int
    solved: int


@dataclass(frozen=True, slots=True)
class PuzzlePlayer:
    """A member's puzzle rating, counts and streaks, and the cycle of puzzles they are in."""

    user_id: int
    rating: Rating
    attempts: int = 0
    solved: int = 0
    streak: int = 0
    """Puzzles solved in a row, up to the last one answered."""
    best_streak: int = 0
    cycle: int = 1


@dataclass(frozen=True, slots=True)
class Attempt:
    """A puzzle shown to a member: answered (``correct`` set) or not yet."""

    id: int
    user_id: int
    puzzle: StoredPuzzle
    cycle: int
    guild_id: int | None
    day: str | None
    """A server's puzzle of the day (``YYYY-MM-DD``), or ``None``."""
    answered_at: float | None
    answer: str | None
    correct: bool | None
    rated: bool


@dataclass(frozen=True, slots=True)
class Answered:
    """An answer stored (or, answered before, read back: ``first`` false)."""

    attempt: Attempt
    first: bool
    player: PuzzlePlayer
    """The member after the answer."""
    before: Rating | None
    """Their rating before it (``None``: not rated — answered before, or a puzzle they had
    answered already)."""


@dataclass(frozen=True, slots=True)
class DailyPuzzle:
    """A server's puzzle of the day."""

    guild_id: int
    day: str
    puzzle_id: int
    channel_id: int
    language: Language
    message_id: int | None
    first_solver: int | None
    solvers: int
    tries: int
    revealed: bool


def _stored(row: Row, at: int = 0) -> StoredPuzzle:
    puzzle = Puzzle(
        Position.parse(row[at + 1]),
        parse_turn(row[at + 2]),
        float(row[at + 3]),
        float(row[at + 4]),
        row[at + 5],
        int(row[at + 6]),
    )
    rating = Rating(float(row[at + 7]), float(row[at + 8]), float(row[at + 9]))
    return StoredPuzzle(int(row[at]), puzzle, rating, int(row[at + 10]), int(row[at + 11]))


def _new_puzzle_row(puzzle: Puzzle, now: float) -> tuple[object, ...]:
    """A new puzzle's row (from its position to when it was added), at its starting rating."""
    return (
        str(puzzle.position),
        str(puzzle.answer),
        puzzle.best,
        puzzle.alternative,
        puzzle.source,
        puzzle.difficulty,
        starting_rating(puzzle.difficulty),
        now,
    )


def _attempt(row: Row) -> Attempt:
    correct = None if row[7] is None else bool(row[7])
    return Attempt(
        int(row[0]),
        int(row[1]),
        _stored(row, 9),
        int(row[2]),
        row[3],
        row[4],
        row[5],
        row[6],
        correct,
        bool(row[8]),
    )


def _player(row: Row) -> PuzzlePlayer:
    return PuzzlePlayer(
        int(row[0]),
        Rating(float(row[1]), float(row[2]), float(row[3])),
        *(int(value) for value in row[4:9]),
    )


def _daily(row: Row) -> DailyPuzzle:
    return DailyPuzzle(
        int(row[0]),
        row[1],
        int(row[2]),
        int(row[3]),
        row[4],
        row[5],
        row[6],
        int(row[7]),
        int(row[8]),
        bool(row[9]),
    )


class PuzzleStore:
    """Puzzles, attempts and puzzles of the day (the sweeps over ``shards``: this process's
    servers)."""

    def __init__(self, database: Database, shards: Shards = EVERY_SERVER) -> None:
        self.database = database
        self.shards = shards
        self.dailies = DailyStore(database, shards)
        self.searched = SearchedGames(database)

    async def add(self, puzzles: Sequence[Puzzle], now: float) -> int:
        """Store the puzzles not stored yet (a position is stored once), indexed for fair play
        (:mod:`bot.storage.watched`: with any stored before the index); how many were new."""
        async with self.database.transaction() as transaction:
            before = await scalar(transaction, "SELECT COUNT(*) FROM puzzles")
            await transaction.executemany(
                "INSERT INTO puzzles (position, answer, best, alternative, source, difficulty, "
                "rating, added_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (position) DO NOTHING",
                [_new_puzzle_row(puzzle, now) for puzzle in puzzles],
            )
            await index_puzzles(transaction)
            after = await scalar(transaction, "SELECT COUNT(*) FROM puzzles")
        return int(after) - int(before)

    async def count(self) -> int:
        return int(await scalar(self.database, "SELECT COUNT(*) FROM puzzles"))

    async def puzzle(self, puzzle_id: int) -> StoredPuzzle | None:
        row = await self.database.fetchone(
            f"SELECT {_PUZZLE_COLUMNS} FROM puzzles p WHERE p.id = ?", (puzzle_id,)
        )
        return None if row is None else _stored(row)

    async def player(self, user_id: int) -> PuzzlePlayer:
        """A member's puzzle standing (a newcomer's if they never answered one)."""
        row = await self.database.fetchone(
            f"SELECT {_PLAYER_COLUMNS} FROM puzzle_players WHERE user_id = ?", (user_id,)
        )
        return PuzzlePlayer(user_id, Rating()) if row is None else _player(row)

    async def attempt(self, attempt_id: int) -> Attempt | None:
        row = await self.database.fetchone(
            f"SELECT {_ATTEMPT_COLUMNS}, {_PUZZLE_COLUMNS} FROM puzzle_attempts a "
            "JOIN puzzles p ON p.id = a.puzzle_id WHERE a.id = ?",
            (attempt_id,),
        )
        return None if row is None else _attempt(row)

    async def serve(self, user_id: int, now: float, rng: random.Random | None = None) -> Attempt:
        """The member's puzzle: the one they were shown and have not answered yet, else a new
        one near their rating that they have not seen in this cycle (all seen: a new cycle).
        Raises ``LookupError`` when there is no puzzle at all."""
        rng = rng or random.Random()
        async with self.database.transaction() as transaction:
            await transaction.lock(PUZZLE_LOCK, user_id)
            open_id = await scalar(
                transaction,
                "SELECT id FROM puzzle_attempts WHERE user_id = ? AND answered_at IS NULL "
                "AND day IS NULL ORDER BY id DESC LIMIT 1",
                (user_id,),
            )
            if open_id is None:
                open_id = await _new_attempt(transaction, user_id, now, rng)
        found = await self.attempt(int(open_id))
        assert found is not None
        return found

    async def answer(
        self, attempt_id: int, user_id: int, answer: str | None, correct: bool, now: float
    ) -> Answered:
        """Record the member's answer (``None``: they asked to see it) to an attempt of
        theirs, once: the member's and the puzzle's ratings move (unless the member had
        answered this puzzle before), their counts and streak, and a puzzle of the day's tally.
        Answered already: the first answer read back, nothing moved. Raises ``LookupError`` if
        the attempt is not theirs."""
        async with self.database.transaction() as transaction:
            await transaction.lock(PUZZLE_LOCK, user_id)
            row = await transaction.fetchone(
                "SELECT puzzle_id, guild_id, day FROM puzzle_attempts WHERE id = ? AND user_id = ?",
                (attempt_id, user_id),
            )
            if row is None:
                raise LookupError("not this member's attempt")
            puzzle_id, guild_id, day = int(row[0]), row[1], row[2]
            changed = await transaction.execute(
                "UPDATE puzzle_attempts SET answered_at = ?, answer = ?, correct = ? "
                "WHERE id = ? AND answered_at IS NULL",
                (now, answer, correct, attempt_id),
            )
            player = await _player_in(transaction, user_id, now)
            if not changed:
                before = None
            else:
                before = await _rate(transaction, attempt_id, player, puzzle_id, correct)
                await _count(transaction, player, correct, now)
                if day is not None:
                    await _tally(transaction, guild_id, day, user_id, correct)
                player = await _player_in(transaction, user_id, now)
        attempt = await self.attempt(attempt_id)
        assert attempt is not None
        return Answered(attempt, bool(changed), player, before)

    async def daily_attempt(self, daily: DailyPuzzle, user_id: int, now: float) -> Attempt:
        """The member's attempt at a server's puzzle of the day (shown once, answered once)."""
        async with self.database.transaction() as transaction:
            await transaction.lock(PUZZLE_LOCK, user_id)
            player = await _player_in(transaction, user_id, now)
            await transaction.execute(
                "INSERT INTO puzzle_attempts (user_id, puzzle_id, cycle, guild_id, day, "
                "shown_at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (guild_id, day, user_id) WHERE day IS NOT NULL DO NOTHING",
                (user_id, daily.puzzle_id, player.cycle, daily.guild_id, daily.day, now),
            )
            found = await scalar(
                transaction,
                "SELECT id FROM puzzle_attempts WHERE guild_id = ? AND day = ? AND user_id = ?",
                (daily.guild_id, daily.day, user_id),
            )
        attempt = await self.attempt(int(found))
        assert attempt is not None
        return attempt


class DailyStore:
    """Each server's puzzle of the day (the sweeps over ``shards``: this process's servers)."""

    def __init__(self, database: Database, shards: Shards = EVERY_SERVER) -> None:
        self.database = database
        self.shards = shards

    async def wanted(self) -> list[tuple[int, int]]:
        """The servers of this process that want a puzzle of the day, with their channel."""
        mine, shards = self.shards.sql()
        rows = await self.database.fetchall(
            f"SELECT guild_id, puzzle_channel FROM guild_settings "
            f"WHERE puzzle_channel IS NOT NULL AND {mine} ORDER BY guild_id",
            shards,
        )
        return [(int(row[0]), int(row[1])) for row in rows]

    async def get(self, guild_id: int, day: str) -> DailyPuzzle | None:
        row = await self.database.fetchone(
            f"SELECT {_DAILY_COLUMNS} FROM daily_puzzles WHERE guild_id = ? AND day = ?",
            (guild_id, day),
        )
        return None if row is None else _daily(row)

    async def claim(
        self, guild_id: int, day: str, channel_id: int, language: Language
    ) -> DailyPuzzle | None:
        """Choose the server's puzzle of ``day`` (one it never had, at random) and claim the
        day for it, unless it is claimed already; the day's puzzle (``None``: no puzzle)."""
        async with self.database.transaction() as transaction:
            candidates = await transaction.fetchall(
                "SELECT id FROM puzzles WHERE id NOT IN "
                "(SELECT puzzle_id FROM daily_puzzles WHERE guild_id = ?) ORDER BY id",
                (guild_id,),
            )
            if not candidates:
                candidates = await transaction.fetchall("SELECT id FROM puzzles ORDER BY id")
            if candidates:
                chosen = random.Random(f"{guild_id}:{day}").choice(candidates)[0]
                await transaction.execute(
                    "INSERT INTO daily_puzzles (guild_id, day, puzzle_id, channel_id, language) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, day) DO NOTHING",
                    (guild_id, day, chosen, channel_id, language),
                )
        return await self.get(guild_id, day)

    async def posted(self, guild_id: int, day: str, message_id: int) -> bool:
        """Record the day's message (once: a second post's id is not recorded)."""
        async with self.database.transaction() as transaction:
            changed = await transaction.execute(
                "UPDATE daily_puzzles SET message_id = ? WHERE guild_id = ? AND day = ? "
                "AND message_id IS NULL",
                (message_id, guild_id, day),
            )
        return bool(changed)

    async def unrevealed(self, before_day: str) -> list[DailyPuzzle]:
        """This process's posted puzzles of the day before ``before_day`` whose answer is not
        shown yet."""
        mine, shards = self.shards.sql()
        rows = await self.database.fetchall(
            f"SELECT {_DAILY_COLUMNS} FROM daily_puzzles WHERE day < ? AND NOT revealed "
            f"AND message_id IS NOT NULL AND {mine} ORDER BY guild_id, day",
            (before_day, *shards),
        )
        return [_daily(row) for row in rows]

    async def reveal(self, guild_id: int, day: str) -> None:
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "UPDATE daily_puzzles SET revealed = ? WHERE guild_id = ? AND day = ?",
                (True, guild_id, day),
            )


SEARCHED_KEY = "puzzles:searched"
"""The ``meta`` key of the last finished game searched for a puzzle: ``<finished_at>:<id>``."""


class SearchedGames:
    """How far the finished games were searched for puzzles, in the order they finished: a
    mark moved past each game by a compare-and-set, so that one process searches it, once."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def claim_next(self) -> int | None:
        """The next finished game to search (its id), the mark moved past it; ``None`` when
        none is left, or another process moved the mark first."""
        async with self.database.transaction() as transaction:
            mark = await scalar(
                transaction, "SELECT value FROM meta WHERE key = ?", (SEARCHED_KEY,)
            )
            at, last = (float(mark.split(":")[0]), int(mark.split(":")[1])) if mark else (-1.0, 0)
            row = await transaction.fetchone(
                "SELECT id, finished_at FROM games WHERE status = 'finished' AND "
                "(finished_at > ? OR (finished_at = ? AND id > ?)) ORDER BY finished_at, id "
                "LIMIT 1",
                (at, at, last),
            )
            if row is None:
                return None
            moved = f"{float(row[1])!r}:{int(row[0])}"
            if mark is None:
                changed = await transaction.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                    (SEARCHED_KEY, moved),
                )
            else:
                changed = await transaction.execute(
                    "UPDATE meta SET value = ? WHERE key = ? AND value = ?",
                    (moved, SEARCHED_KEY, mark),
                )
        return int(row[0]) if changed else None


async def _player_in(transaction: Transaction, user_id: int, now: float) -> PuzzlePlayer:
    """The member's standing, stored first if new."""
    await transaction.execute(
        "INSERT INTO puzzle_players (user_id, updated_at) VALUES (?, ?) "
        "ON CONFLICT (user_id) DO NOTHING",
        (user_id, now),
    )
    row = await transaction.fetchone(
        f"SELECT {_PLAYER_COLUMNS} FROM puzzle_players WHERE user_id = ?", (user_id,)
    )
    assert row is not None  # inserted above if it was missing
    return _player(row)


async def _new_attempt(
    transaction: Transaction, user_id: int, now: float, rng: random.Random
) -> int:
    """Show the member one of the puzzles nearest their rating that they have not seen in
    their cycle (all seen: the cycle moves on); the new attempt's id. Raises ``LookupError``
    when there is no puzzle at all."""
    player = await _player_in(transaction, user_id, now)
    chosen = await _unseen(transaction, player, rng)
    if chosen is None:
        await transaction.execute(
            "UPDATE puzzle_players SET cycle = cycle + 1 WHERE user_id = ?", (user_id,)
        )
        player = await _player_in(transaction, user_id, now)
        chosen = await _unseen(transaction, player, rng)
    if chosen is None:
        raise LookupError("there are no puzzles")
    return await scalar(
        transaction,
        "INSERT INTO puzzle_attempts (user_id, puzzle_id, cycle, shown_at) "
        "VALUES (?, ?, ?, ?) RETURNING id",
        (user_id, chosen, player.cycle, now),
    )


async def _count(transaction: Transaction, player: PuzzlePlayer, correct: bool, now: float) -> None:
    """Count a member's first answer to an attempt: their attempts, puzzles solved and
    streak."""
    streak = player.streak + 1 if correct else 0
    await transaction.execute(
        "UPDATE puzzle_players SET attempts = attempts + 1, solved = solved + ?, "
        "streak = ?, best_streak = CASE WHEN best_streak > ? THEN best_streak "
        "ELSE ? END, updated_at = ? WHERE user_id = ?",
        (int(correct), streak, streak, streak, now, player.user_id),
    )


async def _tally(
    transaction: Transaction, guild_id: int, day: str, user_id: int, correct: bool
) -> None:
    """Count a member's first answer to a server's puzzle of the day: its tries, solvers and
    first solver."""
    await transaction.execute(
        "UPDATE daily_puzzles SET tries = tries + 1, solvers = solvers + ?, "
        "first_solver = CASE WHEN first_solver IS NULL AND ? THEN ? "
        "ELSE first_solver END WHERE guild_id = ? AND day = ?",
        (int(correct), correct, user_id, guild_id, day),
    )


async def _unseen(transaction: Transaction, player: PuzzlePlayer, rng: random.Random) -> int | None:
    """One of the puzzles nearest the member's rating that they were not shown in their
    cycle."""
    rows = await transaction.fetchall(
        "SELECT p.id FROM puzzles p WHERE NOT EXISTS (SELECT 1 FROM puzzle_attempts a "
        "WHERE a.user_id = ? AND a.cycle = ? AND a.puzzle_id = p.id) "
        "ORDER BY ABS(p.rating - ?), p.id LIMIT ?",
        (player.user_id, player.cycle, player.rating.rating, NEAREST),
    )
    return int(rng.choice(rows)[0]) if rows else None


async def _rate(
    transaction: Transaction,
    attempt_id: int,
    player: PuzzlePlayer,
    puzzle_id: int,
    correct: bool,
) -> Rating | None:
    """Move the member's and the puzzle's ratings for a first answer (a member's first answer
    to this puzzle: a puzzle of the day they had met, or met again in a new cycle, moves
    nothing); the member's rating before, or ``None``."""
    met = await scalar(
        transaction,
        "SELECT COUNT(*) FROM puzzle_attempts WHERE user_id = ? AND puzzle_id = ? AND rated",
        (player.user_id, puzzle_id),
    )
    if met:
        return None
    await transaction.lock(PUZZLE_RATING_LOCK, puzzle_id)  # members answering it at once
    row = await transaction.fetchone(
        "SELECT rating, deviation, volatility FROM puzzles WHERE id = ?", (puzzle_id,)
    )
    assert row is not None  # the attempt's puzzle (its foreign key)
    puzzle = Rating(float(row[0]), float(row[1]), float(row[2]))
    score = 1.0 if correct else 0.0
    member = rate(player.rating, [(puzzle, score)])
    rated_puzzle = rate(puzzle, [(player.rating, 1.0 - score)])
    await transaction.execute(
        "UPDATE puzzle_players SET rating = ?, deviation = ?, volatility = ? WHERE user_id = ?",
        (member.rating, member.deviation, member.volatility, player.user_id),
    )
    await transaction.execute(
        "UPDATE puzzles SET rating = ?, deviation = ?, volatility = ?, attempts = attempts + 1, "
        "solved = solved + ? WHERE id = ?",
        (
            rated_puzzle.rating,
            rated_puzzle.deviation,
            rated_puzzle.volatility,
            int(correct),
            puzzle_id,
        ),
    )
    await transaction.execute(
        "UPDATE puzzle_attempts SET rated = ? WHERE id = ?", (True, attempt_id)
    )
    return player.rating
