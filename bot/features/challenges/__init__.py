"""Challenges: a challenge to a member, to anyone or to the AI, until it is answered — its
commands and buttons (``feature``), its flow without Discord (``service``) and its store
(``store``); what other features may use of them."""

from bot.features.challenges.service import NewGames
from bot.features.challenges.store import Challenge, ChallengeStore

__all__ = ["Challenge", "ChallengeStore", "NewGames"]
