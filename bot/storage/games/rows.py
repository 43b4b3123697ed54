"""A game's row: the columns read (:data:`GAME_COLUMNS`) and the :class:`~bot.base.game.Game`
they make."""

from __future__ import annotations

from bot.base.game import Game
from bot.storage.db import Database, Row, Transaction
from engine import BLACK, WHITE, Position
from engine.scoring import Outcome

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
        "venue",
        "pool",
    )
)
NEEDS_A_BOARD = "(board_version IS NULL OR board_version < version)"
"""Matches the partial index ``games_needing_a_board`` (keep the two in step)."""
WHERE_THE_BOT_POSTS = "venue IN ('server', 'bot_dm')"
"""The games whose channel the bot may post in (see :data:`~bot.base.game.ANSWERS_ONLY`): the
background loops post their boards; the others' boards are answers to presses."""


def game_from_row(row: Row) -> Game:
    """The :class:`Game` of a row selected with :data:`GAME_COLUMNS`."""
    outcome = None
    if row["result"] is not None:
        winner = {"white": WHITE, "black": BLACK}.get(row["result"])
        outcome = Outcome(winner, row["reason"], (row["white_points"], row["black_points"]))
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
        venue=row["venue"],
        pool=bool(row["pool"]),
    )


async def read_game(database: Database | Transaction, game_id: int) -> Game | None:
    """The game with this id, as its row has it."""
    row = await database.fetchone(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
    return None if row is None else game_from_row(row)
