"""Playing a game: a board's buttons, ``/tholos board``, ``resign``, ``claim`` and ``rules``
(``feature``), the turns, resignations and claims (``service``), the AI that plays its turns
(``opponent``) and the page's games (``web``); what other features may use of it."""

from bot.features.play.service import OutdatedBoardError, PlayService, playable

__all__ = ["OutdatedBoardError", "PlayService", "playable"]
