"""The course's repository: where each member is in the course, the lessons they tried (misses
counted) and did, and when they first finished the whole course. A tried turn is stored in one
transaction with where it leads, so a restart at any point finds the course as it was."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bot.storage.db import Database, Transaction, scalar

COURSE_END = "#end"
"""``current`` once the last lesson is done (``/tholos learn`` shows the course's end); no
lesson's id, which are letters, digits and hyphens."""


@dataclass(frozen=True, slots=True)
class LessonRecord:
    """A lesson a member tried: how often their turn missed its task, and when it first did it
    (``None``: not yet)."""

    lesson: str
    misses: int
    passed_at: float | None


@dataclass(frozen=True, slots=True)
class Progress:
    """A member's course: the lesson they are at (:data:`COURSE_END` past the last), the
    lessons they tried, and when they first finished the course (``None``: not yet)."""

    user_id: int
    current: str | None
    """``None``: they never started."""
    finished_at: float | None = None
    tried: Mapping[str, LessonRecord] = field(default_factory=dict)

    def passed(self, lesson_id: str) -> bool:
        """Whether they did ``lesson_id``'s task."""
        record = self.tried.get(lesson_id)
        return record is not None and record.passed_at is not None

    def count_passed(self, lesson_ids: Sequence[str]) -> int:
        """How many of ``lesson_ids`` they did."""
        return sum(1 for lesson_id in lesson_ids if self.passed(lesson_id))


class LessonStore:
    """The course in the database."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def progress(self, user_id: int) -> Progress:
        """Where ``user_id`` is in the course."""
        async with self.database.snapshot() as reader:
            learner = await reader.fetchone(
                "SELECT current, finished_at FROM learners WHERE user_id = ?", (user_id,)
            )
            rows = await reader.fetchall(
                "SELECT lesson, misses, passed_at FROM lessons_done WHERE user_id = ?", (user_id,)
            )
        tried = {row[0]: LessonRecord(row[0], row[1], row[2]) for row in rows}
        if learner is None:
            return Progress(user_id, None, None, tried)
        return Progress(user_id, learner[0], learner[1], tried)

    async def show(self, user_id: int, lesson_id: str, now: float) -> None:
        """``user_id`` is at ``lesson_id`` (the one shown to them)."""
        async with self.database.transaction() as transaction:
            await _move(transaction, user_id, lesson_id, now)

    async def tried(
        self,
        user_id: int,
        lesson_id: str,
        passed: bool,
        then: str,
        course: Sequence[str],
        now: float,
    ) -> Progress:
        """Store a turn ``user_id`` tried in ``lesson_id``: a miss, or the task done and the
        member on to ``then``; the first time every lesson of ``course`` is done, the course is
        finished at ``now``. Their progress after it."""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "INSERT INTO lessons_done (user_id, lesson, misses, passed_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (user_id, lesson) DO UPDATE SET "
                "misses = lessons_done.misses + excluded.misses, "
                "passed_at = COALESCE(lessons_done.passed_at, excluded.passed_at)",
                (user_id, lesson_id, 0 if passed else 1, now if passed else None),
            )
            if passed:
                await _move(transaction, user_id, then, now)
                await _finish_if_done(transaction, user_id, course, now)
        return await self.progress(user_id)


async def _move(transaction: Transaction, user_id: int, lesson_id: str, now: float) -> None:
    await transaction.execute(
        "INSERT INTO learners (user_id, current, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT (user_id) DO UPDATE SET current = excluded.current, "
        "updated_at = excluded.updated_at",
        (user_id, lesson_id, now),
    )


async def _finish_if_done(
    transaction: Transaction, user_id: int, course: Sequence[str], now: float
) -> None:
    """Mark the course finished at ``now`` if every lesson of ``course`` is done (once)."""
    marks = ", ".join("?" for _ in course)
    done = await scalar(
        transaction,
        f"SELECT COUNT(*) FROM lessons_done WHERE user_id = ? AND passed_at IS NOT NULL "
        f"AND lesson IN ({marks})",
        (user_id, *course),
    )
    if int(done) == len(course):
        await transaction.execute(
            "UPDATE learners SET finished_at = ? WHERE user_id = ? AND finished_at IS NULL",
            (now, user_id),
        )
