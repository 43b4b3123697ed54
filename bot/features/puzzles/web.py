"""Puzzles on the live page: the same :class:`~bot.features.puzzles.service.PuzzleService` as
``/tholos puzzle`` and its buttons. The page asks for a puzzle (``puzzle``), sends its answer
(``puzzle_answer``, a whole turn's path) or gives up (``puzzle_reveal``), and hears the
verdict."""

from __future__ import annotations

from typing import Final

from bot.base.refusals import Refusal
from bot.features.puzzles.service import AnswerShown, PuzzleService
from bot.features.puzzles.store import Answered, Attempt
from bot.features.puzzles.words import puzzle_board, puzzle_game, verdict
from bot.i18n.catalogues import translator
from bot.web.frames import board_frame, geometries
from bot.web.live import JSON, PATH, Page, plain, refuse, refused, send, stored_int
from bot.web.pages import PagePart
from bot.words.steps import turn_steps
from engine.vocabulary import N_
from rendering.translator import Translator


def puzzle_frame(attempt: Attempt, t: Translator, name: str) -> JSON:
    """The frame of a member's puzzle (``name``: theirs): a board like a game's, its steps
    the answer's, and the attempt the answer is for."""
    game = puzzle_game(attempt, t, lambda user: name)
    frame = board_frame(puzzle_board(attempt, game, t), t, turn_steps(game, t), 0.0)
    frame["puzzle"] = attempt.id
    frame["geometries"] = geometries(game.position)
    return frame


WORDS: Final = {
    "puzzle": N_("Solve a puzzle"),
    "next_puzzle": N_("Next puzzle"),
    "reveal": N_("Show the answer"),
}
"""The puzzles' labels on the page, by key."""


class PuzzlePages(PagePart):
    """A page's puzzles."""

    types = frozenset({"puzzle", "puzzle_answer", "puzzle_reveal"})
    words = WORDS

    def __init__(self, puzzles: PuzzleService) -> None:
        self.puzzles = puzzles

    async def answer(self, page: Page, data: JSON) -> None:
        """A puzzle for the member (``puzzle``), their answer to one (``puzzle_answer``, a
        whole turn's path) or their wish to see its answer (``puzzle_reveal``, a miss)."""
        session, t, kind = page.session, translator(page.language), data["type"]
        attempt, path = stored_int(data.get("attempt")), data.get("path", "")
        malformed = (
            attempt is None
            or not isinstance(path, str)
            or (kind == "puzzle_answer" and not PATH.fullmatch(path))
        )
        if kind != "puzzle" and malformed:
            await refuse(page, "malformed")
            return
        try:
            if kind == "puzzle":
                shown = await self.puzzles.serve(session.user_id)
                self.boards.leave(page)
                await send(page.socket, puzzle_frame(shown, t, session.name))
                return
            assert isinstance(attempt, int) and isinstance(path, str)
            if kind == "puzzle_reveal":
                result: AnswerShown | Answered = await self.puzzles.give_up(
                    attempt, session.user_id
                )
            else:
                result = await self.puzzles.choose(attempt, session.user_id, path)
        except Refusal as refusal:
            await send(page.socket, refused(t, refusal))
            return
        if isinstance(result, AnswerShown):
            await refuse(page, "incomplete")
            return
        said = plain(verdict(t, result))
        correct = bool(result.attempt.correct)
        await send(page.socket, {"type": "verdict", "text": said, "correct": correct})
