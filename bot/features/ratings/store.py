"""Ratings in the database: one row per member and pool (``member_ratings``), updated in the
transaction that ends a rated game (:func:`rate_game`); the servers whose leaderboards show a
member (``server_players``); the leaderboards (a server's members, or everyone in the pool) and
a member's history. The rules: :mod:`.pools`; a rebuild from the stored games: :mod:`.rebuild`.

Resignations and timeouts are losses, draws are draws; unrated games (outside servers with the
bot, unrated games against the AI) and challenges that never became games count for nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.base.glicko2 import SCALE, Rating
from bot.base.paces import RatingPool
from bot.features.ratings.pools import (
    PROVISIONAL_DEVIATION,
    RANKED_DEVIATION,
    RATING_PERIOD,
    Key,
    RatedResult,
    Standing,
    Standings,
    rate_in,
)
from bot.features.ratings.stats import FinishedGame
from bot.storage.db import Database, Row, Transaction, scalar

PAGE_SIZE = 10
RATINGS_LOCK = "ratings"
"""The advisory lock that rates games one at a time across processes."""
STANDING_COLUMNS = "rating, deviation, volatility, games, wins, losses, draws, updated_at"
UPSERT = (
    f"INSERT INTO member_ratings (pool, user_id, {STANDING_COLUMNS}) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (pool, user_id) DO UPDATE SET "
    "rating = excluded.rating, deviation = excluded.deviation, "
    "volatility = excluded.volatility, games = excluded.games, wins = excluded.wins, "
    "losses = excluded.losses, draws = excluded.draws, updated_at = excluded.updated_at"
)
_R_COLUMNS = ", ".join(f"r.{column}" for column in STANDING_COLUMNS.split(", "))
_RANKED = (
    " AND r.deviation * r.deviation + r.volatility * r.volatility * ? "
    "* (CASE WHEN r.updated_at < ? THEN ? - r.updated_at ELSE 0 END) <= ?"
)
"""A row whose deviation grown to now is at most :data:`RANKED_DEVIATION` (squared: φ² + σ²t)."""
_DOWN = "ORDER BY r.rating DESC, r.user_id"
"""Leaderboard order: the rank index ``member_ratings_by_rank`` read forwards."""
_UP = "ORDER BY r.rating, r.user_id DESC"
"""The reverse of leaderboard order: the rank index read backwards."""


RATED_GAMES = (
    "SELECT id, white_id, black_id, result, finished_at, time_control, ai_level, ai_id, "
    "guild_id, rated_seq FROM games WHERE status = 'finished' AND rated"
)
"""The finished, rated games, as :func:`rated_result` reads them."""


def rated_result(row: Row) -> RatedResult:
    """A row of :data:`RATED_GAMES` as what its rating needs."""
    return RatedResult(*row[:9])


def standing(row: Row, at: int = 0) -> Standing:
    """The standing in the 8 columns of ``row`` from ``at`` (:data:`STANDING_COLUMNS`)."""
    v = row[at : at + 8]
    return Standing(Rating(v[0], v[1], v[2]), v[3], v[4], v[5], v[6], v[7])


def standing_row(key: Key, standing: Standing) -> tuple[object, ...]:
    """``member_ratings``' values for ``key``'s ``standing`` (:data:`UPSERT`)."""
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


async def write(transaction: Transaction, standings: Standings, keys: Iterable[Key]) -> None:
    """Write ``keys``' standings."""
    await transaction.executemany(UPSERT, [standing_row(key, standings[key]) for key in keys])


async def rate_game(transaction: Transaction, game_id: int) -> None:
    """Update the members' ratings for a finished, rated game, in the caller's transaction
    (the one that finishes the game), from its stored row as a rebuild reads it; give the game
    the next number in rating order; its players join the leaderboards of the servers they
    played it from.

    Games are rated one at a time across every process (a lock held to the end of the
    transaction): two games ending at once are both counted, in one order, each once.
    """
    await transaction.lock(RATINGS_LOCK, 0)
    row = await transaction.fetchone(f"{RATED_GAMES} AND id = ?", (game_id,))
    assert row is not None, f"game {game_id} is not a finished, rated game"
    game = rated_result(row)
    standings: Standings = {}
    for user_id in (game.white_id, game.black_id):
        found = await transaction.fetchone(
            f"SELECT {STANDING_COLUMNS} FROM member_ratings WHERE pool = ? AND user_id = ?",
            (game.pool, user_id),
        )
        if found is not None:
            standings[game.pool, user_id] = standing(found)
    changed = rate_in(standings, game)
    await write(transaction, standings, changed)
    await transaction.execute(
        "UPDATE games SET rated_seq = (SELECT COALESCE(MAX(rated_seq), 0) + 1 FROM games "
        "WHERE rated_seq IS NOT NULL) WHERE id = ?",  # the condition lets the index answer MAX
        (game_id,),
    )
    places = await transaction.fetchall(
        "SELECT guild_id, user_id FROM game_places WHERE game_id = ? AND guild_id != 0",
        (game_id,),
    )
    # A pool game shows each player on the server they played it from; any other game, both
    # on its server.
    servers = {(row[0], row[1]) for row in places} or {
        (game.guild_id, user_id) for _, user_id in changed if game.guild_id
    }
    for guild_id, user_id in sorted(servers):
        await join_server(transaction, guild_id, user_id)


async def join_server(transaction: Transaction, guild_id: int, user_id: int) -> None:
    """Show the member on the server's leaderboards (they played a rated game there, or
    queued from there)."""
    await transaction.execute(
        "INSERT INTO server_players (guild_id, user_id) VALUES (?, ?) "
        "ON CONFLICT (guild_id, user_id) DO NOTHING",
        (guild_id, user_id),
    )


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A member's rating in a pool as shown at a moment (the deviation grown to it), with the
    rated games behind it; ``name``: their global display name on the global leaderboard."""

    user_id: int
    rating: Rating
    games: int
    wins: int
    losses: int
    draws: int
    name: str | None = None

    @property
    def provisional(self) -> bool:
        """Deviation above :data:`PROVISIONAL_DEVIATION`."""
        return self.rating.deviation > PROVISIONAL_DEVIATION

    @property
    def ranked(self) -> bool:
        """Deviation at most :data:`RANKED_DEVIATION`: on the leaderboards."""
        return self.rating.deviation <= RANKED_DEVIATION


@dataclass(frozen=True, slots=True)
class Mark:
    """A place in leaderboard order: a row's exact rating (the stored double) and user id."""

    rating: float
    user_id: int

    @classmethod
    def of(cls, player: PlayerRating) -> Mark:
        """The place of ``player``'s row."""
        return cls(player.rating.rating, player.user_id)


@dataclass(frozen=True, slots=True)
class Board:
    """A leaderboard: a pool's ranked members, of one server (``guild_id``) or, globally
    (``None``), those who joined the pool, at the moment ``now``."""

    pool: RatingPool
    guild_id: int | None
    now: float

    @property
    def rows(self) -> tuple[str, tuple[object, ...]]:
        """``FROM … WHERE …`` of its ranked members, and the values it needs."""
        if self.guild_id is None:
            joined, values = "JOIN pool_members m ON m.user_id = r.user_id", ()
        else:
            joined = "JOIN server_players s ON s.user_id = r.user_id AND s.guild_id = ?"
            values = (self.guild_id,)
        growth = SCALE * SCALE / RATING_PERIOD
        return (
            f"FROM member_ratings r {joined} WHERE r.pool = ?{_RANKED}",
            (*values, self.pool, growth, self.now, self.now, RANKED_DEVIATION**2),
        )

    @property
    def name(self) -> str:
        """The column of the names shown (the global board's)."""
        return "m.name" if self.guild_id is None else "NULL"

    def player(self, row: Row) -> PlayerRating:
        """The row's member as shown now."""
        held = standing(row, 1)
        return PlayerRating(
            row[0], held.at(self.now), held.games, held.wins, held.losses, held.draws, row[9]
        )


class Leaderboards:
    """The leaderboards' pages, seeks, counts and ranks."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def page(
        self, board: Board, page: int, players: int | None = None
    ) -> list[tuple[int, PlayerRating]]:
        """The ``page``-th (from 0) :data:`PAGE_SIZE` players by rating, with their ranks, of the
        board's ``players`` (counted when not given).

        Read from the nearer end of the order: the first and the last pages cost the same at
        any size; a page in the middle skips up to half the players (``OFFSET``). Previous and
        Next do not come here: they seek (:meth:`seek`).
        """
        if players is None:
            players = await self.players(board)
        first = page * PAGE_SIZE
        size = min(PAGE_SIZE, players - first)
        if size <= 0:
            return []
        below = players - first - size
        if first <= below:
            rows = await self._ordered(board, "", (), _DOWN, size, first)
        else:
            rows = (await self._ordered(board, "", (), _UP, size, below))[::-1]
        return [(first + number + 1, player) for number, player in enumerate(rows)]

    async def seek(self, board: Board, mark: Mark, way: str) -> list[PlayerRating]:
        """Up to :data:`PAGE_SIZE` players right after (``way`` ``n``) or right before (``p``)
        ``mark`` in leaderboard order (rating descending, then user id), in that order: a seek
        from ``mark``'s exact (rating, user id), the ties with it sorted out by user id."""
        if way == "n":
            where, order = " AND r.rating <= ? AND (r.rating < ? OR r.user_id > ?)", _DOWN
        else:
            where, order = " AND r.rating >= ? AND (r.rating > ? OR r.user_id < ?)", _UP
        rows = await self._ordered(
            board, where, (mark.rating, mark.rating, mark.user_id), order, PAGE_SIZE, 0
        )
        return rows if way == "n" else rows[::-1]

    async def _ordered(
        self,
        board: Board,
        where: str,
        values: tuple[object, ...],
        order: str,
        limit: int,
        offset: int,
    ) -> list[PlayerRating]:
        rows_from, board_values = board.rows
        rows = await self.database.fetchall(
            f"SELECT r.user_id, {_R_COLUMNS}, {board.name} "
            f"{rows_from}{where} {order} LIMIT ? OFFSET ?",
            (*board_values, *values, limit, offset),
        )
        return [board.player(row) for row in rows]

    async def players(self, board: Board) -> int:
        """How many members the board ranks."""
        rows_from, values = board.rows
        return await scalar(self.database, f"SELECT COUNT(*) {rows_from}", values)

    async def rank(self, board: Board, user_id: int) -> int | None:
        """The member's rank on the board (``None``: not on it)."""
        rows_from, values = board.rows
        row = await self.database.fetchone(
            f"SELECT r.rating {rows_from} AND r.user_id = ?", (*values, user_id)
        )
        if row is None:
            return None
        above = await scalar(
            self.database,
            f"SELECT COUNT(*) {rows_from} AND (r.rating > ? OR (r.rating = ? AND r.user_id < ?))",
            (*values, row[0], row[0], user_id),
        )
        return above + 1


class RatingStore:
    """The members' ratings in the pools, their leaderboards and histories."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.boards = Leaderboards(database)

    async def member(self, pool: RatingPool, user_id: int, now: float) -> PlayerRating | None:
        """The member's rating in the pool as shown at ``now`` (``None``: never rated there)."""
        row = await self.database.fetchone(
            f"SELECT user_id, {STANDING_COLUMNS}, NULL FROM member_ratings "
            "WHERE pool = ? AND user_id = ?",
            (pool, user_id),
        )
        return None if row is None else Board(pool, None, now).player(row)

    async def pool_ratings(
        self, pool: RatingPool, user_ids: Sequence[int], now: float
    ) -> dict[int, Rating]:
        """Each member's rating in the pool at ``now``, the deviation grown to it (a newcomer's,
        1500 ± 350, for one never rated there): for the pool's waves and the AI's offer."""
        ratings = {user_id: Rating() for user_id in user_ids}
        unique = list(ratings)
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            rows = await self.database.fetchall(
                f"SELECT user_id, {STANDING_COLUMNS} FROM member_ratings WHERE pool = ? "
                f"AND user_id IN ({', '.join('?' for _ in chunk)})",
                (pool, *chunk),
            )
            for row in rows:
                ratings[row[0]] = standing(row, 1).at(now)
        return ratings

    async def rating(self, pool: RatingPool, user_id: int) -> float:
        """A member's rating in the pool (a newcomer's until they play a rated game there)."""
        rating = await scalar(
            self.database,
            "SELECT rating FROM member_ratings WHERE pool = ? AND user_id = ?",
            (pool, user_id),
        )
        return Rating().rating if rating is None else float(rating)

    async def history(self, guild_id: int, user_id: int) -> list[FinishedGame]:
        """The player's finished games on the server, oldest first."""
        rows = await self.database.fetchall(
            "SELECT id, white_id, black_id, result, reason, white_points, black_points, "
            "finished_at, ai_level, time_control, rated FROM games WHERE guild_id = ? "
            "AND status = 'finished' AND white_id = ? UNION ALL "
            "SELECT id, white_id, black_id, result, reason, white_points, black_points, "
            "finished_at, ai_level, time_control, rated FROM games WHERE guild_id = ? "
            "AND status = 'finished' "
            "AND black_id = ? ORDER BY finished_at, id",
            (guild_id, user_id, guild_id, user_id),
        )
        return [FinishedGame(*row[:10], rated=bool(row[10])) for row in rows]
