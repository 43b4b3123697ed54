"""Ratings: the ratings of every server (by :mod:`bot.base.glicko2`) and their history
(``store``), a member's statistics (``stats``) and the leaderboard (``feature``); what other
features may use of them."""

from bot.features.ratings.store import RATINGS_LOCK, RatedResult, rate_game

__all__ = ["RATINGS_LOCK", "RatedResult", "rate_game"]
