"""Ratings recomputed from the stored games: ``rebuild-ratings`` while the bot plays on, and the
replay migration 19 asks for (the per-server ratings became one per member and pool)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from bot.features.ratings.pools import Key, Standings, rate_in
from bot.features.ratings.store import (
    RATED_GAMES,
    RATINGS_LOCK,
    STANDING_COLUMNS,
    UPSERT,
    rated_result,
    standing,
    standing_row,
    write,
)
from bot.storage.db import Database, Row, Transaction, scalar

REBUILD_BATCH = 500
"""Rows a rebuild writes in one transaction: a few milliseconds of the write lock."""
REBUILD_PAUSE = 1.0
"""After replaying each batch of games, rest this many times as long: a rebuild takes at most
half a core, so that a bot on the same machine keeps its pace (100,000 games in about 3 s)."""
REBUILD_ROUNDS = 10
"""Catch-up rounds (games finished while the rebuild wrote) before the last, locked one."""
REBUILD_LAST_ROUND = 100
"""At most this many games left to catch up: the last round, under the ratings' lock."""
REPLAY_KEY = "ratings:replay"
"""The ``meta`` row migration 19 wrote: every stored rated game is to be replayed into the
pools (deleted by the transaction that does it, or by a rebuild)."""
IN_RATING_ORDER = " ORDER BY rated_seq NULLS FIRST, finished_at, id"
_SERVER_PLAYERS = (
    "INSERT INTO server_players (guild_id, user_id) SELECT * FROM ("
    "SELECT guild_id, white_id FROM games WHERE status = 'finished' AND rated AND guild_id != 0 "
    "AND NOT pool AND (ai_id IS NULL OR white_id != ai_id) UNION "
    "SELECT guild_id, black_id FROM games WHERE status = 'finished' AND rated AND guild_id != 0 "
    "AND NOT pool AND (ai_id IS NULL OR black_id != ai_id) UNION "
    "SELECT p.guild_id, p.user_id FROM game_places p JOIN games g ON g.id = p.game_id "
    "WHERE g.status = 'finished' AND g.rated AND p.guild_id != 0"
    ") AS played WHERE true ON CONFLICT (guild_id, user_id) DO NOTHING"
)
"""Every member of a rated game on the boards of the servers they played it from — a pool game's
each from their own place — (those a rebuild finds missing: a history written or copied without
them)."""


async def replay_if_asked(database: Database) -> int | None:
    """Replay every stored rated game into the pools if migration 19 asked for it, in one
    transaction under the ratings' lock that writes the rows and deletes the request (several
    processes starting at once: one replays, the others find nothing asked); the games
    replayed, or ``None`` when nothing was asked."""
    if await scalar(database, "SELECT value FROM meta WHERE key = ?", (REPLAY_KEY,)) is None:
        return None
    async with database.transaction() as transaction:
        await transaction.lock(RATINGS_LOCK, 0)
        asked = await transaction.fetchone("SELECT value FROM meta WHERE key = ?", (REPLAY_KEY,))
        if asked is None:
            return None
        rows = await transaction.fetchall(RATED_GAMES + IN_RATING_ORDER)
        standings: Standings = {}
        _catch_up(standings, rows, 0)
        await transaction.execute("DELETE FROM member_ratings")
        await write(transaction, standings, sorted(standings))
        await transaction.execute("DELETE FROM meta WHERE key = ?", (REPLAY_KEY,))
    return len(rows)


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """What :func:`rebuild_ratings` did."""

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
        await self._in_batches(UPSERT, [standing_row(key, standings[key]) for key in keys])

    async def delete(self, keys: list[Key]) -> None:
        await self._in_batches("DELETE FROM member_ratings WHERE pool = ? AND user_id = ?", keys)

    async def _in_batches(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        for start in range(0, len(rows), REBUILD_BATCH):
            async with self.transaction() as transaction:
                await transaction.executemany(sql, rows[start : start + REBUILD_BATCH])
        self.rows += len(rows)


async def rebuild_ratings(database: Database) -> Rebuilt:
    """Recompute every rating from the rated games, in the order they were rated, while
    the bot plays on: the result equals a rebuild with the bot stopped.

    The games are read in one consistent read and replayed in memory; the rows that differ
    are written in transactions of :data:`REBUILD_BATCH` rows (a few ms of the write lock
    each). Games rated meanwhile (``rated_seq`` beyond what was read) are then caught up in
    rounds, their players' rows written again; the servers' boards get the players missing from
    them (:data:`_SERVER_PLAYERS`); the last few games in one short transaction under the
    ratings' lock, so that no game ends between the last read and the last write (which
    also answers migration 19's request for a replay).
    """
    rows = await database.fetchall(RATED_GAMES + IN_RATING_ORDER)
    standings: Standings = {}
    seen = 0
    for start in range(0, len(rows), REBUILD_BATCH):
        began = time.perf_counter()
        seen, _ = _catch_up(standings, rows[start : start + REBUILD_BATCH], seen)
        await asyncio.sleep((time.perf_counter() - began) * REBUILD_PAUSE)
    stored = {
        (row[0], row[1]): standing(row, 2)
        for row in await database.fetchall(
            f"SELECT pool, user_id, {STANDING_COLUMNS} FROM member_ratings"
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
        await transaction.execute(_SERVER_PLAYERS)
    async with writes.transaction() as transaction:
        await transaction.lock(RATINGS_LOCK, 0)
        later = await _rated_after(transaction, seen)
        _, changed = _catch_up(standings, later, seen)
        during += len(later)
        await write(transaction, standings, sorted(changed))
        await transaction.execute("DELETE FROM meta WHERE key = ?", (REPLAY_KEY,))
    return Rebuilt(len(rows) + during, during, writes.rows + len(changed), writes.longest)


async def _rated_after(reader: Database | Transaction, seen: int) -> list[Row]:
    """The rated games numbered after ``seen`` in rating order (``rated_seq``)."""
    return await reader.fetchall(f"{RATED_GAMES} AND rated_seq > ? ORDER BY rated_seq", (seen,))


def _catch_up(standings: Standings, rows: list[Row], seen: int) -> tuple[int, set[Key]]:
    """Apply the games of ``rows`` (in rating order) to ``standings``; the highest
    ``rated_seq`` among them and ``seen``, and the keys they changed."""
    changed: set[Key] = set()
    for row in rows:
        changed.update(rate_in(standings, rated_result(row)))
        seen = max(seen, row[9] or 0)
    return seen, changed
