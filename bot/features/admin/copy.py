"""``copy-db``: move a server's whole history from one database into another, empty one (from
the embedded SQLite file into a shared PostgreSQL, typically)."""

from __future__ import annotations

from bot.storage.db import Database, Transaction, scalar

TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("meta", ("key", "value")),
    ("learners", ("user_id", "current", "finished_at", "updated_at")),
    ("lessons_done", ("user_id", "lesson", "misses", "passed_at")),
    ("page_requests", ("user_id", "channel_id", "game_id", "requested_at")),
    (
        "games",
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
            "updated_at",
            "last_move_at",
            "finished_at",
            "rated",
            "rated_seq",
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
            "venue",
            "ai_id",
            "pool",
        ),
    ),
    (
        "game_places",
        (
            "game_id",
            "user_id",
            "home",
            "guild_id",
            "channel_id",
            "parent_id",
            "parent_message_id",
            "venue",
            "language",
            "server_name",
            "placed",
            "version",
            "board_message_id",
            "board_version",
        ),
    ),
    ("turns", ("game_id", "ply", "player_id", "turn", "position_after", "created_at", "clock")),
    ("watched_positions", ("game_id", "position_key")),
    (
        "challenges",
        (
            "id",
            "guild_id",
            "channel_id",
            "challenger_id",
            "opponent_id",
            "challenger_name",
            "opponent_name",
            "mode",
            "ornaments",
            "colour",
            "first",
            "message_id",
            "status",
            "created_at",
            "expires_at",
            "game_id",
            "language",
            "open_to_all",
            "rating_range",
            "time_control",
            "venue",
        ),
    ),
    (
        "member_ratings",
        (
            "pool",
            "user_id",
            "rating",
            "deviation",
            "volatility",
            "games",
            "wins",
            "losses",
            "draws",
            "updated_at",
        ),
    ),
    ("server_players", ("guild_id", "user_id")),
    (
        "guild_settings",
        (
            "guild_id",
            "threads",
            "inactivity_timeout",
            "challenge_timeout",
            "default_mode",
            "updated_by",
            "updated_at",
            "reminder_after",
            "default_pace",
            "clocks",
            "puzzle_channel",
            "pool",
            "pool_shows_server",
        ),
    ),
    ("player_settings", ("user_id", "reminders", "updated_at")),
    ("pool_members", ("user_id", "name", "joined_at", "last_opponent_id")),
    ("blocks", ("user_id", "blocked_id", "at")),
    (
        "pool_queue",
        (
            "user_id",
            "pace",
            "since",
            "guild_id",
            "channel_id",
            "venue",
            "language",
            "server_name",
        ),
    ),
    (
        "reviews",
        (
            "game_id",
            "guild_id",
            "channel_id",
            "message_id",
            "requested_by",
            "requested_at",
            "status",
            "done",
            "total",
            "review",
            "finished_at",
            "attempts",
            "next_attempt_at",
            "failure",
        ),
    ),
    (
        "tournaments",
        (
            "id",
            "guild_id",
            "channel_id",
            "message_id",
            "organiser_id",
            "name",
            "format",
            "rounds",
            "time_control",
            "round_hours",
            "mode",
            "ornaments",
            "language",
            "starts_at",
            "max_players",
            "rated",
            "status",
            "round",
            "round_deadline",
            "announced_round",
            "created_at",
            "ended_by",
            "event_id",
            "announced_pairings",
            "version",
            "shown_version",
        ),
    ),
    (
        "tournament_players",
        (
            "tournament_id",
            "user_id",
            "name",
            "joined_at",
            "rating",
            "withdrawn_round",
            "withdrawn_why",
        ),
    ),
    (
        "tournament_games",
        (
            "tournament_id",
            "round",
            "board",
            "white_id",
            "black_id",
            "game_id",
            "result",
        ),
    ),
    (
        "puzzles",
        (
            "id",
            "position",
            "answer",
            "best",
            "alternative",
            "source",
            "difficulty",
            "rating",
            "deviation",
            "volatility",
            "attempts",
            "solved",
            "added_at",
        ),
    ),
    (
        "puzzle_players",
        (
            "user_id",
            "rating",
            "deviation",
            "volatility",
            "attempts",
            "solved",
            "streak",
            "best_streak",
            "cycle",
            "updated_at",
        ),
    ),
    (
        "puzzle_attempts",
        (
            "id",
            "user_id",
            "puzzle_id",
            "cycle",
            "guild_id",
            "day",
            "shown_at",
            "answered_at",
            "answer",
            "correct",
            "rated",
        ),
    ),
    (
        "daily_puzzles",
        (
            "guild_id",
            "day",
            "puzzle_id",
            "channel_id",
            "language",
            "message_id",
            "first_solver",
            "solvers",
            "tries",
            "revealed",
        ),
    ),
    ("puzzle_positions", ("puzzle_id", "position_key")),
)
"""Every table and column, in an order that keeps foreign keys satisfied (``leases`` are
held by running processes, not history: not copied)."""
BATCH = 5000
_BOOLEANS = {
    "rated",
    "threads",
    "open_to_all",
    "correct",
    "revealed",
    "hints",
    "pool_shows_server",
    "home",
    "placed",
}
_POOL_FLAGS = {"games", "guild_settings"}
"""The tables whose ``pool`` is a flag (``member_ratings.pool`` names a rating pool)."""
_IDENTITIES = ("games", "challenges", "tournaments", "puzzles", "puzzle_attempts")
_PUZZLE_TABLES = ("daily_puzzles", "puzzle_attempts", "puzzle_players", "puzzles")
"""Emptied in the target before the copy: a bot started on it imported the shipped puzzles."""


class TargetNotEmptyError(RuntimeError):
    """The target database already holds games: copying would mix two histories."""


async def copy_database(source: Database, target: Database) -> dict[str, int]:
    """Copy every row of ``source`` into ``target`` (migrated, and without games), in one
    transaction; returns the rows copied per table. Raises :class:`TargetNotEmptyError`.

    ``source`` is read in one snapshot: a bot may go on playing on it (its writes wait for no
    lock of the copy's), and the copy is the history as it was at one moment.
    """
    copied: dict[str, int] = {}
    async with target.transaction() as transaction, source.snapshot() as reading:
        if await scalar(transaction, "SELECT COUNT(*) FROM games"):
            raise TargetNotEmptyError(
                "the target database already has games; copy into an empty one"
            )
        for table, columns in TABLES:
            rows = await reading.fetchall(f"SELECT {', '.join(columns)} FROM {table}")
            flags = [
                column in _BOOLEANS or (column == "pool" and table in _POOL_FLAGS)
                for column in columns
            ]
            values = [
                tuple(
                    bool(v) if flag and v is not None else v
                    for v, flag in zip(row, flags, strict=True)
                )
                for row in rows
            ]
            insert = (
                f"INSERT INTO {table} ({', '.join(columns)}) "
                f"VALUES ({', '.join('?' for _ in columns)})"
            )
            if table == "meta":
                insert += " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            if table == "puzzles":  # the shipped set, imported when a bot started on it
                for emptied in _PUZZLE_TABLES:
                    await transaction.execute(f"DELETE FROM {emptied}")
            for start in range(0, len(values), BATCH):
                await transaction.executemany(insert, values[start : start + BATCH])
            copied[table] = len(values)
        if target.dialect == "postgresql":
            await continue_identities(transaction)
    return copied


async def continue_identities(transaction: Transaction) -> None:
    """PostgreSQL only: make the next ids of games, challenges and tournaments follow the ids
    written explicitly (a copy, a benchmark's history)."""
    for table in _IDENTITIES:
        await transaction.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
            f"COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
        )
