"""The settings' rules written out as SQL: a game's reminder, resolved in the statement that
stores the change (the server's settings read there)."""

from __future__ import annotations

from bot.base.server_rules import Arithmetic, ReminderDefaults, reminder_time
from bot.storage.db import Sql


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
