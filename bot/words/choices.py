"""A control of a board, abstractly: what it does, its words, whether it can be used now and,
if not, why. Each face draws it its own way (Discord's buttons, the live page's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Action = Literal[
    "choose",
    "back",
    "cancel",
    "claim",
    "resign",
    "rules",
    "rematch",
    "replay",
    "record",
    "review",
    "analyse",
    "live",
    "reveal",
    "lessons",
    "hint",
]
"""What a control does: make a choice of the turn (or go back, or start over); claim the win
from an idle opponent; resign (against the AI, where no command may be at hand); read the
rules; after the game, challenge again, replay, get the record, ask the AI's review, analyse
it on the live board; open the live board (the Activity); show a puzzle's answer; list the
course's lessons; ask for a hint."""
Emphasis = Literal["primary", "secondary", "success", "danger"]
"""How strongly a control stands out (Discord's button styles)."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One control of the board, abstractly: what it does, its words, whether it can be used
    now and, if not, why."""

    action: Action
    label: str
    emoji: str | None = None
    emphasis: Emphasis = "secondary"
    enabled: bool = True
    why_not: str | None = None
    path: str = ""
    """``choose``/``back``/``cancel``: the turn's path the control leads to (its choices so
    far, one token each)."""
