"""The changes to games made in a transaction the caller opened, so that the caller can store
more with them (rate a game that ends, start a challenge's game): a game started, a turn
stored, a game finished or aborted. Every change is guarded by the game's ``version``, so a
double click or two racing presses change a game at most once."""

from __future__ import annotations

from bot.base.game import Game, NewGame
from bot.base.game_options import RATED_AI_VENUES
from bot.base.server_rules import ReminderDefaults
from bot.storage.db import Sql, Transaction, UniqueViolation, insert
from bot.storage.games.rows import GAME_COLUMNS, game_from_row
from bot.storage.games.sql_rules import reminder_due
from bot.storage.watched import watch
from engine import WHITE, Position
from engine.scoring import Outcome


class ChannelBusyError(Exception):
    """The channel already has an active game or a pending challenge."""


class StaleGameError(Exception):
    """The game changed (or ended) since the caller read it: nothing was written."""


GAMES_TOPIC = "games"
"""What a transaction announces (:mod:`bot.storage.announcements`) with a game's id once it
started, a turn was stored, or it ended: the game's version changed."""
FINISHED_TOPIC = "games finished"
"""What a transaction announces with a game's id once the game finished (played to its end,
resigned, claimed, flagged): the search for puzzles takes it up at once."""
PLACES_TOPIC = "games in places"
"""What a transaction announces with a pool game's id once it started or changed (its version
bumped): its boards in each place are behind, and the processes owning those places post them."""
NULL = Sql("NULL")
STOPPED_CLOCK = {"clock_started_at": NULL, "flag_at": NULL}
"""No clock runs: until the board of the next turn is out, or ever again."""


async def ensure_no_active_game(transaction: Transaction, channel_id: int) -> None:
    """Raise :class:`ChannelBusyError` if a game is played in the channel itself."""
    active = await transaction.fetchone(
        "SELECT 1 FROM games WHERE channel_id = ? AND status = 'active' AND NOT pool",
        (channel_id,),
    )
    if active is not None:
        raise ChannelBusyError(IN_CHANNEL)


async def ensure_pair_free(transaction: Transaction, home_id: int, first: int, second: int) -> None:
    """Raise :class:`ChannelBusyError` if the two play each other in the channel (or one of
    its threads) already."""
    active = await transaction.fetchone(
        "SELECT 1 FROM games WHERE status = 'active' AND (channel_id = ? OR parent_id = ?) "
        "AND ((white_id = ? AND black_id = ?) OR (white_id = ? AND black_id = ?))",
        (home_id, home_id, first, second, second, first),
    )
    if active is not None:
        raise ChannelBusyError(SAME_PAIR)


IN_CHANNEL = "in-channel"
"""Why a game can't start: one is played in the channel itself."""
SAME_PAIR = "same-pair"
"""Why a game can't start: the two play each other in the channel (or its threads)."""


async def insert_game(
    transaction: Transaction,
    new: NewGame,
    *,
    now: float,
    reminders: ReminderDefaults | None = None,
) -> Game:
    """Start ``new`` at ``now`` in the caller's transaction; raises :class:`ChannelBusyError` if
    a game is played in its channel already. The caller holds the lock of the game's home
    channel. ``reminders``: a human moves first in a correspondence game and may be reminded
    (see :func:`reminder_due`)."""
    await ensure_no_active_game(transaction, new.place.channel_id)
    due = Sql(*reminder_due(reminders if new.clock is None else None, now, new.place.guild_id))
    try:
        row = await insert(
            transaction, "games", _new_game_row(new, now) | {"reminder_due_at": due}, GAME_COLUMNS
        )
    except UniqueViolation:  # another process started one first
        raise ChannelBusyError(IN_CHANNEL) from None
    game = game_from_row(row)
    await watch(transaction, game)
    await transaction.announce(GAMES_TOPIC, str(game.id))
    return game


def _new_game_row(new: NewGame, now: float) -> dict[str, object]:
    """The columns of ``new``'s row (but its reminder), started at ``now``."""
    place, start, clock = new.place, new.start, new.clock
    rated = new.ai_level is None if new.rated is None else new.rated
    rated = rated and place.venue in (RATED_AI_VENUES if new.ai_level else {"server"})
    if new.hints and (rated or new.ai_level is None):
        raise ValueError("hints are for unrated games against the AI")
    clocks = [
        None if clock is None or player.id == new.ai_id else clock.seconds
        for player in (new.white, new.black)
    ]
    return {
        "guild_id": place.guild_id,
        "channel_id": place.channel_id,
        "white_id": new.white.id,
        "black_id": new.black.id,
        "white_name": new.white.name,
        "black_name": new.black.name,
        "mode": start.mode,
        "seed": new.seed,
        "start_position": str(start),
        "position": str(start),
        "created_at": now,
        "updated_at": now,
        "last_move_at": now,
        "rated": rated,
        "ai_level": new.ai_level,
        "ai_id": new.ai_id if new.ai_level is not None else None,
        "parent_id": place.parent_id,
        "parent_message_id": place.parent_message_id,
        "venue": place.venue,
        "language": new.language,
        "time_control": None if clock is None else str(clock),
        "white_clock": clocks[0],
        "black_clock": clocks[1],
        "hints": new.hints,
    }


async def record_turn(
    transaction: Transaction,
    game: Game,
    *,
    player_id: int,
    turn: str,
    position_after: Position,
    outcome: Outcome | None,
    now: float,
    reminders: ReminderDefaults | None = None,
    clock_after: float | None = None,
) -> Game:
    """Store a turn in the caller's transaction: the position, the turn record, the version
    and when the player now to move is reminded (``reminders``: a human is now to move; see
    :func:`reminder_due`); ``outcome`` finishes the game. ``clock_after``: in a live game,
    the mover's time left after the turn (with the increment); every clock stops until the
    board of the next turn is out.

    Raises :class:`StaleGameError` if the game changed since ``game`` was read.
    """
    due = Sql(*reminder_due(reminders if outcome is None else None, now))
    changes = _turn_changes(game, position_after, now, due, clock_after)
    updated = await _update_game(transaction, game, changes, outcome, now)
    await transaction.execute(
        "INSERT INTO turns (game_id, ply, player_id, turn, position_after, created_at, clock) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (game.id, updated.plies, player_id, turn, str(position_after), now, clock_after),
    )
    return updated


async def finish_game(transaction: Transaction, game: Game, outcome: Outcome, now: float) -> Game:
    """End a game without a turn (resignation, timeout) in the caller's transaction; raises
    :class:`StaleGameError`. In a live game a player whose clock ran out (the outcome's
    loser, by ``timeout``) keeps no time."""
    changes = {"reminder_due_at": NULL}
    if game.clock is not None and outcome.reason == "timeout":
        loser = "white_clock" if outcome.result == "black" else "black_clock"
        changes[loser] = Sql("0")
    return await _update_game(transaction, game, changes, outcome, now)


async def abort_game(
    transaction: Transaction, game_id: int, admin_id: int, now: float
) -> Game | None:
    """End an active game without a result (an admin's decision, whatever its version) in
    the caller's transaction; ``None`` if it is not being played."""
    row = await transaction.fetchone(
        "UPDATE games SET status = 'aborted', ended_by = ?, finished_at = ?, updated_at = ?, "
        "version = version + 1, reminder_due_at = NULL, clock_started_at = NULL, "
        "flag_at = NULL WHERE id = ? AND status = 'active' "
        f"RETURNING {GAME_COLUMNS}",
        (admin_id, now, now, game_id),
    )
    if row is None:
        return None
    game = game_from_row(row)
    await changed(transaction, game)
    return game


async def changed(transaction: Transaction, game: Game) -> None:
    """What every change of ``game`` (its version bumped) writes besides its row: fair play's
    index, each other place's version (its board is now behind), the ``games`` topic."""
    await watch(transaction, game)
    if game.pool:
        await transaction.execute(
            "UPDATE game_places SET version = ? WHERE game_id = ? AND NOT home",
            (game.version, game.id),
        )
        await transaction.announce(PLACES_TOPIC, str(game.id))
    await transaction.announce(GAMES_TOPIC, str(game.id))


def _turn_changes(
    game: Game, position_after: Position, now: float, due: Sql, clock_after: float | None
) -> dict[str, Sql]:
    """The columns a turn sets: the position, when it was made, the plies, the reminder, and
    in a live game the mover's clock (stopped until the next board is out)."""
    changes = {
        "position": Sql("?", (str(position_after),)),
        "last_move_at": Sql("?", (now,)),
        "plies": Sql("plies + 1"),
        "reminder_due_at": due,
    }
    if clock_after is not None:
        mover = "white_clock" if game.position.turn == WHITE else "black_clock"
        changes |= {mover: Sql("?", (clock_after,)), **STOPPED_CLOCK}
    return changes


async def _update_game(
    transaction: Transaction,
    game: Game,
    changes: dict[str, Sql],
    outcome: Outcome | None,
    now: float,
) -> Game:
    """Set each column of ``changes`` (and the ``outcome``'s, which stops the clocks) if
    ``game`` is still current; bump the version. Raises :class:`StaleGameError` otherwise.

    One value a column, by construction: PostgreSQL refuses a statement that sets a column
    twice (SQLite takes the last), so the outcome's columns replace the turn's."""
    columns = {"version": Sql("version + 1"), "updated_at": Sql("?", (now,)), **changes}
    if outcome is not None:
        columns |= {
            "status": Sql("'finished'"),
            "result": Sql("?", (outcome.result,)),
            "reason": Sql("?", (outcome.reason,)),
            "white_points": Sql("?", (outcome.points[0],)),
            "black_points": Sql("?", (outcome.points[1],)),
            "finished_at": Sql("?", (now,)),
            **STOPPED_CLOCK,
        }
    sets = ", ".join(f"{column} = {value.text}" for column, value in columns.items())
    values = [value for sql in columns.values() for value in sql.values]
    row = await transaction.fetchone(
        f"UPDATE games SET {sets} "
        f"WHERE id = ? AND version = ? AND status = 'active' RETURNING {GAME_COLUMNS}",
        (*values, game.id, game.version),
    )
    if row is None:
        raise StaleGameError("the game changed since this board was shown")
    updated = game_from_row(row)
    await changed(transaction, updated)
    if outcome is not None:
        await transaction.announce(FINISHED_TOPIC, str(game.id))
    return updated
