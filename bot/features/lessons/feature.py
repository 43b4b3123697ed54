"""Lessons: ``/tholos learn`` shows a member the lesson they are at (or the one they name),
privately: a rule in a few sentences, a prepared position and a task done with the buttons of a
turn. A turn that does the task moves them on (**Next lesson**); one that does not says what it
did and why that is not the task (**Try again**). **Lessons** lists the course to replay any;
the course ends with a first game against the easy AI, with hints."""

from __future__ import annotations

from discord import app_commands
from discord.ext.commands import Cog

from bot.base.refusals import Refusal
from bot.discord import layout
from bot.discord.answers import Interaction, answers
from bot.discord.app import App
from bot.discord.commands import Command, Tholos, choices
from bot.discord.controls import Router, rows_view
from bot.discord.feature import Feature
from bot.features.lessons import views
from bot.features.lessons.course import COURSE
from bot.features.lessons.service import CourseDone, LessonService, LessonShown, LessonTried
from bot.features.lessons.store import LessonStore
from bot.features.lessons.words import course_finished, course_list, image_view, verdict
from bot.i18n.catalogues import NC_
from bot.i18n.locales import reader
from bot.words.phrases import command
from bot.words.steps import step_prompt
from engine.vocabulary import N_

OUT_OF_DATE = N_("That lesson's message is out of date: {learn} shows it again.")


class Lessons(Feature):
    """The handlers of the course."""

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.store = LessonStore(app.database)
        self.service = LessonService(self.store)

    def commands(self) -> list[Command]:
        return LessonCommands(self).get_app_commands()

    def register(self, router: Router) -> None:
        """Route the turn's steps, Try again, Next lesson and the list here (the first game is
        a game against the AI: the challenges' button)."""
        router.add(views.LESSON_STEP, self.step)
        router.add(views.LESSON_OPEN, self.open)
        router.add(views.LESSON_LIST, self.course)

    @answers()
    async def learn(self, interaction: Interaction, lesson: str | None) -> None:
        """``/tholos learn [lesson]``: the lesson named, or the one the member is at."""
        user = interaction.user.id
        shown = await (
            self.service.current(user) if lesson is None else self.service.open(user, lesson)
        )
        if isinstance(shown, CourseDone):
            await self._course_done(interaction, shown)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._show(interaction, shown)

    @answers()
    async def open(self, interaction: Interaction, lesson: str) -> None:
        """Next lesson, or a lesson of the list: that lesson, from its start."""
        shown = await self.service.open(interaction.user.id, lesson)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self._show(interaction, shown)

    @answers()
    async def step(self, interaction: Interaction, lesson: str, path: str, kind: str) -> None:
        """A press on a lesson's step button (Try again: from the start): the next choice, or
        the turn judged."""
        t = reader(interaction)
        result = await self.service.step(interaction.user.id, lesson, path)
        if isinstance(result, LessonShown):
            step = result.builder.step()
            assert step is not None  # the turn is not whole
            rows = views.step_rows(t, result.lesson, result.builder)
            status = step_prompt(t, result.builder, step)
            await layout.edit_private_board(interaction, status, rows, stale())
            return
        await self._judged(interaction, result)

    @answers()
    async def course(self, interaction: Interaction) -> None:
        """Lessons: the course, a button for each lesson."""
        progress = await self.service.progress(interaction.user.id)
        t = reader(interaction)
        await interaction.response.send_message(
            course_list(t, progress),
            view=rows_view(views.list_rows(t, progress)),
            ephemeral=True,
        )

    async def _judged(self, interaction: Interaction, tried: LessonTried) -> None:
        """The verdict on the lesson's message, and what may follow."""
        t = reader(interaction)
        text = verdict(t, tried.turn, tried.verdict.why, tried.finished_now)
        if tried.verdict.passed:
            rows = views.next_rows(t, tried.then)
        else:
            rows = views.again_rows(t, tried.lesson)
        await layout.edit_private_board(interaction, text, rows, stale())

    async def _course_done(self, interaction: Interaction, done: CourseDone) -> None:
        """``/tholos learn`` past the last lesson: the course's end, and its list."""
        t = reader(interaction)
        text = course_finished(t) + "\n\n" + course_list(t, done.progress)
        await interaction.response.send_message(
            text, view=rows_view(views.list_rows(t, done.progress)), ephemeral=True
        )

    async def _show(self, interaction: Interaction, shown: LessonShown) -> None:
        """Send the lesson to the member alone (the interaction is deferred)."""
        t = reader(interaction)
        lesson = shown.lesson
        png, alt = await self.app.renderer.image(lesson.start, image_view(t, lesson))
        look = views.look(t, lesson, alt)
        rows = views.step_rows(t, lesson, shown.builder)
        await layout.send_private_board(interaction, look, rows, png)


def stale() -> Refusal:
    """The answer to a press on a lesson's message that is not one any more."""
    return Refusal(OUT_OF_DATE, learn=command("tholos learn"))


class LessonCommands(Cog):
    """``/tholos learn``."""

    tholos = Tholos()

    def __init__(self, lessons: Lessons) -> None:
        self.lessons = lessons

    @tholos.command(
        name=NC_("command", "learn"),
        description=N_("Learn to play, one rule at a time: short lessons you play, just for you"),
    )
    @app_commands.describe(lesson=N_("A lesson of the course (leave it out: where you stopped)"))
    async def learn(self, interaction: Interaction, lesson: str | None = None) -> None:
        """``/tholos learn [lesson]``."""
        await self.lessons.learn(interaction, lesson)

    @learn.autocomplete("lesson")
    async def lesson_autocomplete(
        self, interaction: Interaction, typed: str
    ) -> list[app_commands.Choice[str]]:
        """The lessons whose number and title hold what was typed, the done ones ticked."""
        t = reader(interaction)
        progress = await self.lessons.service.progress(interaction.user.id)
        labelled = [
            (
                f"{number}. {t(lesson.title)}" + (" ✅" if progress.passed(lesson.id) else ""),
                lesson.id,
            )
            for number, lesson in enumerate(COURSE, start=1)
        ]
        return choices(labelled, typed)
