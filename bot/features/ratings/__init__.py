"""Ratings: one Glicko-2 rating per member in each pool, live and correspondence (the rules:
``pools``; in the database: ``store``; recomputed from the games: ``rebuild``), a member's
statistics (``stats``) and the leaderboards (``feature``); what other features may use of them:
rating a finished game in its transaction, the members' ratings in a pool (the pool's waves, the
AI's offer), and a member's place on a server's leaderboards."""

from bot.features.ratings.store import RATINGS_LOCK, RatingStore, join_server, rate_game

__all__ = ["RATINGS_LOCK", "RatingStore", "join_server", "rate_game"]
