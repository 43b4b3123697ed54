"""Fair play's index: the positions the engine may not help with, by a 64-bit key of the
canonical position (:func:`engine.position_key`) — never a scan of the games.

``watched_positions``: for each game being played that is rated or between two members (a
tournament's are), its position and every position one legal turn from it; written in the
transaction that records the game's turn (replacing the previous turn's), deleted in the one
that ends it. ``puzzle_positions``: each puzzle's position and the positions two turns from it,
written with the puzzle. A collision of two keys only refuses a position that needed no
refusal (odds about 2**-64 a pair).

The opening is never watched: the start position and the positions one turn from it (the
first turn of each player) begin thousands of games alike, their values are in every finished
game's review, and refusing them would refuse the first hint of every newcomer's game against
the AI whenever a member game starts anywhere.
"""

from __future__ import annotations

import logging
from typing import Protocol

from bot.storage.db import Database, DatabaseUnavailable, Transaction
from engine import Position, position_key, successors

log = logging.getLogger(__name__)

OPENING_PLIES = 2
"""Positions reached in fewer turns than this (the start, and the first turn's) are not
watched."""
WATCHED_GAMES_SQL = "status = 'active' AND (rated OR ai_level IS NULL)"
"""The games whose positions are watched, as SQL over ``games``: being played, and
:func:`ever_watched`."""


class WatchedGame(Protocol):
    """What the index needs of a game (a :class:`~bot.base.game.Game`)."""

    @property
    def id(self) -> int: ...
    @property
    def position(self) -> Position: ...
    @property
    def plies(self) -> int: ...
    @property
    def is_active(self) -> bool: ...
    @property
    def rated(self) -> bool: ...
    @property
    def ai_level(self) -> str | None: ...


def ever_watched(game: WatchedGame) -> bool:
    """Whether ``game`` is rated or between two members (its positions are watched while it is
    played)."""
    return game.rated or game.ai_level is None


def watched_keys(position: Position, plies: int) -> set[int]:
    """The keys of ``position`` (reached after ``plies`` turns) and of the positions one turn
    from it, but the opening's (:data:`OPENING_PLIES`)."""
    keys = set()
    if plies >= OPENING_PLIES:
        keys.add(position_key(position))
    if plies + 1 >= OPENING_PLIES:
        keys.update(position_key(after) for after in successors(position))
    return keys


PUZZLE_PLIES = 2
"""Turns from a puzzle's position within which the engine does not help (its answer's value
shows one turn on; the player's turn and each reply, two turns on, rank the player's turns: an
answer found by asking about some 15 × 15 positions, which a third turn would make 15 times
as many). A puzzle is a late position: some 40 keys each, once (151 shipped: 6,208 in 40 ms)."""


def guarded_keys(position: Position) -> set[int]:
    """The keys of a puzzle's ``position`` and of the positions within :data:`PUZZLE_PLIES`
    turns of it."""
    keys, frontier = {position_key(position)}, [position]
    for _ in range(PUZZLE_PLIES):
        frontier = [after for before in frontier for after in successors(before)]
        keys.update(position_key(after) for after in frontier)
    return keys


async def watch(transaction: Transaction, game: WatchedGame) -> None:
    """Index ``game`` as the caller's transaction leaves it: its keys replaced by those of its
    new position, or deleted once it ended. A game never watched (against the AI, unrated)
    costs nothing."""
    if not ever_watched(game):
        return
    if game.plies:  # a new game has no keys yet
        await transaction.execute("DELETE FROM watched_positions WHERE game_id = ?", (game.id,))
    keys = watched_keys(game.position, game.plies) if game.is_active else set()
    if keys:
        await transaction.executemany(
            "INSERT INTO watched_positions (game_id, position_key) VALUES (?, ?)",
            [(game.id, key) for key in keys],
        )


async def watch_games_in_progress(database: Database) -> int:
    """Index the games being played that have no keys yet (those under way when the index was
    created); how many. A turn recorded meanwhile replaces what this wrote."""
    rows = await database.fetchall(
        f"SELECT id, position, plies FROM games WHERE {WATCHED_GAMES_SQL} AND plies >= ? "
        "AND NOT EXISTS (SELECT 1 FROM watched_positions w WHERE w.game_id = games.id)",
        (OPENING_PLIES - 1,),
    )
    if not rows:
        return 0
    async with database.transaction() as transaction:
        for game_id, position, plies in rows:
            keys = watched_keys(Position.parse(position), plies)
            await transaction.executemany(
                "INSERT INTO watched_positions (game_id, position_key) VALUES (?, ?) "
                "ON CONFLICT DO NOTHING",
                [(game_id, key) for key in keys],
            )
    log.info("fair play: indexed the positions of %d games in progress", len(rows))
    return len(rows)


async def index_puzzles(transaction: Transaction) -> int:
    """Index the puzzles that have no keys yet (those just added, and those stored before the
    index); how many."""
    rows = await transaction.fetchall(
        "SELECT p.id, p.position FROM puzzles p WHERE NOT EXISTS "
        "(SELECT 1 FROM puzzle_positions x WHERE x.puzzle_id = p.id)"
    )
    for puzzle_id, position in rows:
        await transaction.executemany(
            "INSERT INTO puzzle_positions (puzzle_id, position_key) VALUES (?, ?)",
            [(puzzle_id, key) for key in guarded_keys(Position.parse(position))],
        )
    return len(rows)


async def game_watching(
    database: Database, position: Position, *, besides: int | None = None
) -> int | None:
    """A game being played (but ``besides``) whose position is ``position`` or one turn from
    it, if any."""
    row = await database.fetchone(
        "SELECT game_id FROM watched_positions WHERE position_key = ? AND game_id != ? LIMIT 1",
        (position_key(position), -1 if besides is None else besides),
    )
    return None if row is None else int(row[0])


async def puzzle_unanswered(database: Database, position: Position, user_id: int) -> int | None:
    """A puzzle whose position is ``position`` or within two turns of it and that ``user_id``
    has not answered yet (solved, missed or shown), if any."""
    row = await database.fetchone(
        "SELECT x.puzzle_id FROM puzzle_positions x WHERE x.position_key = ? AND NOT EXISTS "
        "(SELECT 1 FROM puzzle_attempts a WHERE a.user_id = ? AND a.puzzle_id = x.puzzle_id "
        "AND a.answered_at IS NOT NULL) LIMIT 1",
        (position_key(position), user_id),
    )
    return None if row is None else int(row[0])


async def watch_at_open(database: Database) -> None:
    """At start: index the games in progress not indexed yet; a database that cannot take it
    now is left for the next start (their next turn indexes them anyway)."""
    try:
        await watch_games_in_progress(database)
    except DatabaseUnavailable as error:
        log.warning("fair play: the games in progress were not indexed: %s", error)
