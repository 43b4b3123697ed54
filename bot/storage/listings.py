"""Lists of games for members to browse: the server's games being played (``/tholos games``),
a member's finished games (``/tholos history``), and the choices of a ``game`` option."""

from __future__ import annotations

from dataclasses import dataclass

from bot.base.game import Game
from bot.base.shards import DIRECT_MESSAGES
from bot.storage.db import Database, scalar
from bot.storage.games.places import PlacedGames, shown_in_servers
from bot.storage.games.rows import GAME_COLUMNS, game_from_row

IN_SERVER = shown_in_servers(1)
"""A game shown on a server (its id given twice): at home there, or a pool game's other place."""
IN_SERVERS = shown_in_servers(2)
"""A game shown on either of two servers (their ids given twice)."""


@dataclass(frozen=True, slots=True)
class Finish:
    """A place in a history, newest first: a finished game's exact finishing time and id."""

    at: float
    game_id: int

    @classmethod
    def of(cls, game: Game) -> Finish:
        """The place of ``game`` (a finished game)."""
        assert game.finished_at is not None
        return cls(game.finished_at, game.id)


class GameListings:
    """Pages and choices of games, newest first (read-only)."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.places = PlacedGames(database)

    async def playing(self, guild_id: int) -> int:
        """How many games the server is playing."""
        return await scalar(
            self.database,
            f"SELECT COUNT(*) FROM games WHERE {IN_SERVER} AND status = 'active'",
            (guild_id, guild_id),
        )

    async def playing_page(self, guild_id: int, user_id: int, page: int, size: int) -> list[Game]:
        """The ``page``-th (from 0) ``size`` games the server is playing (a pool game shown
        there too, seen from there): ``user_id``'s first, then the others, each part by the
        newest move."""
        rows = await self.database.fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE {IN_SERVER} AND status = 'active' "
            "ORDER BY CASE WHEN white_id = ? OR black_id = ? THEN 0 ELSE 1 END, "
            "last_move_at DESC, id DESC LIMIT ? OFFSET ?",
            (guild_id, guild_id, user_id, user_id, size, page * size),
        )
        return await self.places.seen_in_server(map(game_from_row, rows), guild_id)

    async def playing_in(self, channel_id: int, user_id: int, size: int) -> list[Game]:
        """The first ``size`` games being played in the channel ``channel_id`` outside the
        servers with the bot (a DM, a group DM, a server without the bot: server id 0):
        ``user_id``'s first, then the others, each part by the newest move."""
        rows = await self.database.fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE guild_id = ? AND channel_id = ? "
            "AND status = 'active' "
            "ORDER BY CASE WHEN white_id = ? OR black_id = ? THEN 0 ELSE 1 END, "
            "last_move_at DESC, id DESC LIMIT ?",
            (DIRECT_MESSAGES, channel_id, user_id, user_id, size),
        )
        return [game_from_row(row) for row in rows]

    async def finished_count(self, guild_id: int, user_id: int, *, direct: bool = False) -> int:
        """How many finished games ``user_id`` played on the server (and, with ``direct``, in
        direct messages with the bot)."""
        guilds = (guild_id, DIRECT_MESSAGES if direct else guild_id)
        return await scalar(
            self.database,
            f"SELECT (SELECT COUNT(*) FROM games WHERE {IN_SERVERS} "
            "AND status = 'finished' AND white_id = ?) + (SELECT COUNT(*) FROM games "
            f"WHERE {IN_SERVERS} AND status = 'finished' AND black_id = ?)",
            (*guilds, *guilds, user_id, *guilds, *guilds, user_id),
        )

    async def finished_page(
        self, guild_id: int, user_id: int, page: int, size: int, *, direct: bool = False
    ) -> list[Game]:
        """The ``page``-th (from 0) ``size`` finished games of ``user_id`` on the server (and,
        with ``direct``, in direct messages with the bot), newest first."""
        guilds = (guild_id, DIRECT_MESSAGES if direct else guild_id)
        rows = await self.database.fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE {IN_SERVERS} AND status = 'finished' "
            "AND (white_id = ? OR black_id = ?) ORDER BY finished_at DESC, id DESC "
            "LIMIT ? OFFSET ?",
            (*guilds, *guilds, user_id, user_id, size, page * size),
        )
        return await self.places.seen_in_server(map(game_from_row, rows), guild_id)

    async def finished_seek(
        self,
        guild_id: int,
        user_id: int,
        mark: Finish | None,
        way: str,
        limit: int,
        *,
        direct: bool = False,
        skip: int = 0,
    ) -> list[Game]:
        """Up to ``limit`` finished games of ``user_id`` on the server (and, with ``direct``,
        in direct messages with the bot) right after ``mark`` in the history, newest first
        (``way`` ``n``: older ones, newest first; ``p``: newer ones, oldest first); ``mark``
        ``None``: from the newest, ``skip`` of them skipped. A seek from the mark's exact
        (time, id): the same cost on every page."""
        guilds = (guild_id, DIRECT_MESSAGES if direct else guild_id)
        where, values, order = "", (), "finished_at DESC, id DESC"
        if mark is not None and way == "n":
            where = "AND finished_at <= ? AND (finished_at < ? OR id < ?) "
            values = (mark.at, mark.at, mark.game_id)
        elif mark is not None:
            where = "AND finished_at >= ? AND (finished_at > ? OR id > ?) "
            values, order = (mark.at, mark.at, mark.game_id), "finished_at, id"
        rows = await self.database.fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE {IN_SERVERS} AND status = 'finished' "
            f"AND (white_id = ? OR black_id = ?) {where}ORDER BY {order} LIMIT ? OFFSET ?",
            (*guilds, *guilds, user_id, user_id, *values, limit, skip),
        )
        return await self.places.seen_in_server(map(game_from_row, rows), guild_id)

    async def recent_finished(self, home_id: int, user_id: int, limit: int) -> list[Game]:
        """``user_id``'s newest finished games in a channel or its threads (a pool game shown
        there, seen from there)."""
        rows = await self.database.fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'finished' "
            "AND (channel_id = ? OR parent_id = ? OR (pool AND id IN (SELECT game_id FROM "
            "game_places WHERE NOT home AND (channel_id = ? OR parent_id = ?)))) "
            "AND (white_id = ? OR black_id = ?) ORDER BY finished_at DESC, id DESC LIMIT ?",
            (home_id, home_id, home_id, home_id, user_id, user_id, limit),
        )
        games = [game_from_row(row) for row in rows]
        return [await self.places.game_in(game.id, home_id) or game for game in games]

    async def playing_named(self, guild_id: int, typed: str, limit: int) -> list[Game]:
        """The server's games whose players' names contain ``typed`` (any case), or whose id
        it is; by the newest move."""
        pattern = (
            "%" + typed.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        )
        rows = await self.database.fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE {IN_SERVER} AND status = 'active' AND ("
            "LOWER(white_name) LIKE ? ESCAPE '\\' OR LOWER(black_name) LIKE ? ESCAPE '\\' "
            "OR CAST(id AS TEXT) = ?) ORDER BY last_move_at DESC, id DESC LIMIT ?",
            (guild_id, guild_id, pattern, pattern, typed.strip().lstrip("#"), limit),
        )
        return await self.places.seen_in_server(map(game_from_row, rows), guild_id)
