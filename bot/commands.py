"""The slash-command groups the features add their commands to, and what the command tree says
when a command fails before its handler could answer."""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

from .answers import SOMETHING_WENT_WRONG, tell

log = logging.getLogger(__name__)

tholos = app_commands.Group(
    name="tholos", description="Play Tholos, the board game of Delphi's temple"
)
"""``/tholos …``: every feature adds its subcommands here."""


async def on_command_error(
    interaction: discord.Interaction[Any], error: app_commands.AppCommandError
) -> None:
    """Answer what a command could not do: a cooldown, a bad option, or a bug (logged)."""
    if isinstance(error, app_commands.CommandOnCooldown):
        await tell(interaction, f"Just a moment — try again in {error.retry_after:.0f} s.")
        return
    log.error("command %s failed", interaction.command, exc_info=error)
    await tell(interaction, SOMETHING_WENT_WRONG)
