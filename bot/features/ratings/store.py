"""Ratings: Glicko-2 per server, updated in the transaction that ends a game; the leaderboard
and player-history queries; a rebuild from the stored games.

Rating periods: each rated game is one rating period for each of its two players, applied the
moment the game ends (so a player sees the change at once), in the order games were rated
(``games.rated_seq``). Resignations and timeouts are losses, draws are draws; unrated games
(against the AI, or outside servers with the bot) and challenges that never became games count
for nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from bot.base.glicko2 import Rating, rate
from bot.features.ratings.stats import FinishedGame
from bot.storage.db import Database, Row, Transaction, scalar
from engine.scoring import Result

PAGE_SIZE = 10
RATINGS_LOCK = "ratings"
"""The advisory lock that rates games one at a time across processes."""
PROVISIONAL_GAMES = 5
"""A rating is provisional until the player has finished this many rated games."""
_SCORES = {"white": (1.0, 0.0), "black": (0.0, 1.0), "draw": (0.5, 0.5)}


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A player's rating on one server, with the rated games behind it."""

    user_id: int
    rating: Rating
    games: int
    wins: int
    losses: int
    draws: int

    @property
    def provisional(self) -> bool:
        """Fewer than :data:`PROVISIONAL_GAMES` rated games."""
        return self.games < PROVISIONAL_GAMES


_RATING_COLUMNS = "user_id, rating, deviation, volatility, games, wins, losses, draws"
_DOWN = "ORDER BY rating DESC, user_id"
"""Leaderboard order: the rank index ``ratings_by_rank`` read forwards."""
_UP = "ORDER BY rating, user_id DESC"
"""The reverse of leaderboard order: the rank index read backwards."""


@dataclass(frozen=True, slots=True)
class Mark:
    """A place in leaderboard order: a row's exact rating (the stored double) and user id."""

    rating: float
    user_id: int

    @classmethod
    def of(cls, player: PlayerRating) -> Mark:
        """The place of ``player``'s row."""
        return cls(player.rating.rating, player.user_id)


def _player(row: Row) -> PlayerRating:
    return PlayerRating(
        row["user_id"],
        Rating(row["rating"], row["deviation"], row["volatility"]),
        row["games"],
        row["wins"],
        row["losses"],
        row["draws"],
    )


@dataclass(frozen=True, slots=True)
class RatedResult:
    """What rating a finished game needs: where, who, the result, and when it ended."""

    game_id: int
    guild_id: int
    white_id: int
    black_id: int
    result: Result
    finished_at: float


NEWCOMER = Rating()
"""The rating of a player's first rated game."""


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's row in ``ratings``: the rating and the rated games behind it."""

    rating: Rating = NEWCOMER
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    updated_at: float = 0.0

    def after(self, opponent: Rating, score: float, at: float) -> Standing:
        """This standing after one more rated game against ``opponent``, ending at ``at``."""
        return Standing(
            rate(self.rating, [(opponent, score)]),
            self.games + 1,
            self.wins + (score == 1.0),
            self.losses + (score == 0.0),
            self.draws + (score == 0.5),
            at,
        )


Key = tuple[int, int]
"""A ratings row's key: (guild id, user id)."""
Standings = dict[Key, Standing]


def rate_in(standings: Standings, game: RatedResult) -> tuple[Key, Key]:
    """Apply ``game`` to ``standings`` (each rated game is a rating period for both players);
    return the two keys it changed. The one rule of rating, live and in a rebuild."""
    white_key, black_key = (game.guild_id, game.white_id), (game.guild_id, game.black_id)
    white, black = standings.get(white_key, Standing()), standings.get(black_key, Standing())
    white_score, black_score = _SCORES[game.result]
    standings[white_key] = white.after(black.rating, white_score, game.finished_at)
    standings[black_key] = black.after(white.rating, black_score, game.finished_at)
    return white_key, black_key


_STANDING_COLUMNS = "rating, deviation, volatility, games, wins, losses, draws, updated_at"
_UPSERT = (
    f"INSERT INTO ratings (guild_id, user_id, {_STANDING_COLUMNS}) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET "
    "rating = excluded.rating, deviation = excluded.deviation, "
    "volatility = excluded.volatility, games = excluded.games, wins = excluded.wins, "
    "losses = excluded.losses, draws = excluded.draws, updated_at = excluded.updated_at"
)


def _standing(row: Row, at: int = 0) -> Standing:
    """The standing in the 8 columns of ``row`` from ``at`` (:data:`_STANDING_COLUMNS`)."""
    v = row[at : at + 8]
    return Standing(Rating(v[0], v[1], v[2]), v[3], v[4], v[5], v[6], v[7])


def _row(key: Key, standing: Standing) -> tuple[object, ...]:
    rating = standing.rating
    return (
        *key,
        rating.rating,
        rating.deviation,
        rating.volatility,
        standing.games,
        standing.wins,
        standing.losses,
        standing.draws,
        standing.updated_at,
    )


async def _write(transaction: Transaction, standings: Standings, keys: Iterable[Key]) -> None:
    await transaction.executemany(_UPSERT, [_row(key, standings[key]) for key in keys])


async def rate_game(transaction: Transaction, game: RatedResult) -> None:
    """Update both players' ratings for a finished, rated game, in the caller's transaction
    (the one that finishes the game), and give the game the next number in rating order.

    Games are rated one at a time across every process (a lock held to the end of the
    transaction): two games ending at once are both counted, in one order, each once.
    """
    await transaction.lock(RATINGS_LOCK, 0)
    standings: Standings = {}
    for user_id in (game.white_id, game.black_id):
        row = await transaction.fetchone(
            f"SELECT {_STANDING_COLUMNS} FROM ratings WHERE guild_id = ? AND user_id = ?",
            (game.guild_id, user_id),
        )
        if row is not None:
            standings[game.guild_id, user_id] = _standing(row)
    await _write(transaction, standings, rate_in(standings, game))
    await transaction.execute(
        "UPDATE games SET rated_seq = (SELECT COALESCE(MAX(rated_seq), 0) + 1 FROM games "
        "WHERE rated_seq IS NOT NULL) WHERE id = ?",  # the condition lets the index answer MAX
        (game.game_id,),
    )


REBUILD_BATCH = 500
"""Rows a rebuild writes in one transaction: a few milliseconds of the write lock."""
REBUILD_PAUSE = 1.0
"""After replaying each batch of games, rest this many times as long: a rebuild takes at most
half a core, so that a bot on the same machine keeps its pace (100,000 games in about 3 s)."""
REBUILD_ROUNDS = 10
"""Catch-up rounds (games finished while the rebuild wrote) before the last, locked one."""
REBUILD_LAST_ROUND = 100
"""At most this many games left to catch up: the last round, under the ratings' lock."""
_RATED_GAMES = (
    "SELECT id, guild_id, white_id, black_id, result, finished_at, rated_seq FROM games "
    "WHERE status = 'finished' AND rated"
)


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """What :meth:`RatingStore.rebuild` did."""

    games: int
    """Rated games replayed, those finished during the rebuild included."""
    during: int
    """Of those, games that finished while the rebuild ran (rated live, then caught up)."""
    written: int
    """Rows written or deleted (only those that differed)."""
    longest_write: float
    """Seconds of the longest write transaction: how long the bot might have waited."""


class _Writes:
    """The rebuild's write transactions, timed."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.rows = 0
        self.longest = 0.0

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        async with self.database.transaction() as transaction:
            began = time.perf_counter()
            yield transaction
        self.longest = max(self.longest, time.perf_counter() - began)

    async def write(self, standings: Standings, keys: list[Key]) -> None:
        await self._in_batches(_UPSERT, [_row(key, standings[key]) for key in keys])

    async def delete(self, keys: list[Key]) -> None:
        await self._in_batches("DELETE FROM ratings WHERE guild_id = ? AND user_id = ?", keys)

    async def _in_batches(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        for start in range(0, len(rows), REBUILD_BATCH):
            async with self.transaction() as transaction:
                await transaction.executemany(sql, rows[start : start + REBUILD_BATCH])
        self.rows += len(rows)


class RatingStore:
    """Ratings, ranks and histories in the database."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def page(
        self, guild_id: int, page: int, players: int | None = None
    ) -> list[tuple[int, PlayerRating]]:
        """The ``page``-th (from 0) :data:`PAGE_SIZE` players by rating, with their ranks, of the
        server's ``players`` (counted when not given).

        Read from the nearer end of the rank index: the first and the last pages cost the same
        at any size; a page in the middle skips up to half the players (``OFFSET``). Previous
        and Next do not come here: they seek (:meth:`seek`), flat everywhere.
        """
        if players is None:
            players = await self.players(guild_id)
        first = page * PAGE_SIZE
        size = min(PAGE_SIZE, players - first)
        if size <= 0:
            return []
        below = players - first - size
        if first <= below:
            rows = await self._ordered(guild_id, "", (), _DOWN, size, first)
        else:
            rows = (await self._ordered(guild_id, "", (), _UP, size, below))[::-1]
        return [(first + number + 1, player) for number, player in enumerate(rows)]

    async def seek(self, guild_id: int, mark: Mark, way: str) -> list[PlayerRating]:
        """Up to :data:`PAGE_SIZE` players right after (``way`` ``n``) or right before (``p``)
        ``mark`` in leaderboard order (rating descending, then user id), in that order.

        A seek in the rank index from ``mark``'s exact (rating, user id): the same cost on
        every page. The range condition on ``rating`` is what the index seeks on; the rest
        only sorts out the players tied with the mark.
        """
        if way == "n":
            where, order = " AND rating <= ? AND (rating < ? OR user_id > ?)", _DOWN
        else:
            where, order = " AND rating >= ? AND (rating > ? OR user_id < ?)", _UP
        rows = await self._ordered(
            guild_id, where, (mark.rating, mark.rating, mark.user_id), order, PAGE_SIZE, 0
        )
        return rows if way == "n" else rows[::-1]

    async def _ordered(
        self,
        guild_id: int,
        where: str,
        values: tuple[object, ...],
        order: str,
        limit: int,
        offset: int,
    ) -> list[PlayerRating]:
        rows = await self.database.fetchall(
            f"SELECT {_RATING_COLUMNS} FROM ratings WHERE guild_id = ?{where} {order} "
            "LIMIT ? OFFSET ?",
            (guild_id, *values, limit, offset),
        )
        return [_player(row) for row in rows]

    async def players(self, guild_id: int) -> int:
        """How many players of the server have a rating."""
        return await scalar(
            self.database, "SELECT COUNT(*) FROM ratings WHERE guild_id = ?", (guild_id,)
        )

    async def player(self, guild_id: int, user_id: int) -> tuple[int, PlayerRating] | None:
        """A player's rank and rating on the server, if rated."""
        row = await self.database.fetchone(
            f"SELECT {_RATING_COLUMNS} FROM ratings WHERE guild_id = ? AND user_id = ?",
            (guild_id, user_id),
        )
        if row is None:
            return None
        above = await scalar(
            self.database,
            "SELECT COUNT(*) FROM ratings WHERE guild_id = ? "
            "AND (rating > ? OR (rating = ? AND user_id < ?))",
            (guild_id, row["rating"], row["rating"], user_id),
        )
        return above + 1, _player(row)

    async def rating(self, guild_id: int, user_id: int) -> float:
        """A member's rating on the server (a newcomer's until they play a rated game)."""
        rating = await scalar(
            self.database,
            "SELECT rating FROM ratings WHERE guild_id = ? AND user_id = ?",
            (guild_id, user_id),
        )
        return Rating().rating if rating is None else float(rating)

    async def history(self, guild_id: int, user_id: int) -> list[FinishedGame]:
        """The player's finished games on the server, oldest first."""
        rows = await self.database.fetchall(
            "SELECT id, white_id, black_id, result, reason, white_points, black_points, "
            "finished_at, ai_level, time_control FROM games WHERE guild_id = ? "
            "AND status = 'finished' AND white_id = ? UNION ALL "
            "SELECT id, white_id, black_id, result, reason, white_points, black_points, "
            "finished_at, ai_level, time_control FROM games WHERE guild_id = ? "
            "AND status = 'finished' "
            "AND black_id = ? ORDER BY finished_at, id",
            (guild_id, user_id, guild_id, user_id),
        )
        return [FinishedGame(*row) for row in rows]

    async def rebuild(self) -> Rebuilt:
        """Recompute every rating from the rated games while the bot plays on
        (:func:`rebuild_ratings`)."""
        return await rebuild_ratings(self.database)


async def rebuild_ratings(database: Database) -> Rebuilt:
    """Recompute every rating from the rated games, in the order they were rated, while
    the bot plays on: the result equals a rebuild with the bot stopped.

    The games are read in one consistent read and replayed in memory; the rows that differ
    are written in transactions of :data:`REBUILD_BATCH` rows (a few ms of the write lock
    each). Games rated meanwhile (``rated_seq`` beyond what was read) are then caught up in
    rounds, their players' rows written again; the last few in one short transaction under
    the ratings' lock, so that no game ends between the last read and the last write.
    """
    rows = await database.fetchall(
        f"{_RATED_GAMES} ORDER BY rated_seq NULLS FIRST, finished_at, id"
    )
    standings: Standings = {}
    seen = 0
    for start in range(0, len(rows), REBUILD_BATCH):
        began = time.perf_counter()
        seen, _ = _catch_up(standings, rows[start : start + REBUILD_BATCH], seen)
        await asyncio.sleep((time.perf_counter() - began) * REBUILD_PAUSE)
    stored = {
        (row[0], row[1]): _standing(row, 2)
        for row in await database.fetchall(
            f"SELECT guild_id, user_id, {_STANDING_COLUMNS} FROM ratings"
        )
    }
    writes = _Writes(database)
    await writes.write(standings, [k for k, v in standings.items() if stored.get(k) != v])
    await writes.delete([key for key in stored if key not in standings])
    during = 0
    for _ in range(REBUILD_ROUNDS):
        later = await _rated_after(database, seen)
        if len(later) <= REBUILD_LAST_ROUND:
            break
        seen, changed = _catch_up(standings, later, seen)
        during += len(later)
        await writes.write(standings, sorted(changed))
    async with writes.transaction() as transaction:
        await transaction.lock(RATINGS_LOCK, 0)
        later = await _rated_after(transaction, seen)
        _, changed = _catch_up(standings, later, seen)
        during += len(later)
        await _write(transaction, standings, sorted(changed))
    return Rebuilt(len(rows) + during, during, writes.rows + len(changed), writes.longest)


async def _rated_after(reader: Database | Transaction, seen: int) -> list[Row]:
    """The rated games numbered after ``seen`` in rating order (``rated_seq``)."""
    return await reader.fetchall(f"{_RATED_GAMES} AND rated_seq > ? ORDER BY rated_seq", (seen,))


def _catch_up(standings: Standings, rows: list[Row], seen: int) -> tuple[int, set[Key]]:
    """Apply the games of ``rows`` (in rating order) to ``standings``; the highest
    ``rated_seq`` among them and ``seen``, and the keys they changed."""
    changed: set[Key] = set()
    for row in rows:
        changed.update(rate_in(standings, RatedResult(*row[:6])))
        seen = max(seen, row[6] or 0)
    return seen, changed
