"""The Activity's Entry Point command (type 4, PRIMARY_ENTRY_POINT), when it reaches the bot.

Discord makes the command when Activities are enabled, with the handler
DISCORD_LAUNCH_ACTIVITY: Discord then launches the Activity itself and the bot hears nothing.
A host may switch the handler to APP_HANDLER in the Developer Portal; each launch is then an
APPLICATION_COMMAND interaction with ``data.type`` 4 for the bot to answer — which discord.py's
command tree does not know (it has no such command type). The tree's check answers it first:
the Activity is launched where the member is (LAUNCH_ACTIVITY, as the boards' **Open the live
board** button does), or, where the bot does not serve the live board, the member is told so."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord.answers import Interaction

PRIMARY_ENTRY_POINT = 4
"""The application command type of an Activity's Entry Point (discord.py has no name for it)."""


def is_entry_point(interaction: Interaction) -> bool:
    """Whether ``interaction`` is a use of the app's Entry Point command."""
    data: Any = interaction.data or {}
    return (
        interaction.type is discord.InteractionType.application_command
        and data.get("type") == PRIMARY_ENTRY_POINT
    )
