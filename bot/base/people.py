"""Who acts and who plays: the caller of a command or a press, and a member as a game needs
them. No I/O."""

from __future__ import annotations

from dataclasses import dataclass


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
