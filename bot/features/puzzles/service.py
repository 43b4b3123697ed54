"""Puzzles without Discord: a member's puzzle, and the answer built one choice at a time, judged
once — the same for a press on Discord and a turn sent by the live page."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.base.refusals import Refusal
from bot.features.puzzles.store import Answered, Attempt, PuzzleStore
from bot.words.phrases import command
from engine import IllegalTurnError
from engine.builder import TurnBuilder
from engine.vocabulary import N_

NO_PUZZLES = N_("There are no puzzles yet — please try again later.")
NOT_YOURS = N_("That puzzle is someone else's: {puzzle} gives you one of your own.")


@dataclass(frozen=True, slots=True)
class AnswerShown:
    """The answer is not complete: its next step."""

    attempt: Attempt
    builder: TurnBuilder


class PuzzleService:
    """Serves puzzles and judges answers over the puzzle store."""

    def __init__(self, store: PuzzleStore, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock

    async def serve(self, user_id: int) -> Attempt:
        """The member's open puzzle, or a new one near their rating."""
        try:
            return await self.store.serve(user_id, self.clock())
        except LookupError:
            raise Refusal(NO_PUZZLES) from None

    async def attempt_of(self, attempt_id: int, user_id: int) -> Attempt:
        """The attempt, if it is the member's (else :class:`Refusal`)."""
        attempt = await self.store.attempt(attempt_id)
        if attempt is None or attempt.user_id != user_id:
            raise Refusal(NOT_YOURS, puzzle=command("tholos puzzle"))
        return attempt

    async def give_up(self, attempt_id: int, user_id: int) -> Answered:
        """Show the answer without answering: stored as a wrong answer (once, like any)."""
        attempt = await self.attempt_of(attempt_id, user_id)
        if attempt.correct is not None:
            return Answered(attempt, False, await self.store.player(user_id), None)
        return await self.store.answer(attempt.id, user_id, None, False, self.clock())

    async def choose(self, attempt_id: int, user_id: int, path: str) -> AnswerShown | Answered:
        """One more choice of the member's answer (``path``: the choices so far): its next
        step, or, complete, the answer judged and stored — once (answered before: the first
        answer, read back)."""
        attempt = await self.attempt_of(attempt_id, user_id)
        if attempt.correct is not None:
            return Answered(attempt, False, await self.store.player(user_id), None)
        try:
            builder = TurnBuilder(attempt.puzzle.puzzle.position, tuple(path))
        except IllegalTurnError:
            raise Refusal("That choice isn't available.") from None
        turn = builder.turn
        if turn is None:
            return AnswerShown(attempt, builder)
        correct = str(turn) == str(attempt.puzzle.puzzle.answer)
        return await self.store.answer(attempt.id, user_id, str(turn), correct, self.clock())
