"""Hints: a good turn for the player to move, on a board's Hint (``feature``, ``service``) and
in words (``words``); what other features may use of them."""

from bot.features.hints.words import named, why

__all__ = ["named", "why"]
