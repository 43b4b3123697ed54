"""What the features' slash commands share: the ``/tholos`` group each feature declares its part
of, gathered into one when the bot is set up; the options' words, autocomplete's choices, and
what the command tree says when a command fails before its handler could answer."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, TypeAlias, TypeVar

import discord
from discord import app_commands

from bot.base.game import Game
from bot.discord.answers import SOMETHING_WENT_WRONG, tell
from bot.i18n.catalogues import NC_
from bot.words.phrases import game_label
from engine.vocabulary import N_
from rendering.translator import Translator

log = logging.getLogger(__name__)
ChoiceValue = TypeVar("ChoiceValue", int, str)

SERVERS_ONLY = app_commands.AppCommandContext(guild=True)
"""Where the server commands are offered: server channels only (not DMs)."""
GUILD_INSTALL = app_commands.AppInstallationType(guild=True)
"""The server commands come with the bot added to a server (not with a user's install)."""
EVERYWHERE = app_commands.AppCommandContext(guild=True, dm_channel=True, private_channel=True)
"""Where ``/tholos`` is offered: servers, the bot's DM, and DMs and group DMs between members."""
EITHER_INSTALL = app_commands.AppInstallationType(guild=True, user=True)
"""``/tholos`` comes with the bot added to a server and with a member's install of the app."""

Command: TypeAlias = app_commands.Command[Any, ..., Any] | app_commands.Group
"""A slash command: a top-level command, a group or a subcommand."""


class Tholos(app_commands.Group):
    """``/tholos …``, offered everywhere the app is installed (Discord declares contexts per
    top-level command: a subcommand that needs a server with the bot refuses elsewhere, see
    :func:`~bot.discord.venues.require_server`). A feature declares its part — a ``Tholos()``
    class attribute of its commands' Cog, whose subcommands are the Cog's methods
    (``@tholos.command``); :func:`slash_commands` gathers the parts into the one group the bot
    registers."""

    def __init__(self) -> None:
        super().__init__(
            name=NC_("command", "tholos"),
            description=N_("Play Tholos, the board game of Delphi's temple"),
            allowed_contexts=EVERYWHERE,
            allowed_installs=EITHER_INSTALL,
        )


def slash_commands(commands: Iterable[Command]) -> list[Command]:
    """The top-level commands the bot registers: ``/tholos`` with the subcommands of every part
    of it among ``commands`` (the features' commands, in order), then the others."""
    tholos = Tholos()
    top_level: list[Command] = [tholos]
    for command in commands:
        if isinstance(command, Tholos):
            for subcommand in command.commands:
                tholos.add_command(subcommand)
        else:
            top_level.append(command)
    return top_level


OPTION_NAMES = (
    NC_("command", "opponent"),
    NC_("command", "mode"),
    NC_("command", "ornaments"),
    NC_("command", "colour"),
    NC_("command", "first"),
    NC_("command", "level"),
    NC_("command", "game"),
    NC_("command", "member"),
    NC_("command", "page"),
    NC_("command", "threads"),
    NC_("command", "idle_claim_minutes"),
    NC_("command", "challenge_minutes"),
    NC_("command", "default_mode"),
    NC_("command", "rating_range"),
    NC_("command", "pace"),
    NC_("command", "default_pace"),
    NC_("command", "clocks"),
    NC_("command", "lesson"),
    NC_("command", "hints"),
    NC_("command", "scope"),
)
"""The commands' option names (their Python parameters), for the catalogue."""
CHOICE_NAMES = (
    N_("basic"),
    N_("advanced"),
    N_("white"),
    N_("black"),
    N_("random"),
    N_("me"),
    N_("opponent"),
    N_("easy"),
    N_("medium"),
    N_("challenging"),
    N_("hard"),
    N_("expert"),
    N_("master"),
    N_("on"),
    N_("off"),
    N_("correspondence"),
    N_("live"),
    N_("server"),
    N_("global"),
)
"""The names of the options' choices (their values), for the catalogue."""


GAME_OPTIONS = {
    "mode": N_("basic (the default) or advanced (ornaments change their columns' rules)"),
    "ornaments": N_("How many ornaments, 1 to 5 (advanced mode; 2 unless you say)"),
    "colour": N_("The colour you play (default random)"),
    "first": N_("Who moves first (default random)"),
}
"""The descriptions of the options a game is set up with (``/tholos challenge``,
``/tholos-ai``; mode and ornaments: ``/tholos-tournament create``)."""

CHOICES_SHOWN = 25
"""Discord shows at most 25 autocomplete choices."""


CHOICE_NAME_LIMIT = 100
"""Discord's longest choice name."""


def choices(
    labelled: Iterable[tuple[str, ChoiceValue]], typed: str
) -> list[app_commands.Choice[ChoiceValue]]:
    """An autocomplete's answer: the ``(label, id)`` whose label holds what was typed (in any
    case), as many as Discord shows, each label within Discord's limit."""
    typed = typed.lower()
    shown = [
        app_commands.Choice(name=label[:CHOICE_NAME_LIMIT], value=id)
        for label, id in labelled
        if typed in label.lower()
    ]
    return shown[:CHOICES_SHOWN]


def game_choices(t: Translator, games: list[Game], typed: str) -> list[app_commands.Choice[int]]:
    """The choices of a ``game`` option: the ``games`` whose label holds what was typed."""
    return choices(((game_label(t, game), game.id) for game in games), typed)


async def on_command_error(
    interaction: discord.Interaction[Any], error: app_commands.AppCommandError
) -> None:
    """Answer what a command could not do: a cooldown, a bad option, or a bug (logged)."""
    if isinstance(error, app_commands.CommandOnCooldown):
        await tell(
            interaction,
            "Just a moment — try again in {seconds} s.",
            seconds=f"{error.retry_after:.0f}",
        )
        return
    log.error("command %s failed", interaction.command, exc_info=error)
    await tell(interaction, SOMETHING_WENT_WRONG)
