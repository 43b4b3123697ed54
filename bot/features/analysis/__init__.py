"""The analysis board: the games members ask to analyse (``store``, ``feature``) and the
page's analysis board (``web``); what other features may use of it."""

from bot.features.analysis.store import PageRequestStore

__all__ = ["PageRequestStore"]
