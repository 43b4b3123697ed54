"""Every control's ``custom_id``: one definition each, which builds the id and parses it.

A ``custom_id`` starts with ``tholos:`` and carries ids, never game state. It is input: each
field is bounded by its pattern (ids at most 18 digits: SQLite row ids, 64 bits).

>>> STEP.build(game=12, version=3, path="Pw", kind="n")
'tholos:s:12:3:Pw:n'
>>> STEP.parse(STEP.pattern.fullmatch("tholos:s:12:3:Pw:n"))
{'game': 12, 'version': 3, 'path': 'Pw', 'kind': 'n'}
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

PREFIX = "tholos:"
_ID = r"\d{1,18}"
_VERSION = r"\d{1,9}"
_SNOWFLAKE = r"\d{1,20}"
"""A Discord id (a member's): up to 20 digits."""
_FLOAT = r"-?\d{1,17}(?:\.\d{1,17})?(?:e[+-]\d{1,3})?"
"""A finite float as ``repr`` writes it (``1500.0``, ``1e-05``): it parses back exactly."""


@dataclass(frozen=True)
class CustomId:
    """The format of one control's ``custom_id``: ``tholos:<kind>:<field>:<field>…``."""

    kind: str
    fields: tuple[tuple[str, str, Callable[[str], Any]], ...]
    """Each field's name, pattern and type (``int`` or ``str``)."""
    pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = "".join(f":(?P<{name}>{pattern})" for name, pattern, _ in self.fields)
        object.__setattr__(self, "pattern", re.compile(f"{PREFIX}{self.kind}{parts}"))

    @property
    def template(self) -> str:
        """The regular expression discord.py matches incoming ids with."""
        return self.pattern.pattern

    def build(self, **values: object) -> str:
        """The ``custom_id`` for ``values``; raises ``ValueError`` if one breaks its pattern."""
        text = PREFIX + self.kind + "".join(f":{values[name]}" for name, _, _ in self.fields)
        if self.pattern.fullmatch(text) is None:
            raise ValueError(f"not a valid {self.kind!r} custom_id: {text!r}")
        return text

    def parse(self, match: re.Match[str] | None) -> dict[str, Any]:
        """The typed fields of a matched ``custom_id``; raises ``ValueError`` on no match."""
        if match is None:
            raise ValueError(f"not a {self.kind!r} custom_id")
        return {name: kind(match[name]) for name, _, kind in self.fields}


STEP = CustomId(
    "s",
    (
        ("game", _ID, int),
        ("version", _VERSION, int),
        ("path", r"[A-Za-z0-9-]{0,8}", str),
        ("kind", "[nbc]", str),
    ),
)
"""A step of the turn being built: the path is the choices so far, one character each;
``n`` an option, ``b`` Back, ``c`` Cancel."""
CLAIM = CustomId("claim", (("game", _ID, int),))
"""Claim the win from an inactive opponent."""
CHALLENGE = CustomId("ch", (("challenge", _ID, int), ("answer", "accept|decline|withdraw", str)))
"""Answer a challenge."""
REMATCH = CustomId("rematch", (("game", _ID, int),))
"""Challenge the other player again, colours swapped."""
RESIGN = CustomId("resign", (("game", _ID, int), ("version", _VERSION, int)))
"""Confirm a resignation."""
LEADERBOARD = CustomId("lb", (("page", r"\d{1,6}", int), ("way", "[pn]", str)))
"""Show that page of the server's leaderboard (Previous / Next; posted before keyset paging)."""
LEADERBOARD_SEEK = CustomId(
    "lbs",
    (
        ("page", r"\d{1,6}", int),
        ("way", "[pn]", str),
        ("rating", _FLOAT, float),
        ("user", _SNOWFLAKE, int),
    ),
)
"""Previous / Next on the leaderboard: the page to show, and the first (Previous) or last (Next)
row of the page shown — its exact rating and user id — to seek from."""
GAMES = CustomId("games", (("page", r"\d{1,6}", int), ("way", "[pn]", str)))
"""Show that page of the server's games being played (Previous / Next)."""
HISTORY = CustomId(
    "hist", (("member", _SNOWFLAKE, int), ("page", r"\d{1,6}", int), ("way", "[pn]", str))
)
"""Show that page of a member's finished games (Previous / Next; posted before keyset paging)."""
HISTORY_SEEK = CustomId(
    "hs",
    (
        ("member", _SNOWFLAKE, int),
        ("page", r"\d{1,6}", int),
        ("way", "[pn]", str),
        ("at", _FLOAT, float),
        ("game", _ID, int),
    ),
)
"""Previous / Next of a member's finished games: the page to show, and the first (Previous) or
last (Next) game the page read — its exact finishing time and id — to seek from."""
REPLAY = CustomId("replay", (("game", _ID, int),))
"""The animated replay of a finished game."""
RECORD = CustomId("record", (("game", _ID, int),))
"""The record file of a finished game."""
REVIEW = CustomId("review", (("game", _ID, int),))
"""The AI's review of a finished game."""
ANALYSE = CustomId("an", (("game", _ID, int),))
"""Open a finished game on the live board's analysis board."""
RULES = CustomId("rules", (("game", _ID, int),))
"""How to play, with a game's ornaments."""
GIVE_UP = CustomId("giveup", (("game", _ID, int),))
"""Ask to resign a game (against the AI) from its board."""
TOURNAMENT = CustomId("tn", (("tournament", _ID, int), ("answer", "join|leave", str)))
"""Join or Leave on a tournament's announcement."""
LIVE = CustomId("live", (("game", _ID, int),))
"""Open the live board (the Activity) where the game is played."""
PUZZLE_STEP = CustomId(
    "pz", (("attempt", _ID, int), ("path", r"[A-Za-z0-9-]{0,8}", str), ("kind", "[nbc]", str))
)
"""A step of a puzzle's answer being built (as :data:`STEP`, for a member's attempt)."""
PUZZLE_GIVE_UP = CustomId("pzg", (("attempt", _ID, int),))
"""Show a puzzle's answer without answering (it counts as a wrong answer)."""
PUZZLE_NEXT = CustomId("pzn", (("attempt", _ID, int),))
"""Another puzzle, after the attempt answered."""
DAILY_PUZZLE = CustomId("pzd", (("guild", _SNOWFLAKE, int), ("day", r"\d{4}-\d{2}-\d{2}", str)))
"""Solve a server's puzzle of the day (privately)."""
_LESSON = r"[a-z0-9-]{1,16}"
"""A lesson's id (:mod:`bot.features.lessons.course`)."""
LESSON_STEP = CustomId(
    "le", (("lesson", _LESSON, str), ("path", r"[A-Za-z0-9-]{0,8}", str), ("kind", "[nbc]", str))
)
"""A step of the turn a member builds in a lesson (as :data:`STEP`, for the lesson)."""
LESSON_OPEN = CustomId("leo", (("lesson", _LESSON, str),))
"""Open a lesson from its start: Try again, Next lesson, a lesson of the course's list."""
LESSON_LIST = CustomId("lel", ())
"""The course's lessons, to replay any."""
FIRST_GAME = CustomId("lfg", ())
"""After the course: a first game against the easy AI, with hints."""
HINT = CustomId("hint", (("game", _ID, int), ("version", _VERSION, int)))
"""A hint for the player to move, in a game against the AI that allows them."""
