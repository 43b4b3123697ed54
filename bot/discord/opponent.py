"""The AI opponent as the shared parts and the features see it: what starts a game against it
and wakes it to move. The play feature plays its turns (:mod:`bot.features.play.opponent`);
the wiring (:mod:`bot.features.installed`) hands it to whoever needs it."""

from __future__ import annotations

from typing import Protocol

from bot.base.game import Game
from bot.base.game_options import Level
from bot.base.languages import Language
from bot.base.people import Person
from bot.discord.answers import Interaction


class AiOpponent(Protocol):
    """Starts games against the AI and lets it move when it is its turn."""

    def person(self, language: Language, level: Level) -> Person:
        """The bot as the AI opponent, by the name it plays under in ``language``."""
        ...

    async def start(self, interaction: Interaction, game: Game) -> None:
        """Show a new game against the AI; the AI moves if it plays first."""
        ...

    def schedule(self, game: Game | None = None) -> None:
        """A change (in ``game``; ``None``: somewhere) may have left the AI to move."""
        ...
