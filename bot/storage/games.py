"""The game repository: challenges, games and their turns; one method per question.

Rows become domain values (:class:`Challenge`, :class:`Game`, :class:`TurnRecord`) before they
leave this module. Every state change is one transaction guarded by the game's ``version``, so a
double click or two racing presses change a game at most once.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, fields
from typing import Literal

import aiosqlite

from engine import BLACK, WHITE, Colour, Position

from .db import Database
from .ratings import rate_game

Mode = Literal["basic", "advanced"]
ColourChoice = Literal["white", "black", "random"]
"""The colour a challenger asks for."""
FirstChoice = Literal["me", "opponent", "random"]
"""Who moves first, from the challenger's point of view."""
ChallengeStatus = Literal["pending", "accepted", "declined", "withdrawn", "expired"]
Result = Literal["white", "black", "draw"]
Reason = Literal["points", "columns", "tie", "resignation", "timeout"]


class ChannelBusyError(Exception):
    """The channel already has an active game or a pending challenge."""


class StaleGameError(Exception):
    """The game changed (or ended) since the caller read it: nothing was written."""


@dataclass(frozen=True, slots=True)
class Challenge:
    """A challenge from one member to another in a channel."""

    id: int
    guild_id: int
    channel_id: int
    challenger_id: int
    opponent_id: int
    challenger_name: str
    opponent_name: str
    mode: Mode
    ornaments: int
    colour: ColourChoice
    """The challenger's colour."""
    first: FirstChoice
    """Who moves first, from the challenger's point of view."""
    message_id: int | None
    status: ChallengeStatus
    created_at: float
    expires_at: float
    game_id: int | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended, as stored."""

    result: Result
    reason: Reason
    white_points: int
    black_points: int


@dataclass(frozen=True, slots=True)
class Game:
    """A game as stored: players, setup, the current position and its version."""

    id: int
    guild_id: int
    channel_id: int
    white_id: int
    black_id: int
    white_name: str
    black_name: str
    mode: Mode
    seed: int
    start_position: Position
    position: Position
    version: int
    """Bumped by every stored change; controls carry it to detect outdated boards."""
    plies: int
    """Turns played."""
    status: Literal["active", "finished"]
    outcome: Outcome | None
    board_message_id: int | None
    board_version: int | None
    """The version the board message shows (behind ``version`` after a crash mid-post)."""
    created_at: float
    last_move_at: float
    finished_at: float | None
    rated: bool
    """Whether the game counts for ratings."""
    ai_level: str | None
    """``easy``, ``medium`` or ``hard`` in a game against the bot's AI."""

    @property
    def is_active(self) -> bool:
        """Whether the game is still being played."""
        return self.status == "active"

    def player(self, colour: Colour) -> int:
        """The user id playing ``colour``."""
        return self.white_id if colour == WHITE else self.black_id

    def name(self, colour: Colour) -> str:
        """The display name of the player of ``colour`` (as it was when the game began)."""
        return self.white_name if colour == WHITE else self.black_name

    def colour_of(self, user_id: int) -> Colour | None:
        """The colour ``user_id`` plays, or ``None`` for someone else."""
        if user_id == self.white_id:
            return WHITE
        if user_id == self.black_id:
            return BLACK
        return None

    @property
    def to_move(self) -> int:
        """The user id of the player to move."""
        return self.player(self.position.turn)


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One stored turn."""

    ply: int
    player_id: int
    turn: str
    position_after: str
    created_at: float


_GAME_COLUMNS = ", ".join(
    (
        "id", "guild_id", "channel_id", "white_id", "black_id", "white_name", "black_name",
        "mode", "seed", "start_position", "position", "version", "plies", "status", "result",
        "reason", "white_points", "black_points", "board_message_id", "board_version",
        "created_at", "last_move_at", "finished_at", "rated", "ai_level",
    )
)  # fmt: skip
_CHALLENGE_COLUMNS = ", ".join(field.name for field in fields(Challenge))
_NEEDS_A_BOARD = "(board_version IS NULL OR board_version < version)"
"""Matches the partial index ``games_needing_a_board`` (keep the two in step)."""
UNSHOWN_CHALLENGE_SECONDS = 60.0
"""A pending challenge whose message was not recorded by then was never shown."""


def _game(row: aiosqlite.Row) -> Game:
    outcome = None
    if row["result"] is not None:
        outcome = Outcome(row["result"], row["reason"], row["white_points"], row["black_points"])
    return Game(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        white_id=row["white_id"],
        black_id=row["black_id"],
        white_name=row["white_name"],
        black_name=row["black_name"],
        mode=row["mode"],
        seed=row["seed"],
        start_position=Position.parse(row["start_position"]),
        position=Position.parse(row["position"]),
        version=row["version"],
        plies=row["plies"],
        status=row["status"],
        outcome=outcome,
        board_message_id=row["board_message_id"],
        board_version=row["board_version"],
        created_at=row["created_at"],
        last_move_at=row["last_move_at"],
        finished_at=row["finished_at"],
        rated=bool(row["rated"]),
        ai_level=row["ai_level"],
    )


def _challenge(row: aiosqlite.Row) -> Challenge:
    return Challenge(*(row[key] for key in row.keys()))  # noqa: SIM118 (Row is not a dict)


class GameStore:
    """Challenges, games and turns in the database."""

    def __init__(self, database: Database) -> None:
        self._db = database

    # -- challenges -------------------------------------------------------------------------------

    async def create_challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int,
        challenger_name: str,
        opponent_name: str,
        mode: Mode,
        ornaments: int,
        colour: ColourChoice,
        first: FirstChoice,
        now: float,
        expires_at: float,
    ) -> Challenge:
        """Store a pending challenge; raises :class:`ChannelBusyError` if the channel is busy.

        A pending challenge of the channel that was never shown (its message was not recorded
        within :data:`UNSHOWN_CHALLENGE_SECONDS`: the bot died while posting it) is expired first.
        """
        try:
            async with self._db.transaction() as connection:
                await _ensure_no_active_game(connection, channel_id)
                await connection.execute(
                    "UPDATE challenges SET status = 'expired' WHERE channel_id = ? "
                    "AND status = 'pending' AND message_id IS NULL AND created_at <= ?",
                    (channel_id, now - UNSHOWN_CHALLENGE_SECONDS),
                )
                cursor = await connection.execute(
                    "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, "
                    "challenger_name, opponent_name, mode, ornaments, colour, first, created_at, "
                    f"expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    f"RETURNING {_CHALLENGE_COLUMNS}",
                    (guild_id, channel_id, challenger_id, opponent_id, challenger_name,
                     opponent_name, mode, ornaments, colour, first, now, expires_at),
                )  # fmt: skip
                return _challenge(await cursor.fetchone())  # type: ignore[arg-type]
        except sqlite3.IntegrityError as error:
            if "UNIQUE" not in str(error):
                raise
            raise ChannelBusyError("a challenge is already pending in this channel") from error

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        """Remember the message that shows the challenge."""
        async with self._db.transaction() as connection:
            await connection.execute(
                "UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id)
            )

    async def challenge(self, challenge_id: int) -> Challenge | None:
        """The challenge with this id."""
        row = await self._db.fetchone(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,)
        )
        return None if row is None else _challenge(row)

    async def pending_challenge(self, channel_id: int) -> Challenge | None:
        """The channel's pending challenge, if any."""
        row = await self._db.fetchone(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges "
            "WHERE channel_id = ? AND status = 'pending'",
            (channel_id,),
        )
        return None if row is None else _challenge(row)

    async def close_challenge(self, challenge_id: int, status: ChallengeStatus) -> Challenge | None:
        """Mark a pending challenge declined, withdrawn or expired.

        Returns the updated challenge, or ``None`` if it was no longer pending (someone else
        already answered it).
        """
        async with self._db.transaction() as connection:
            cursor = await connection.execute(
                f"UPDATE challenges SET status = ? WHERE id = ? AND status = 'pending' "
                f"RETURNING {_CHALLENGE_COLUMNS}",
                (status, challenge_id),
            )
            row = await cursor.fetchone()
        return None if row is None else _challenge(row)

    async def expired_challenges(self, now: float) -> list[Challenge]:
        """Pending challenges whose time is up."""
        rows = await self._db.fetchall(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges "
            "WHERE status = 'pending' AND expires_at <= ? ORDER BY expires_at",
            (now,),
        )
        return [_challenge(row) for row in rows]

    async def next_challenge_expiry(self) -> float | None:
        """When the next pending challenge expires."""
        return await self._db.scalar(
            "SELECT MIN(expires_at) FROM challenges WHERE status = 'pending'"
        )

    async def accept_challenge(
        self,
        challenge_id: int,
        *,
        white_id: int,
        black_id: int,
        seed: int,
        start: Position,
        now: float,
    ) -> Game:
        """Accept a pending challenge and start its game, in one transaction.

        Raises :class:`StaleGameError` if the challenge is no longer pending, and
        :class:`ChannelBusyError` if the channel has an active game.
        """
        async with self._db.transaction() as connection:
            cursor = await connection.execute(
                f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE id = ?",
                (challenge_id,),
            )
            row = await cursor.fetchone()
            if row is None or row["status"] != "pending":
                raise StaleGameError("the challenge is no longer open")
            challenge = _challenge(row)
            names = {
                challenge.challenger_id: challenge.challenger_name,
                challenge.opponent_id: challenge.opponent_name,
            }
            game = await _insert_game(
                connection, guild_id=challenge.guild_id, channel_id=challenge.channel_id,
                white=(white_id, names[white_id]), black=(black_id, names[black_id]), seed=seed,
                start=start, now=now, ai_level=None,
            )  # fmt: skip
            await connection.execute(
                "UPDATE challenges SET status = 'accepted', game_id = ? WHERE id = ?",
                (game.id, challenge_id),
            )
        return game

    # -- games ------------------------------------------------------------------------------------

    async def create_ai_game(
        self,
        *,
        guild_id: int,
        channel_id: int,
        white: tuple[int, str],
        black: tuple[int, str],
        seed: int,
        start: Position,
        level: str,
        now: float,
    ) -> Game:
        """Start an unrated game against the AI (players as ``(id, name)``); raises
        :class:`ChannelBusyError` if the channel has an active game or a pending challenge."""
        async with self._db.transaction() as connection:
            cursor = await connection.execute(
                "SELECT 1 FROM challenges WHERE channel_id = ? AND status = 'pending'",
                (channel_id,),
            )
            if await cursor.fetchone() is not None:
                raise ChannelBusyError("a challenge is already pending in this channel")
            return await _insert_game(
                connection, guild_id=guild_id, channel_id=channel_id, white=white, black=black,
                seed=seed, start=start, now=now, ai_level=level,
            )  # fmt: skip

    async def active_ai_games(self) -> list[Game]:
        """Every game against the AI still being played."""
        rows = await self._db.fetchall(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'active' AND ai_level IS NOT NULL"
        )
        return [_game(row) for row in rows]

    async def game(self, game_id: int) -> Game | None:
        """The game with this id."""
        row = await self._db.fetchone(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return None if row is None else _game(row)

    async def active_game(self, channel_id: int) -> Game | None:
        """The channel's active game, if any."""
        row = await self._db.fetchone(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ? AND status = 'active'",
            (channel_id,),
        )
        return None if row is None else _game(row)

    async def games_needing_a_board(self, changed_before: float) -> list[Game]:
        """Games whose newest change, made before ``changed_before``, has no board message (the
        bot died, or Discord failed, between storing a change and posting its board)."""
        rows = await self._db.fetchall(
            f"SELECT {_GAME_COLUMNS} FROM games "
            f"WHERE {_NEEDS_A_BOARD} AND updated_at < ? ORDER BY updated_at",
            (changed_before,),
        )
        return [_game(row) for row in rows]

    async def record_turn(
        self,
        game: Game,
        *,
        player_id: int,
        turn: str,
        position_after: Position,
        outcome: Outcome | None,
        now: float,
    ) -> Game:
        """Store a turn: the position, the turn record and the version, in one transaction.

        ``outcome`` finishes the game. Raises :class:`StaleGameError` if the game changed since
        ``game`` was read.
        """
        async with self._db.transaction() as connection:
            updated = await _update_game(
                connection,
                game,
                "position = ?, last_move_at = ?, plies = plies + 1",
                (str(position_after), now),
                outcome,
                now,
            )
            await connection.execute(
                "INSERT INTO turns (game_id, ply, player_id, turn, position_after, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (game.id, updated.plies, player_id, turn, str(position_after), now),
            )
        return updated

    async def finish_game(self, game: Game, outcome: Outcome, now: float) -> Game:
        """End a game without a turn (resignation, timeout); raises :class:`StaleGameError`."""
        async with self._db.transaction() as connection:
            return await _update_game(connection, game, "", (), outcome, now)

    async def set_board_message(self, game_id: int, message_id: int, version: int) -> bool:
        """Remember the newest board message and the version it shows; ``False`` (and nothing
        stored) when a board of a newer version is already recorded."""
        async with self._db.transaction() as connection:
            cursor = await connection.execute(
                "UPDATE games SET board_message_id = ?, board_version = ? "
                "WHERE id = ? AND (board_version IS NULL OR board_version <= ?)",
                (message_id, version, game_id, version),
            )
            return cursor.rowcount == 1

    async def turns(self, game_id: int, *, last: int = -1) -> list[TurnRecord]:
        """The game's turns in order (only the ``last`` few when it is given)."""
        rows = await self._db.fetchall(
            "SELECT ply, player_id, turn, position_after, created_at FROM turns "
            "WHERE game_id = ? ORDER BY ply DESC LIMIT ?",
            (game_id, last),
        )
        return [TurnRecord(*row) for row in reversed(rows)]


async def _ensure_no_active_game(connection: aiosqlite.Connection, channel_id: int) -> None:
    cursor = await connection.execute(
        "SELECT 1 FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,)
    )
    if await cursor.fetchone() is not None:
        raise ChannelBusyError("a game is already being played in this channel")


async def _insert_game(
    connection: aiosqlite.Connection,
    *,
    guild_id: int,
    channel_id: int,
    white: tuple[int, str],
    black: tuple[int, str],
    seed: int,
    start: Position,
    now: float,
    ai_level: str | None,
) -> Game:
    """Start a game (players as ``(id, name)``; rated unless against the AI at ``ai_level``);
    raises :class:`ChannelBusyError` if the channel has an active game."""
    await _ensure_no_active_game(connection, channel_id)
    cursor = await connection.execute(
        "INSERT INTO games (guild_id, channel_id, white_id, black_id, white_name, black_name, "
        "mode, seed, start_position, position, created_at, updated_at, last_move_at, rated, "
        f"ai_level) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {_GAME_COLUMNS}",
        (guild_id, channel_id, white[0], black[0], white[1], black[1], start.mode, seed,
         str(start), str(start), now, now, now, ai_level is None, ai_level),
    )  # fmt: skip
    return _game(await cursor.fetchone())  # type: ignore[arg-type]


async def _update_game(
    connection: aiosqlite.Connection,
    game: Game,
    assignments: str,
    values: tuple[object, ...],
    outcome: Outcome | None,
    now: float,
) -> Game:
    """Apply ``assignments`` and maybe ``outcome`` (rating a rated game) if ``game`` is still
    current; bump the version."""
    sets = ["version = version + 1", "updated_at = ?"]
    parameters: list[object] = [now]
    if assignments:
        sets.append(assignments)
        parameters += values
    if outcome is not None:
        sets.append(
            "status = 'finished', result = ?, reason = ?, white_points = ?, black_points = ?, "
            "finished_at = ?"
        )
        parameters += [outcome.result, outcome.reason, outcome.white_points,
                       outcome.black_points, now]  # fmt: skip
    cursor = await connection.execute(
        f"UPDATE games SET {', '.join(sets)} "
        f"WHERE id = ? AND version = ? AND status = 'active' RETURNING {_GAME_COLUMNS}",
        (*parameters, game.id, game.version),
    )
    row = await cursor.fetchone()
    if row is None:
        raise StaleGameError("the game changed since this board was shown")
    if outcome is not None and row["rated"]:
        await rate_game(connection, game.id, now)
    return _game(row)
