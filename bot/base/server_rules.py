"""The rules in force on one server, and the rule of its times (idle claim, challenge expiry,
turn reminders) written once for both Python and SQL. No I/O."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from bot.base.paces import CLOCKS, CORRESPONDENCE, TimeControl, offers
from bot.base.refusals import Refusal
from engine.core import Mode


@dataclass(frozen=True, slots=True)
class ServerRules:
    """The settings in force on one server."""

    threads: bool
    """Play each game in a thread of its own."""
    inactivity_timeout: float
    """Seconds without a move before the opponent may claim the win."""
    challenge_timeout: float
    """Seconds before an unanswered challenge expires."""
    default_mode: Mode
    """The mode of a challenge that names neither a mode nor ornaments."""
    reminder_after: float = 0.0
    """Seconds without a move before the player to move is reminded (0: never)."""
    default_pace: str = CORRESPONDENCE
    """The pace of a challenge (or a game against the AI) that names none."""
    clocks: tuple[str, ...] = CLOCKS
    """The live clocks offered (correspondence always is)."""
    puzzle_channel: int | None = None
    """Where the puzzle of the day is posted (``None``: no puzzle of the day)."""
    pool: bool = False
    """Members may queue in the pool (across servers) from here."""
    pool_shows_server: bool = False
    """Pool opponents from other servers see the server's name."""

    def pace(self, chosen: str | None) -> TimeControl | None:
        """The clock of the pace ``chosen`` (``None``: the default pace); raises
        :class:`Refusal` for a clock the server does not offer."""
        pace = chosen or self.default_pace
        if not offers(pace, self.clocks):
            offered = ", ".join((CORRESPONDENCE, *self.clocks))
            raise Refusal(
                "This server doesn't offer the {pace} clock — choose one of: {offered}.",
                pace=pace,
                offered=offered,
            )
        return TimeControl.of(pace)


@dataclass(frozen=True, slots=True)
class ReminderDefaults:
    """The bot's defaults for turn reminders, which a server's own settings override (see
    :func:`reminder_time`)."""

    after: float | None
    """``THOLOS_REMINDER_AFTER``: seconds (0: off); ``None``: half the idle-claim time."""
    inactivity_timeout: float
    """``THOLOS_INACTIVITY_TIMEOUT``: the idle-claim time of servers that chose none."""

    def resolve(self, server_after: float | None, inactivity_timeout: float | None) -> float:
        """The reminder time in force on a server (0: off), from its own ``reminder_after``
        and ``inactivity_timeout`` (:func:`reminder_time`)."""
        return reminder_time(
            PYTHON, server_after, inactivity_timeout, self.after, self.inactivity_timeout
        )


V = TypeVar("V")


class Arithmetic(Protocol[V]):
    """What the settings' rules are written in, so that one rule both runs in Python
    (:data:`PYTHON`, on ``float | None``) and is written out as SQL (``bot.storage.games``,
    in the statement that stores a turn): unset is ``None``, SQL's ``NULL``."""

    def first_set(self, *values: V) -> V:
        """The first value that is set (``COALESCE``)."""
        ...

    def unset_if_zero(self, value: V) -> V:
        """``value``, or unset when it is 0 (``NULLIF(value, 0)``)."""
        ...

    def half(self, value: V) -> V:
        """Half of ``value`` (unset stays unset)."""
        ...


def time_in_force(math: Arithmetic[V], server: V, bot: V) -> V:
    """A server's idle-claim or challenge time in force: its own, else the bot's. Unset is
    ``None``; 0 counts as unset too (no server can choose it: ``/tholos-admin settings``
    refuses less than 0.01 minutes, and a time of 0 would mean at once)."""
    return math.first_set(math.unset_if_zero(server), bot)


def reminder_time(
    math: Arithmetic[V], server_after: V, server_idle: V, bot_after: V, bot_idle: V
) -> V:
    """The turn-reminder time in force on a server, in seconds (0: reminders are off): the
    server's own ``reminder_after``, else the bot's ``THOLOS_REMINDER_AFTER``, else half the
    idle-claim time in force (:func:`time_in_force`). For the reminder times, unset (``None``,
    ``NULL``) means "the default" and 0 means "off"."""
    idle = time_in_force(math, server_idle, bot_idle)
    return math.first_set(server_after, bot_after, math.half(idle))


class _Python:
    """:class:`Arithmetic` on numbers, ``None`` unset."""

    def first_set(self, *values: Any) -> Any:
        return next((value for value in values if value is not None), None)

    def unset_if_zero(self, value: Any) -> Any:
        return None if value == 0 else value

    def half(self, value: Any) -> Any:
        return None if value is None else value / 2


PYTHON: Arithmetic[Any] = _Python()
"""The settings' rules on Python numbers."""
