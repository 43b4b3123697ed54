"""Lessons, a feature that is a package: the course (``course``), each member's progress
(``store``, ``service``), ``/tholos learn`` and the buttons of the course (``feature``), what a
lesson's message shows (``words``, ``views``) and the page's lessons (``web``); what other
features may use of them."""

from bot.features.lessons.service import LessonService
from bot.features.lessons.views import FIRST_GAME
from bot.features.lessons.words import course_line

__all__ = ["FIRST_GAME", "LessonService", "course_line"]
