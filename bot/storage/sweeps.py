"""What this process's background loops look for in the games, on its own servers only (its
shards): games waiting for the AI, boards a crash left unposted, live clocks that ran out."""

from __future__ import annotations

from bot.base.game import Game
from bot.base.shards import EVERY_SERVER, Shards
from bot.storage.db import Database, scalar
from bot.storage.games.rows import (
    GAME_COLUMNS,
    NEEDS_A_BOARD,
    WHERE_THE_BOT_POSTS,
    game_from_row,
)


class Sweeps:
    """The background loops' queries, over the servers of ``shards``."""

    def __init__(self, database: Database, shards: Shards = EVERY_SERVER) -> None:
        self.database = database
        self.shards = shards

    async def _games(self, where: str, values: tuple[object, ...] = ()) -> list[Game]:
        mine, shards = self.shards.sql()
        rows = await self.database.fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE {where.format(mine=mine)}",
            (*values, *shards),
        )
        return [game_from_row(row) for row in rows]

    async def _first(self, sql: str) -> float | None:
        mine, shards = self.shards.sql()
        return await scalar(self.database, sql.format(mine=mine), shards)

    async def ai_games(self) -> list[Game]:
        """Every game against the AI still being played where the bot posts its boards
        (elsewhere the AI plays within the press that left it to move)."""
        return await self._games(
            f"status = 'active' AND ai_level IS NOT NULL AND {WHERE_THE_BOT_POSTS} AND {{mine}}"
        )

    async def games_needing_a_board(self, changed_before: float) -> list[Game]:
        """The games whose newest change, made before ``changed_before``, has no board message
        (the bot died, or Discord failed, between storing a change and posting its board), where
        the bot posts (elsewhere the next press there shows it)."""
        return await self._games(
            f"{NEEDS_A_BOARD} AND {WHERE_THE_BOT_POSTS} AND updated_at < ? AND {{mine}} "
            "ORDER BY updated_at",
            (changed_before,),
        )

    async def flags_due(self, now: float) -> list[Game]:
        """The live games whose running clock has run out by ``now``."""
        return await self._games(
            "status = 'active' AND flag_at IS NOT NULL AND flag_at <= ? AND {mine} "
            "ORDER BY flag_at",
            (now,),
        )

    async def next_flag(self) -> float | None:
        """When the next running clock runs out."""
        return await self._first(
            "SELECT MIN(flag_at) FROM games WHERE status = 'active' AND flag_at IS NOT NULL "
            "AND {mine}"
        )
