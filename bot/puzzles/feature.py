"""Puzzles: ``/tholos puzzle`` gives a member a puzzle only they see, near their puzzle rating
and never one they met in this round of puzzles; they build the answer with the buttons of a
turn and hear right or wrong, the answer explained, and their rating's move; **Next** gives
another. The puzzle of the day's **Solve it** opens that puzzle the same way. The day's post
itself is the loop of :mod:`.daily`."""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Coroutine
from importlib import resources
from typing import Any

import discord

from engine import IllegalTurnError
from engine.builder import TurnBuilder
from engine.puzzles import Puzzle
from engine.vocabulary import N_

from .. import custom_ids, layout
from ..answers import USERS_ONLY, Interaction, answers, tell
from ..app import App, Feature, feature_of
from ..board import step_prompt
from ..commands import tholos
from ..controls import Router
from ..domain import Refusal
from ..i18n import NC_, reader
from ..storage.puzzles import Answered, Attempt, PuzzleStore
from . import face
from .daily import Daily
from .harvest import Harvest

log = logging.getLogger(__name__)

SHIPPED = "shipped.jsonl"
"""The verified puzzles that ship with the bot (``python -m engine puzzles``)."""
NO_PUZZLES = N_("There are no puzzles yet — please try again later.")
NOT_YOURS = N_("That puzzle is someone else's: {puzzle} gives you one of your own.")
GONE = N_("That puzzle of the day is no longer open: {puzzle} gives you another.")


def shipped_puzzles() -> list[Puzzle]:
    """The puzzles that ship with the bot."""
    text = resources.files(__package__).joinpath(SHIPPED).read_text(encoding="utf-8")
    return [Puzzle.from_json(line) for line in text.splitlines() if line.strip()]


class Puzzles(Feature):
    """The handlers of puzzles, and the puzzle of the day's loop."""

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.store = PuzzleStore(app.database, app.settings.shards)
        self.daily = Daily(app, self.store)
        self.harvest = Harvest(app, self.store)

    def register(self, router: Router) -> None:
        """Route the answer's steps, Next and the puzzle of the day's Solve here."""
        router.add(custom_ids.PUZZLE_STEP, self.step)
        router.add(custom_ids.PUZZLE_NEXT, self.next)
        router.add(custom_ids.DAILY_PUZZLE, self.solve_daily)

    def loops(self) -> list[tuple[str, Coroutine[Any, Any, None]]]:
        """The background loops: the puzzle of the day, and (unless turned off) the search of
        finished games for puzzles."""
        loops = [("puzzle-of-the-day", self.daily.run())]
        if self.app.settings.puzzles_from_games:
            loops.append(("puzzles-from-games", self.harvest.run()))
        return loops

    def close(self) -> None:
        """Stop the search's worker."""
        self.harvest.close()

    async def stock(self) -> None:
        """Store the shipped puzzles the database does not have yet."""
        added = await self.store.add(shipped_puzzles(), time.time())
        if added:
            log.info("stored %d shipped puzzles", added)

    @answers()
    async def puzzle(self, interaction: Interaction) -> None:
        """``/tholos puzzle``: the member's open puzzle, or a new one."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._show(interaction, await self._serve(interaction.user.id))

    @answers()
    async def next(self, interaction: Interaction, attempt: int) -> None:
        """Next, under an answered puzzle: a new one."""
        await self._own(interaction, attempt)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._show(interaction, await self._serve(interaction.user.id))

    @answers(server_only=True)
    async def solve_daily(self, interaction: Interaction, guild: int, day: str) -> None:
        """Solve it, under a puzzle of the day: that puzzle, privately (answered: the answer
        given, again)."""
        daily = await self.store.dailies.get(guild, day)
        if daily is None or daily.revealed or guild != interaction.guild_id:
            raise Refusal(GONE, puzzle="`/tholos puzzle`")
        attempt = await self.store.daily_attempt(daily, interaction.user.id, time.time())
        if attempt.correct is not None:
            answered = Answered(attempt, False, await self.store.player(attempt.user_id), None)
            await tell(interaction, face.verdict(reader(interaction), answered))
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._show(interaction, attempt)

    @answers()
    async def step(self, interaction: Interaction, attempt: int, path: str, kind: str) -> None:
        """A press on a puzzle's step button: show the next choice, or judge the answer."""
        t = reader(interaction)
        shown = await self._own(interaction, attempt)
        if shown.correct is not None:  # answered already: the first answer stands
            answered = Answered(shown, False, await self.store.player(shown.user_id), None)
            await self._edit(interaction, face.verdict(t, answered), face.next_row(t, shown.id))
            return
        try:
            builder = TurnBuilder(shown.puzzle.puzzle.position, tuple(path))
        except IllegalTurnError:
            raise Refusal("That choice isn't available.") from None
        turn = builder.turn
        if turn is None:
            step = builder.step()
            assert step is not None
            prompt = step_prompt(t, builder, step)
            await self._edit(interaction, prompt, face.answer_rows(t, shown.id, builder))
            return
        correct = str(turn) == str(shown.puzzle.puzzle.answer)
        answered = await self.store.answer(shown.id, shown.user_id, str(turn), correct,
                                           time.time())  # fmt: skip
        await self._edit(interaction, face.verdict(t, answered), face.next_row(t, shown.id))
        if answered.first and shown.day is not None and shown.guild_id is not None:
            await self.daily.refresh(shown.guild_id, shown.day)

    async def _own(self, interaction: Interaction, attempt_id: int) -> Attempt:
        """The attempt a control carries, if it is the presser's."""
        attempt = await self.store.attempt(attempt_id)
        if attempt is None or attempt.user_id != interaction.user.id:
            raise Refusal(NOT_YOURS, puzzle="`/tholos puzzle`")
        return attempt

    async def _serve(self, user_id: int) -> Attempt:
        try:
            return await self.store.serve(user_id, time.time())
        except LookupError:
            raise Refusal(NO_PUZZLES) from None

    async def _show(self, interaction: Interaction, attempt: Attempt) -> None:
        """Send the attempt's puzzle to the member alone (the interaction is deferred)."""
        t = reader(interaction)
        stored = attempt.puzzle
        png, alt = await self.app.renderer.image(stored.puzzle.position,
                                                 face.image_view(t, stored.puzzle))  # fmt: skip
        if attempt.day is not None:
            title = t("Puzzle of the day · {day}", day=attempt.day)
        else:
            title = t("Puzzle {id} · rated {rating}", id=stored.id,
                      rating=round(stored.rating.rating))  # fmt: skip
        player = await self.store.player(attempt.user_id)
        intro = t("Find the one turn that does it and build it with the buttons. Your puzzle "
                  "rating: {rating}.", rating=round(player.rating.rating))  # fmt: skip
        look = face.look(t, stored, title, intro, alt)
        rows = face.answer_rows(t, attempt.id, TurnBuilder(stored.puzzle.position))
        file = discord.File(io.BytesIO(png), filename=layout.IMAGE_NAME, description=alt)
        await interaction.followup.send(view=look.layout(rows), file=file, ephemeral=True,
                                        allowed_mentions=USERS_ONLY)  # fmt: skip

    @staticmethod
    async def _edit(interaction: Interaction, status: str, rows: list[layout.Row]) -> None:
        """Answer a press by showing ``status`` and ``rows`` on the puzzle's message."""
        assert interaction.message is not None  # a press comes from a message
        look = layout.BoardLook.of(interaction.message)
        if look is None:
            raise Refusal("That puzzle's message is out of date: {puzzle} shows it again.",
                          puzzle="`/tholos puzzle`")  # fmt: skip
        await interaction.response.edit_message(view=look.layout(rows, status=status),
                                                allowed_mentions=USERS_ONLY)  # fmt: skip


@tholos.command(
    name=NC_("command", "puzzle"),
    description=N_("A puzzle for you alone: find the one turn that wins"),
)
async def puzzle_command(interaction: Interaction) -> None:
    """``/tholos puzzle``."""
    await feature_of(interaction, Puzzles).puzzle(interaction)
