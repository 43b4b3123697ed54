"""Ratings: Glicko-2 (``glicko2``), the ratings of every server and their history (``store``),
a member's stats and the leaderboard (``feature``); what other features may use of them."""

from bot.features.ratings.glicko2 import Rating, rate
from bot.features.ratings.store import RATINGS_LOCK, RatedResult, rate_game

__all__ = ["RATINGS_LOCK", "RatedResult", "Rating", "rate", "rate_game"]
