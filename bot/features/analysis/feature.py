"""The analysis board as a feature: the games members ask to analyse (``/tholos analyse``, a
history's Analyse), kept for the live page they open next (its part of the page:
:mod:`bot.features.analysis.web`)."""

from __future__ import annotations

from bot.discord.app import App
from bot.discord.feature import Feature
from bot.features.analysis.store import PageRequestStore


class Analysis(Feature):
    """Holds the games members asked to analyse."""

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.store = PageRequestStore(app.database)
        """The games members asked to analyse, for the live page they open next."""
