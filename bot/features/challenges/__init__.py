"""Challenges: a challenge to a member or to anyone, until it is answered; what other features
may use of them."""

from bot.features.challenges.service import NewGames
from bot.features.challenges.store import Challenge, ChallengeStore

__all__ = ["Challenge", "ChallengeStore", "NewGames"]
