"""The bot's rules around the rules of the game, without Discord: how games start (challenges,
rematches, games against the AI) and how they are played (turns, resignations, claims).

Handlers call these services and turn :class:`~bot.base.domain.Refusal` into a polite ephemeral
reply; nothing here imports discord, so the flow is tested against a real database alone.
"""

from bot.services.challenges import ChallengeAnswered, ChallengeService, ExpiredChallengeError
from bot.services.play import OutdatedBoardError, PlayService, StepShown, TimeUp, TurnPlayed

__all__ = [
    "ChallengeAnswered",
    "ChallengeService",
    "ExpiredChallengeError",
    "OutdatedBoardError",
    "PlayService",
    "StepShown",
    "TimeUp",
    "TurnPlayed",
]
