"""The game repository: games and their turns; one method per question.

Rows become domain values (:class:`Game`, :class:`TurnRecord`) before they leave this module.
Every change to a game is guarded by its ``version``, so a double click or two racing presses
change a game at most once. The changes that can end a game (:func:`record_turn`,
:func:`finish_game`, :func:`abort_game`) run in a transaction the caller opened, so that the
caller can rate the game in the same transaction; so does :func:`insert_game`, for the callers
that store more with a new game.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

from bot.base.game_options import Level, Mode
from bot.base.languages import Language
from bot.base.paces import TimeControl
from bot.base.people import Person
from bot.base.results import Reason, Result
from bot.base.server_rules import Arithmetic, ReminderDefaults, reminder_time
from bot.storage.db import Database, Row, Sql, Transaction, UniqueViolation, insert
from bot.storage.group import GroupCommit
from bot.storage.leases import board_lease, end
from bot.storage.watched import watch
from engine import BLACK, WHITE, Colour, Position


class ChannelBusyError(Exception):
    """The channel already has an active game or a pending challenge."""


class StaleGameError(Exception):
    """The game changed (or ended) since the caller read it: nothing was written."""


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
    status: Literal["active", "finished", "aborted"]
    outcome: Outcome | None
    """How it ended (``None`` while it goes on, and for an aborted game)."""
    board_message_id: int | None
    board_version: int | None
    """The version the board message shows (behind ``version`` after a crash mid-post)."""
    created_at: float
    last_move_at: float
    finished_at: float | None
    rated: bool
    """Whether the game counts for ratings."""
    ai_level: Level | None
    """``easy``, ``medium`` or ``hard`` in a game against the bot's AI."""
    parent_id: int | None = None
    """The channel a game played in a thread started from (``None``: played in
    ``channel_id`` itself)."""
    parent_message_id: int | None = None
    """The message in the parent channel that stands for the game (its challenge)."""
    ended_by: int | None = None
    """The admin who aborted the game (``status == "aborted"``)."""
    language: Language = "en"
    """The language of its public messages and images (the server's at challenge time)."""
    reminder_due_at: float | None = None
    """When the player to move is reminded of their turn (``None``: no reminder pending —
    the AI is to move, the game is over, reminders are off, or it was sent)."""
    time_control: str | None = None
    """A live clock (``"5+3"``); ``None``: a correspondence game, paced by the idle claim."""
    white_clock: float | None = None
    """White's seconds left when their turn began (``None``: no clock — the AI's side)."""
    black_clock: float | None = None
    """Black's seconds left when their turn began."""
    clock_started_at: float | None = None
    """When the clock of the player to move started: the board of their turn was posted
    (``None``: not running)."""
    flag_at: float | None = None
    """When the running clock runs out (``None``: none runs)."""
    hints: bool = False
    """The player may ask for hints (an unrated game against the AI only)."""
    hints_used: int = 0
    """How many hints they asked for."""

    @property
    def clock(self) -> TimeControl | None:
        """The game's live clock (``None``: correspondence)."""
        return TimeControl.of(self.time_control)

    def clock_of(self, colour: Colour) -> float | None:
        """``colour``'s seconds left when their turn began (``None``: they have no clock)."""
        return self.white_clock if colour == WHITE else self.black_clock

    def time_left(self, colour: Colour, now: float) -> float | None:
        """``colour``'s seconds left at ``now`` (their clock runs while it is their turn and
        their board is out); ``None``: they have no clock."""
        left = self.clock_of(colour)
        if left is None:
            return None
        running = self.is_active and self.position.turn == colour
        if running and self.clock_started_at is not None:
            left -= max(0.0, now - self.clock_started_at)
        return left

    @property
    def home_id(self) -> int:
        """The channel the game belongs to: its thread's parent, or its own channel."""
        return self.parent_id or self.channel_id

    @property
    def thread_id(self) -> int | None:
        """The game's thread, if it is played in one."""
        return self.channel_id if self.parent_id is not None else None

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
    def needs_a_board(self) -> bool:
        """Whether the newest change has no board message yet."""
        return self.board_version is None or self.board_version < self.version

    @property
    def to_move(self) -> int:
        """The user id of the player to move."""
        return self.player(self.position.turn)

    def is_ai_turn(self, bot_id: int | None) -> bool:
        """Whether the game waits for the AI: an AI game (``ai_level``) whose player to move is
        the bot (``bot_id``, the bot's own user id)."""
        return self.is_active and self.ai_level is not None and self.to_move == bot_id


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One stored turn."""

    ply: int
    player_id: int
    turn: str
    position_after: str
    created_at: float
    clock: float | None = None
    """In a live game, the mover's time left after it (with the increment)."""


@dataclass(frozen=True, slots=True)
class GamePlace:
    """Where a game is played: ``channel_id`` on the server ``guild_id`` — a thread of
    ``parent_id`` opened on its message ``parent_message_id``, or (``parent_id`` ``None``) the
    channel itself."""

    guild_id: int
    channel_id: int
    parent_id: int | None = None
    parent_message_id: int | None = None

    @property
    def home_id(self) -> int:
        """The channel the game belongs to: its thread's parent, or its own channel."""
        return self.parent_id or self.channel_id


@dataclass(frozen=True, slots=True)
class NewGame:
    """A game about to start: where, who plays White and Black, its seed and start position,
    the language of its public messages, its pace, and whether it is rated (``None``: unless
    it is against the AI)."""

    place: GamePlace
    white: Person
    black: Person
    seed: int
    start: Position
    language: Language = "en"
    clock: TimeControl | None = None
    """A live game: each human's clock is set to its time (the AI has none); their clocks start
    as the boards of their turns are posted."""
    rated: bool | None = None
    ai_level: Level | None = None
    """``easy``, ``medium`` or ``hard`` in a game against the bot's AI, whose user id is
    ``ai_id``."""
    ai_id: int | None = None
    hints: bool = False
    """The player may ask for hints (an unrated game against the AI only)."""


GAME_COLUMNS = ", ".join(
    (
        "id",
        "guild_id",
        "channel_id",
        "white_id",
        "black_id",
        "white_name",
        "black_name",
        "mode",
        "seed",
        "start_position",
        "position",
        "version",
        "plies",
        "status",
        "result",
        "reason",
        "white_points",
        "black_points",
        "board_message_id",
        "board_version",
        "created_at",
        "last_move_at",
        "finished_at",
        "rated",
        "ai_level",
        "parent_id",
        "parent_message_id",
        "ended_by",
        "language",
        "reminder_due_at",
        "time_control",
        "white_clock",
        "black_clock",
        "clock_started_at",
        "flag_at",
        "hints",
        "hints_used",
    )
)
GAMES_TOPIC = "games"
"""What a transaction announces (:mod:`.announcements`) with a game's id once it started, a turn
was stored, or it ended: the game's version changed."""
FINISHED_TOPIC = "games finished"
"""What a transaction announces with a game's id once the game finished (played to its end,
resigned, claimed, flagged): the search for puzzles takes it up at once."""
NEEDS_A_BOARD = "(board_version IS NULL OR board_version < version)"
"""Matches the partial index ``games_needing_a_board`` (keep the two in step)."""


def unstored_game(
    position: Position,
    white: tuple[int, str],
    black: tuple[int, str],
    *,
    version: int = 0,
    guild_id: int = 0,
    outcome: Outcome | None = None,
) -> Game:
    """``position`` as a game that is not stored (a puzzle, a lesson, an analysis), for a
    face that draws games: ``white`` and ``black`` are (user id, name); over with
    ``outcome``."""
    return Game(
        id=0,
        guild_id=guild_id,
        channel_id=0,
        white_id=white[0],
        black_id=black[0],
        white_name=white[1],
        black_name=black[1],
        mode=position.mode,
        seed=0,
        start_position=position,
        position=position,
        version=version,
        plies=0,
        status="active" if outcome is None else "finished",
        outcome=outcome,
        board_message_id=None,
        board_version=None,
        created_at=0.0,
        last_move_at=0.0,
        finished_at=None,
        rated=False,
        ai_level=None,
    )


def game_from_row(row: Row) -> Game:
    """The :class:`Game` of a row selected with :data:`GAME_COLUMNS`."""
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
        parent_id=row["parent_id"],
        parent_message_id=row["parent_message_id"],
        ended_by=row["ended_by"],
        language=row["language"],
        reminder_due_at=row["reminder_due_at"],
        time_control=row["time_control"],
        white_clock=row["white_clock"],
        black_clock=row["black_clock"],
        clock_started_at=row["clock_started_at"],
        flag_at=row["flag_at"],
        hints=bool(row["hints"]),
        hints_used=row["hints_used"],
    )


NULL = Sql("NULL")
STOPPED_CLOCK = {"clock_started_at": NULL, "flag_at": NULL}
"""No clock runs: until the board of the next turn is out, or ever again."""


class _SqlArithmetic:
    """:class:`Arithmetic` written out as SQL (``NULL`` unset), for SQLite and
    PostgreSQL alike."""

    def first_set(self, *values: Sql) -> Sql:
        text = ", ".join(value.text for value in values)
        return Sql(f"COALESCE({text})", tuple(v for value in values for v in value.values))

    def unset_if_zero(self, value: Sql) -> Sql:
        return Sql(f"NULLIF({value.text}, 0)", value.values)

    def half(self, value: Sql) -> Sql:
        return Sql(f"({value.text}) / 2", value.values)


SQL: Arithmetic[Sql] = _SqlArithmetic()
"""The settings' rules (``bot.base.server_rules``) as SQL expressions."""


def reminder_due(
    reminders: ReminderDefaults | None, now: float | None, guild_id: int | None = None
) -> tuple[str, tuple[object, ...]]:
    """The SQL value of ``games.reminder_due_at`` for a change made at ``now`` that leaves a
    human to move, and its parameters: ``now`` (``None``: the row's ``last_move_at``) plus the
    reminder time in force on the game's server, resolved in the statement itself by the rule
    :meth:`ReminderDefaults.resolve` applies (:func:`reminder_time`, written out
    as SQL); ``NULL`` when that is 0 (reminders off), and without ``reminders`` (the AI is to
    move, or the game ended). The server is the row's (``guild_id`` ``None``) or
    ``guild_id``."""
    if reminders is None:
        return "NULL", ()
    guild = "games.guild_id" if guild_id is None else "?"
    server = () if guild_id is None else (guild_id,)

    def chosen(column: str) -> Sql:
        return Sql(f"(SELECT s.{column} FROM guild_settings s WHERE s.guild_id = {guild})", server)

    after = reminder_time(
        SQL,
        chosen("reminder_after"),
        chosen("inactivity_timeout"),
        Sql("?", (reminders.after,)),
        Sql("?", (reminders.inactivity_timeout,)),
    )
    since = Sql("last_move_at") if now is None else Sql("?", (now,))
    due = SQL.unset_if_zero(after)
    return f"{since.text} + {due.text}", (*since.values, *due.values)


class GameStore:
    """Games and turns in the database."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self._boards = GroupCommit(database, ordered=True)

    async def create_ai_game(
        self, new: NewGame, *, now: float, reminders: ReminderDefaults | None = None
    ) -> Game:
        """Start ``new``, a game against the AI, at ``now``; raises :class:`ChannelBusyError` if
        its place has an active game or the human already plays the AI there. ``reminders``:
        the human moves first and may be reminded (see :func:`reminder_due`)."""
        home = new.place.home_id
        async with self.database.transaction() as transaction:
            await transaction.lock("channel", home)
            await ensure_pair_free(transaction, home, new.white.id, new.black.id)
            return await insert_game(transaction, new, now=now, reminders=reminders)

    async def game(self, game_id: int) -> Game | None:
        """The game with this id."""
        row = await self.database.fetchone(
            f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)
        )
        return None if row is None else game_from_row(row)

    async def count_hint(self, game_id: int) -> int:
        """One more hint given in ``game_id`` (a game that allows them); how many now."""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "UPDATE games SET hints_used = hints_used + 1 WHERE id = ? AND hints = ?",
                (game_id, True),
            )
            row = await transaction.fetchone(
                "SELECT hints_used FROM games WHERE id = ?", (game_id,)
            )
        return int(row[0])

    async def active_games(self, home_id: int, user_id: int) -> list[Game]:
        """The active games ``user_id`` plays in a channel or in its threads, newest first."""
        rows = await self.database.fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'active' "
            "AND (channel_id = ? OR parent_id = ?) AND (white_id = ? OR black_id = ?) "
            "ORDER BY id DESC",
            (home_id, home_id, user_id, user_id),
        )
        return [game_from_row(row) for row in rows]

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
        :class:`StaleGameError` if the game ended meanwhile.
        """
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
        """The active game played in a channel or thread itself, if any."""
        row = await self.database.fetchone(
            f"SELECT {GAME_COLUMNS} FROM games WHERE channel_id = ? AND status = 'active'",
            (channel_id,),
        )
        return None if row is None else game_from_row(row)

    async def set_board_message(
        self, game_id: int, message_id: int, version: int, clock: tuple[float, float] | None = None
    ) -> bool:
        """Remember the newest board message and the version it shows, and end the lease of
        posting it; ``False`` (and nothing stored) when a board of a newer version is already
        recorded. Ordered: the board is on Discord already, and what reads the game from now on
        (a press on the old board, ``/tholos board``, the games list) must know it.

        ``clock``: the board of a live game's turn, posted at ``clock[0]``: the mover's clock
        starts then and runs out at ``clock[1]`` — unless it already runs, or the game moved
        on.

        Committed with the other boards recorded at the same moment (:class:`GroupCommit`)."""
        return await self._boards.run(
            functools.partial(_record_board, game_id, message_id, version, clock)
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
    transaction: Transaction,
) -> bool:
    """The writes of :meth:`GameStore.set_board_message`."""
    await end(transaction, board_lease(game_id, version))
    changed = await transaction.execute(
        "UPDATE games SET board_message_id = ?, board_version = ? "
        "WHERE id = ? AND (board_version IS NULL OR board_version <= ?)",
        (message_id, version, game_id, version),
    )
    if clock is not None and await transaction.execute(
        "UPDATE games SET clock_started_at = ?, flag_at = ? WHERE id = ? "
        "AND version = ? AND status = 'active' AND clock_started_at IS NULL",
        (*clock, game_id, version),
    ):
        await transaction.announce(GAMES_TOPIC, str(game_id))  # the clock runs
    return changed == 1


async def ensure_no_active_game(transaction: Transaction, channel_id: int) -> None:
    """Raise :class:`ChannelBusyError` if a game is played in the channel itself."""
    active = await transaction.fetchone(
        "SELECT 1 FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,)
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
        "parent_id": place.parent_id,
        "parent_message_id": place.parent_message_id,
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
    await watch(transaction, game)
    await transaction.announce(GAMES_TOPIC, str(game_id))
    return game


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
            "white_points": Sql("?", (outcome.white_points,)),
            "black_points": Sql("?", (outcome.black_points,)),
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
    await watch(transaction, updated)
    await transaction.announce(GAMES_TOPIC, str(game.id))
    if outcome is not None:
        await transaction.announce(FINISHED_TOPIC, str(game.id))
    return updated
