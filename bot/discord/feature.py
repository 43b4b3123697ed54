"""What a feature is: everything it adds to the bot declared in one class — its slash commands,
the buttons it answers, its background loops, what it does at start and at stop — over the
shared :class:`~bot.discord.app.App`. The client builds every feature of
:func:`bot.features.installed.features` the same way, so adding a feature is adding it there."""

from __future__ import annotations

from bot.discord.answers import Interaction, Interactions
from bot.discord.app import App
from bot.discord.commands import Command
from bot.discord.controls import Router
from bot.loops.loop import Loop


class Feature:
    """One feature of the bot: its handlers and flows, over the shared :class:`App`."""

    def __init__(self, app: App) -> None:
        self.app = app

    def commands(self) -> list[Command]:
        """Its slash commands, bound to it: the ``get_app_commands()`` of its commands' Cog —
        top-level commands, its own groups, and its part of ``/tholos`` (a
        :class:`~bot.discord.commands.Tholos`, which the client gathers into one group)."""
        return []

    def register(self, router: Router) -> None:
        """Route its buttons to its handlers."""

    def loops(self) -> list[Loop]:
        """Its background loops (run by the client from when it is ready until it closes)."""
        return []

    async def start(self) -> None:
        """At start, before the gateway connects: catch up on what a restart left behind."""

    async def stop(self) -> None:
        """At the end, once the loops have stopped: stop what it runs (workers, servers)."""

    async def check(self, interaction: Interaction) -> bool:
        """Before a slash command runs: ``False`` if this feature answered it instead."""
        return True

    @property
    def interactions(self) -> Interactions:
        """The interactions under way (see :func:`bot.discord.answers.answers`)."""
        return self.app.interactions
