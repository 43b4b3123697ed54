"""The bot's own vocabulary of values, shared by storage, services and features. No I/O.

What a challenge can ask for, how games end, who acts and where, and the refusals every
feature answers with a polite ephemeral message.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol, TypeVar, get_args

from engine.newgame import DEFAULT_ORNAMENTS

Mode = Literal["basic", "advanced"]
ColourChoice = Literal["white", "black", "random"]
"""The colour a challenger asks for."""
FirstChoice = Literal["me", "opponent", "random"]
"""Who moves first, from the challenger's point of view."""
Level = Literal["easy", "medium", "hard"]
Language = Literal["en", "es", "de"]
"""The languages the bot speaks (English is the fallback for every other locale)."""
"""The AI opponent's levels."""
Answer = Literal["accept", "decline", "withdraw"]
"""What the buttons of a challenge do."""
ChallengeStatus = Literal["pending", "accepted", "declined", "withdrawn", "expired"]
Result = Literal["white", "black", "draw"]
RESULTS: dict[Result, str] = {"white": "1-0", "black": "0-1", "draw": "1/2-1/2"}
"""Each result as a record writes it."""
Reason = Literal["points", "columns", "tie", "resignation", "timeout"]


Pace = Literal["correspondence", "3+2", "5+5", "10+5", "15+10"]
"""A game's pace as a command offers it: :data:`CORRESPONDENCE` or one of :data:`CLOCKS`."""
CORRESPONDENCE = "correspondence"
"""The pace of a game without a clock: the idle claim paces it (the default)."""
CLOCKS: tuple[str, ...] = tuple(pace for pace in get_args(Pace) if pace != CORRESPONDENCE)
"""The live clocks a server may offer: minutes each, plus seconds added after every turn."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A live clock: ``minutes`` each, ``increment`` seconds added after every turn."""

    minutes: int
    increment: int

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``"5+3"`` → 5 minutes plus 3 seconds a turn; raises ``ValueError``."""
        minutes, plus, increment = text.partition("+")
        if not plus or not minutes.isdigit() or not increment.isdigit() or int(minutes) < 1:
            raise ValueError(f"not a clock: {text!r}")
        return cls(int(minutes), int(increment))

    @classmethod
    def of(cls, pace: str | None) -> TimeControl | None:
        """The clock of a stored or chosen pace (``None``: correspondence)."""
        return None if pace is None or pace == CORRESPONDENCE else cls.parse(pace)

    @property
    def seconds(self) -> float:
        """Each player's time at the start."""
        return 60.0 * self.minutes

    @property
    def pgn(self) -> str:
        """As PGN's ``[TimeControl]``: seconds, then the increment (``"300+3"``)."""
        return f"{self.minutes * 60}+{self.increment}"

    def __str__(self) -> str:
        return f"{self.minutes}+{self.increment}"


def offers(pace: str, clocks: tuple[str, ...]) -> bool:
    """Whether ``pace`` may be played where ``clocks`` are offered (correspondence always
    may)."""
    return pace == CORRESPONDENCE or pace in clocks


def offered_clocks(text: str) -> tuple[str, ...]:
    """The clocks a comma-separated list names, in :data:`CLOCKS`' order (``none`` or an empty
    list: none); raises ``ValueError`` naming one that is not among them."""
    chosen = {part.strip() for part in text.split(",") if part.strip()} - {"none"}
    unknown = sorted(chosen - set(CLOCKS))
    if unknown:
        raise ValueError(", ".join(unknown))
    return tuple(clock for clock in CLOCKS if clock in chosen)


def clock_text(seconds: float) -> str:
    """A clock's time as ``m:ss`` (``h:mm:ss`` from an hour), rounded down to the second
    (never below zero)."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Refusal(Exception):
    """A request refused for a reason the user should read: ``message`` (English, marked for
    translation, with ``{placeholders}``) and the ``values`` to fill in, translated into the
    reader's language where it is answered."""

    def __init__(self, message: str, /, **values: object) -> None:
        super().__init__(message.format(**values) if values else message)
        self.message = message
        self.values = values


@dataclass(frozen=True, slots=True)
class Caller:
    """Who pressed or typed, and in which channel: a game or challenge can only be acted on
    from its own channel; ``at``: when, by Discord's clock (the interaction's creation; a live
    clock stops then), if known."""

    user_id: int
    channel_id: int
    at: float | None = None


@dataclass(frozen=True, slots=True)
class Person:
    """A member as a challenge needs them: id, display name, and whether it is a bot."""

    id: int
    name: str
    bot: bool = False


@dataclass(frozen=True, slots=True)
class GameOptions:
    """What a challenge asks for: the mode (``None``: advanced when ornaments are asked for,
    else basic), how many ornaments (``None``: the mode's default), the challenger's colour and
    who moves first."""

    mode: Mode | None = None
    ornaments: int | None = None
    colour: ColourChoice = "random"
    first: FirstChoice = "random"
    language: Language = "en"
    """The language of the game's public messages and images (the server's)."""
    clock: TimeControl | None = None
    """A live clock; ``None``: correspondence."""
    hints: bool = False
    """The player may ask for hints (a game against the AI only)."""

    @property
    def game_mode(self) -> Mode:
        """The mode the game is played in: asking for ornaments means the advanced mode."""
        return self.mode or ("advanced" if self.ornaments else "basic")

    def ornament_count(self) -> int:
        """How many ornaments the game gets; raises :class:`Refusal` for ornaments asked for
        together with ``mode: basic``."""
        if self.mode == "basic" and self.ornaments:
            raise Refusal(
                "Ornaments belong to the advanced mode: leave out `mode: basic` (ornaments "
                "choose the advanced mode by themselves)."
            )
        return (self.ornaments or DEFAULT_ORNAMENTS) if self.game_mode == "advanced" else 0

    def settled(self) -> GameOptions:
        """These options with the mode and the number of ornaments the game gets; raises
        :class:`Refusal` as :meth:`ornament_count` does."""
        return replace(self, mode=self.game_mode, ornaments=self.ornament_count())


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


ReminderChoice = Literal["off", "here", "dm"]
"""Where a player wants their turn reminders: none, in the game's channel, or by DM."""


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


DIRECT_MESSAGES = 0
"""The ``guild_id`` of games played in a direct message with the bot (Discord sends those
events to shard 0, and ``0 >> 22`` is on shard 0 whatever the count)."""


def mention(user_id: int) -> str:
    """Discord's mention markup for a user."""
    return f"<@{user_id}>"
