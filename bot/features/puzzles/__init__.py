"""Puzzles, a feature that is a package: ``/tholos puzzle`` and the answer's buttons
(``feature``), the puzzles, members' attempts and ratings, the puzzle of the day's claim
(``store``), their flow without Discord (``service``), what a puzzle's message says
(``words``, ``views``), the server's puzzle of the day (``daily``), the puzzles found in
finished games (``harvest``), the page's puzzles (``web``) and the verified set that ships
with the bot (``shipped.jsonl``); what other features may use of them."""

from bot.features.puzzles.store import PuzzlePlayer, PuzzleStore

__all__ = ["PuzzlePlayer", "PuzzleStore"]
