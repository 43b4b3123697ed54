"""A seat at a game the pool paired: who asked, and where the game is shown to them. No I/O."""

from __future__ import annotations

from dataclasses import dataclass

from bot.base.game import Venue


@dataclass(frozen=True, slots=True)
class Seat:
    """A member the pool paired, and where they asked for the game: it is shown there (a server's
    channel, or their DM with the bot when they asked where the bot cannot post)."""

    user_id: int
    name: str
    """Their global display name: across servers, never a server's nickname."""
    guild_id: int
    """The server with the bot it is shown in; 0 in the DM with the bot."""
    channel_id: int
    venue: Venue
    """``server`` or ``bot_dm``: the pool shows its games only where the bot can post."""
    language: str
    server_name: str | None = None
    """The server's name, shown to the opponent only if its admin allowed it."""
