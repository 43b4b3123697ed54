"""The game store: the questions asked of games and turns, and the writes that are the store's
own (a board message recorded, a hint counted, a game moved to another channel)."""

from __future__ import annotations

import functools

from bot.base.game import Game, NewGame, TurnRecord
from bot.base.server_rules import ReminderDefaults
from bot.storage.db import Database, Transaction, UniqueViolation, scalar
from bot.storage.games.changes import (
    GAMES_TOPIC,
    IN_CHANNEL,
    ChannelBusyError,
    StaleGameError,
    ensure_pair_free,
    insert_game,
)
from bot.storage.games.places import PlacedGames, PlaceThreads
from bot.storage.games.rows import GAME_COLUMNS, game_from_row, read_game
from bot.storage.group import GroupCommit
from bot.storage.leases import board_lease, end


class GameStore:
    """Games and turns in the database."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self._boards = GroupCommit(database, ordered=True)
        self.places = PlacedGames(database)
        """Pool games seen from each of their places."""
        self.place_threads = PlaceThreads(database, self.places)
        """Their threads in each place."""

    async def create_ai_game(
        self, new: NewGame, *, now: float, reminders: ReminderDefaults | None = None
    ) -> Game:
        """Start ``new``, a game against the AI, at ``now``; raises :class:`ChannelBusyError` if
        its place has an active game or the human already plays the AI there. ``reminders``:
        the human moves first and may be reminded (see
        :func:`~bot.storage.games.sql_rules.reminder_due`)."""
        home = new.place.home_id
        async with self.database.transaction() as transaction:
            await transaction.lock("channel", home)
            await ensure_pair_free(transaction, home, new.white.id, new.black.id)
            return await insert_game(transaction, new, now=now, reminders=reminders)

    async def game(self, game_id: int) -> Game | None:
        """The game with this id."""
        return await read_game(self.database, game_id)

    async def count_hint(self, game_id: int) -> int:
        """One more hint given in ``game_id`` (a game that allows them); how many now."""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "UPDATE games SET hints_used = hints_used + 1 WHERE id = ? AND hints = ?",
                (game_id, True),
            )
            used = await scalar(
                transaction, "SELECT hints_used FROM games WHERE id = ?", (game_id,)
            )
        return int(used)

    async def active_games(self, home_id: int, user_id: int) -> list[Game]:
        """The active games ``user_id`` plays in a channel or in its threads (a pool game's
        other places too, seen from there), newest first."""
        rows = await self.database.fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'active' "
            "AND (channel_id = ? OR parent_id = ?) AND (white_id = ? OR black_id = ?) "
            "ORDER BY id DESC",
            (home_id, home_id, user_id, user_id),
        )
        games = [game_from_row(row) for row in rows]
        games += await self.places.active_in(home_id, user_id)
        return sorted(games, key=lambda game: game.id, reverse=True)

    async def move(
        self,
        game: Game,
        *,
        channel_id: int,
        parent_id: int | None,
        parent_message_id: int | None,
    ) -> Game:
        """Play ``game`` elsewhere from now on (its thread was deleted): a new thread of
        ``parent_id``, or the channel itself; its board there is still to be posted.

        Raises :class:`ChannelBusyError` if a game is played in that channel already, and
        :class:`StaleGameError` if the game ended meanwhile. A pool game seen from another
        place than its home moves there alone (:meth:`PlacedGames.move`).
        """
        if game.away is not None:
            return await self.places.move(game, channel_id, parent_id, parent_message_id)
        try:
            async with self.database.transaction() as transaction:
                row = await transaction.fetchone(
                    "UPDATE games SET channel_id = ?, parent_id = ?, parent_message_id = ?, "
                    "board_message_id = NULL, board_version = NULL "
                    f"WHERE id = ? AND status = 'active' RETURNING {GAME_COLUMNS}",
                    (channel_id, parent_id, parent_message_id, game.id),
                )
        except UniqueViolation:
            raise ChannelBusyError(IN_CHANNEL) from None
        if row is None:
            raise StaleGameError("the game ended meanwhile")
        return game_from_row(row)

    async def active_game(self, channel_id: int) -> Game | None:
        """The active game played in a channel or thread itself, if any: the one game that is
        not the pool's, or the only game the pool shows there."""
        rows = await self.database.fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE channel_id = ? AND status = 'active' "
            "ORDER BY pool LIMIT 2",
            (channel_id,),
        )
        games = [game_from_row(row) for row in rows]
        if games and not games[0].pool:
            return games[0]
        games += await self.places.active_in(channel_id, None, threads=False)
        return games[0] if len(games) == 1 else None

    async def set_board_message(
        self,
        game_id: int,
        message_id: int,
        version: int,
        clock: tuple[float, float] | None = None,
        away: int | None = None,
    ) -> bool:
        """Remember the newest board message and the version it shows, and end the lease of
        posting it; ``False`` (and nothing stored) when a board of a newer version is already
        recorded. Ordered: the board is on Discord already, and what reads the game from now on
        (a press on the old board, ``/tholos board``, the games list) must know it.

        ``clock``: the board of a live game's turn, posted at ``clock[0]``: the mover's clock
        starts then and runs out at ``clock[1]`` — unless it already runs, or the game moved
        on.

        ``away``: the board of a pool game's place besides its home (:attr:`Game.away`).

        Committed with the other boards recorded at the same moment (:class:`GroupCommit`)."""
        return await self._boards.run(
            functools.partial(_record_board, game_id, message_id, version, clock, away)
        )

    async def turns(self, game_id: int, *, last: int | None = None) -> list[TurnRecord]:
        """The game's turns in order (only the ``last`` few when it is given)."""
        sql = (
            "SELECT ply, player_id, turn, position_after, created_at, clock FROM turns "
            "WHERE game_id = ? ORDER BY ply DESC"
        )
        if last is None:
            rows = await self.database.fetchall(sql, (game_id,))
        else:
            rows = await self.database.fetchall(f"{sql} LIMIT ?", (game_id, last))
        return [TurnRecord(*row) for row in reversed(rows)]


async def _record_board(
    game_id: int,
    message_id: int,
    version: int,
    clock: tuple[float, float] | None,
    away: int | None,
    transaction: Transaction,
) -> bool:
    """The writes of :meth:`GameStore.set_board_message`."""
    await end(transaction, board_lease(game_id, version, away))
    if away is None:
        changed = await transaction.execute(
            "UPDATE games SET board_message_id = ?, board_version = ? "
            "WHERE id = ? AND (board_version IS NULL OR board_version <= ?)",
            (message_id, version, game_id, version),
        )
    else:
        changed = await transaction.execute(
            "UPDATE game_places SET board_message_id = ?, board_version = ? "
            "WHERE game_id = ? AND user_id = ? AND (board_version IS NULL OR board_version <= ?)",
            (message_id, version, game_id, away, version),
        )
    if clock is not None and await transaction.execute(
        "UPDATE games SET clock_started_at = ?, flag_at = ? WHERE id = ? "
        "AND version = ? AND status = 'active' AND clock_started_at IS NULL",
        (*clock, game_id, version),
    ):
        await transaction.announce(GAMES_TOPIC, str(game_id))  # the clock runs
    return changed == 1
