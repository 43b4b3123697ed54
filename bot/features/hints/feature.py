"""Hints: the **Hint** button on the player's turn in a game against the AI that allows hints
(``/tholos-ai hints: True``, or the course's first game) shows them alone one good turn and one
sentence why; the game counts the hints it gave (its history and record say so)."""

from __future__ import annotations

from bot.discord import layout
from bot.discord.answers import Interaction, answers, caller
from bot.discord.app import App
from bot.discord.controls import Router
from bot.discord.feature import Feature
from bot.features.hints.service import HintService
from bot.features.hints.words import hint_text
from bot.i18n.locales import reader


class Hints(Feature):
    """The Hint button's handler."""

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.service = HintService(app.stores.games, app.adviser)

    def register(self, router: Router) -> None:
        router.add(layout.HINT, self.hint)

    @answers()
    async def hint(self, interaction: Interaction, game: int, version: int) -> None:
        """Hint, on a board: a good turn for the player to move, to them alone (the search
        takes up to a second: the press is acknowledged first)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        given = await self.service.hint(game, version, caller(interaction))
        colour = given.game.position.turn
        await interaction.followup.send(
            hint_text(reader(interaction), colour, given.hint), ephemeral=True
        )
