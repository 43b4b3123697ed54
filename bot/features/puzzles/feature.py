"""Puzzles: ``/tholos puzzle`` gives a member a puzzle only they see, near their puzzle rating
and never one they met in this round of puzzles; they build the answer with the buttons of a
turn and hear right or wrong, the answer explained, and their rating's move; **Next** gives
another. The puzzle of the day's **Solve it** opens that puzzle the same way. The day's post
itself is the loop of :mod:`.daily`."""

from __future__ import annotations

import logging
import time
from importlib import resources

from discord.ext.commands import Cog

from bot.base.refusals import Refusal
from bot.discord import layout
from bot.discord.answers import Interaction, answers, tell
from bot.discord.app import App
from bot.discord.commands import Command, Tholos
from bot.discord.controls import Router
from bot.discord.feature import Feature
from bot.features.puzzles import views
from bot.features.puzzles.daily import Daily
from bot.features.puzzles.harvest import Harvest
from bot.features.puzzles.service import AnswerShown, PuzzleService
from bot.features.puzzles.store import Answered, Attempt, PuzzleStore
from bot.features.puzzles.words import image_view, puzzle_title, verdict
from bot.i18n.catalogues import NC_
from bot.i18n.locales import reader
from bot.loops.loop import Loop
from bot.words.phrases import command
from bot.words.steps import step_prompt
from engine.builder import TurnBuilder
from engine.puzzles import Puzzle
from engine.vocabulary import N_

log = logging.getLogger(__name__)

SHIPPED = "shipped.jsonl"
"""The verified puzzles that ship with the bot (``python -m engine puzzles``)."""
GONE = N_("That puzzle of the day is no longer open: {puzzle} gives you another.")


def shipped_puzzles() -> list[Puzzle]:
    """The puzzles that ship with the bot."""
    text = resources.files("bot.features.puzzles").joinpath(SHIPPED).read_text(encoding="utf-8")
    return [Puzzle.from_json(line) for line in text.splitlines() if line.strip()]


class Puzzles(Feature):
    """The handlers of puzzles, and the puzzle of the day's loop."""

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.store = PuzzleStore(app.database, app.settings.shards)
        self.service = PuzzleService(self.store)
        self.daily = Daily(app, self.store)
        self.harvest = Harvest(app, self.store)

    def commands(self) -> list[Command]:
        return PuzzleCommands(self).get_app_commands()

    def register(self, router: Router) -> None:
        """Route the answer's steps, Next and the puzzle of the day's Solve here."""
        router.add(views.PUZZLE_STEP, self.step)
        router.add(views.PUZZLE_NEXT, self.next)
        router.add(views.PUZZLE_GIVE_UP, self.give_up)
        router.add(views.DAILY_PUZZLE, self.solve_daily)

    def loops(self) -> list[Loop]:
        """The puzzle of the day, and (unless turned off) the search of finished games for
        puzzles."""
        loops = [self.daily.loop()]
        if self.app.settings.puzzles_from_games:
            loops.append(self.harvest.loop())
        return loops

    async def start(self) -> None:
        """Store the shipped puzzles the database does not have yet; listen to the servers'
        settings (a new puzzle channel wakes the day's loop) and for finished games (they wake
        the search)."""
        added = await self.store.add(shipped_puzzles(), time.time())
        if added:
            log.info("stored %d shipped puzzles", added)
        await self.daily.listen()
        if self.app.settings.puzzles_from_games:
            await self.harvest.listen()

    async def stop(self) -> None:
        """Stop the day's message edits and the search's worker."""
        await self.daily.close()
        self.harvest.close()

    @answers()
    async def puzzle(self, interaction: Interaction) -> None:
        """``/tholos puzzle``: the member's open puzzle, or a new one."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._show(interaction, await self.service.serve(interaction.user.id))

    @answers()
    async def next(self, interaction: Interaction, attempt: int) -> None:
        """Next, under an answered puzzle: a new one."""
        await self.service.attempt_of(attempt, interaction.user.id)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._show(interaction, await self.service.serve(interaction.user.id))

    @answers(server_only=True)
    async def solve_daily(self, interaction: Interaction, guild: int, day: str) -> None:
        """Solve it, under a puzzle of the day: that puzzle, privately (answered: the answer
        given, again)."""
        daily = await self.store.dailies.get(guild, day)
        if daily is None or daily.revealed or guild != interaction.guild_id:
            raise Refusal(GONE, puzzle=command("tholos puzzle"))
        attempt = await self.store.daily_attempt(daily, interaction.user.id, time.time())
        if attempt.correct is not None:
            answered = Answered(attempt, False, await self.store.player(attempt.user_id), None)
            await tell(interaction, verdict(reader(interaction), answered))
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._show(interaction, attempt)

    @answers()
    async def step(self, interaction: Interaction, attempt: int, path: str, kind: str) -> None:
        """A press on a puzzle's step button: show the next choice, or judge the answer."""
        t = reader(interaction)
        result = await self.service.choose(attempt, interaction.user.id, path)
        if isinstance(result, AnswerShown):
            step = result.builder.step()
            assert step is not None  # the answer is not complete
            rows = views.answer_rows(t, attempt, result.builder)
            status = step_prompt(t, result.builder, step)
            await layout.edit_private_board(interaction, status, rows, stale())
            return
        await self._judged(interaction, result)

    @answers()
    async def give_up(self, interaction: Interaction, attempt: int) -> None:
        """Show the answer, under a puzzle not answered yet (it counts as a miss)."""
        answered = await self.service.give_up(attempt, interaction.user.id)
        await self._judged(interaction, answered)

    async def _judged(self, interaction: Interaction, answered: Answered) -> None:
        """Show the verdict and Next on the puzzle's message; a puzzle of the day's tally
        follows a first answer."""
        t, shown = reader(interaction), answered.attempt
        next_row = views.next_row(t, shown.id)
        await layout.edit_private_board(interaction, verdict(t, answered), next_row, stale())
        if answered.first and shown.day is not None and shown.guild_id is not None:
            self.daily.tally.refresh(shown.guild_id, shown.day)

    async def _show(self, interaction: Interaction, attempt: Attempt) -> None:
        """Send the attempt's puzzle to the member alone (the interaction is deferred)."""
        t = reader(interaction)
        stored = attempt.puzzle
        png, alt = await self.app.renderer.image(
            stored.puzzle.position, image_view(t, stored.puzzle)
        )
        title = puzzle_title(t, stored, attempt.day)
        player = await self.store.player(attempt.user_id)
        intro = t(
            "Find the one turn that does it and build it with the buttons. Your puzzle "
            "rating: {rating}.",
            rating=round(player.rating.rating),
        )
        look = views.look(t, stored, title, intro, alt)
        rows = views.answer_rows(t, attempt.id, TurnBuilder(stored.puzzle.position))
        await layout.send_private_board(interaction, look, rows, png)


def stale() -> Refusal:
    """The answer to a press on a puzzle's message that is not one any more."""
    return Refusal(
        "That puzzle's message is out of date: {puzzle} shows it again.",
        puzzle=command("tholos puzzle"),
    )


class PuzzleCommands(Cog):
    """``/tholos puzzle``."""

    tholos = Tholos()

    def __init__(self, puzzles: Puzzles) -> None:
        self.puzzles = puzzles

    @tholos.command(
        name=NC_("command", "puzzle"),
        description=N_("A puzzle for you alone: find the one turn that wins"),
    )
    async def puzzle(self, interaction: Interaction) -> None:
        """``/tholos puzzle``."""
        await self.puzzles.puzzle(interaction)
