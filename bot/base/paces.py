"""A game's pace: correspondence (no clock) or a live clock, how a clock is written, and which
clocks a server offers. No I/O."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Pace = Literal["correspondence", "3+2", "5+5", "10+5", "15+10"]
"""A game's pace as a command offers it: :data:`CORRESPONDENCE` or one of :data:`CLOCKS`."""
CORRESPONDENCE = "correspondence"
"""The pace of a game without a clock: the idle claim paces it (the default)."""
CLOCKS: tuple[str, ...] = tuple(pace for pace in get_args(Pace) if pace != CORRESPONDENCE)
"""The live clocks a server may offer: minutes each, plus seconds added after every turn."""


RatingPool = Literal["live", "correspondence"]
"""The two rating pools: games with a live clock, and correspondence games."""


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


def rating_pool(time_control: str | None) -> RatingPool:
    """The pool a game of this pace (a stored ``time_control``, or a chosen pace) is rated in."""
    return "correspondence" if TimeControl.of(time_control) is None else "live"
