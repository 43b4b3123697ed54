"""Ratings: Glicko-2 per server, updated in the transaction that ends a game; the leaderboard
and player-history queries; a rebuild from the stored games.

Rating periods: each rated game is one rating period for each of its two players, applied the
moment the game ends (so a player sees the change at once), in the order games were rated
(``games.rated_seq``). Resignations and timeouts are losses, draws are draws; unrated games
(against the AI) and challenges that never became games count for nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..domain import Result
from ..glicko2 import Rating, rate
from .db import Database, Row, Transaction, scalar

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


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A finished game as a player's history needs it."""

    id: int
    white_id: int
    black_id: int
    result: str
    reason: str
    white_points: int
    black_points: int
    finished_at: float
    ai_level: str | None
    """The AI's level in a game against the AI (never rated), else ``None``."""


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
        row["user_id"], Rating(row["rating"], row["deviation"], row["volatility"]),
        row["games"], row["wins"], row["losses"], row["draws"],
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class RatedResult:
    """What rating a finished game needs: where, who, the result, and when it ended."""

    game_id: int
    guild_id: int
    white_id: int
    black_id: int
    result: Result
    finished_at: float


async def rate_game(transaction: Transaction, game: RatedResult) -> None:
    """Update both players' ratings for a finished, rated game, in the caller's transaction
    (the one that finishes the game, or :meth:`RatingStore.rebuild`'s), and give the game the
    next number in rating order.

    Games are rated one at a time across every process (a lock held to the end of the
    transaction): two games ending at once are both counted, in one order, each once.
    """
    await transaction.lock(RATINGS_LOCK, 0)
    white = await _rating(transaction, game.guild_id, game.white_id)
    black = await _rating(transaction, game.guild_id, game.black_id)
    white_score, black_score = _SCORES[game.result]
    for user_id, player, opponent, score in (
        (game.white_id, white, black, white_score),
        (game.black_id, black, white, black_score),
    ):
        after = rate(player, [(opponent, score)])
        await transaction.execute(
            "INSERT INTO ratings (guild_id, user_id, rating, deviation, volatility, games, wins, "
            "losses, draws, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?) "
            "ON CONFLICT (guild_id, user_id) DO UPDATE SET rating = excluded.rating, "
            "deviation = excluded.deviation, volatility = excluded.volatility, "
            "games = ratings.games + 1, wins = ratings.wins + excluded.wins, "
            "losses = ratings.losses + excluded.losses, draws = ratings.draws + excluded.draws, "
            "updated_at = excluded.updated_at",
            (game.guild_id, user_id, after.rating, after.deviation, after.volatility,
             int(score == 1.0), int(score == 0.0), int(score == 0.5), game.finished_at),
        )  # fmt: skip
    await transaction.execute(
        "UPDATE games SET rated_seq = (SELECT COALESCE(MAX(rated_seq), 0) + 1 FROM games "
        "WHERE rated_seq IS NOT NULL) WHERE id = ?",  # the condition lets the index answer MAX
        (game.game_id,),
    )


async def _rating(transaction: Transaction, guild_id: int, user_id: int) -> Rating:
    row = await transaction.fetchone(
        "SELECT rating, deviation, volatility FROM ratings WHERE guild_id = ? AND user_id = ?",
        (guild_id, user_id),
    )
    return Rating() if row is None else Rating(row[0], row[1], row[2])


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
        self, guild_id: int, where: str, values: tuple[object, ...], order: str, limit: int,
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
            self.database,
            "SELECT COUNT(*) FROM ratings WHERE guild_id = ?", (guild_id,)
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

    async def history(self, guild_id: int, user_id: int) -> list[FinishedGame]:
        """The player's finished games on the server, oldest first."""
        rows = await self.database.fetchall(
            "SELECT id, white_id, black_id, result, reason, white_points, black_points, "
            "finished_at, ai_level FROM games WHERE guild_id = ? AND status = 'finished' "
            "AND white_id = ? UNION ALL "
            "SELECT id, white_id, black_id, result, reason, white_points, black_points, "
            "finished_at, ai_level FROM games WHERE guild_id = ? AND status = 'finished' "
            "AND black_id = ? ORDER BY finished_at, id",
            (guild_id, user_id, guild_id, user_id),
        )
        return [FinishedGame(*row) for row in rows]

    async def rebuild(self) -> int:
        """Recompute every rating from the rated games, in the order they were rated; returns
        the number of games replayed. One transaction: all or nothing."""
        async with self.database.transaction() as transaction:
            await transaction.lock(RATINGS_LOCK, 0)
            rows = await transaction.fetchall(
                "SELECT id, guild_id, white_id, black_id, result, finished_at FROM games "
                "WHERE status = 'finished' AND rated "
                "ORDER BY rated_seq NULLS FIRST, finished_at, id"
            )
            order = [RatedResult(*row) for row in rows]
            await transaction.execute("DELETE FROM ratings")
            await transaction.execute("UPDATE games SET rated_seq = NULL")
            for game in order:
                await rate_game(transaction, game)
        return len(order)
