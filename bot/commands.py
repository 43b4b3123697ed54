"""The ``/tholos`` slash commands: thin handlers that hand over to :class:`bot.flows.Flows`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands

from .flows import tell
from .presenter import rules_embed

if TYPE_CHECKING:
    from .client import TholosBot

REQUIRED_PERMISSIONS = (
    ("view_channel", "View Channel"),
    ("send_messages", "Send Messages"),
    ("embed_links", "Embed Links"),
    ("attach_files", "Attach Files"),
    ("read_message_history", "Read Message History"),
)
SERVER_ONLY = (
    "Tholos is played in server channels — run `/tholos challenge` in a channel of a server "
    "we share."
)


def missing_permissions(interaction: discord.Interaction[Any]) -> list[str]:
    """The permissions the bot lacks in the interaction's channel, by their names in Discord."""
    permissions = interaction.app_permissions
    return [name for flag, name in REQUIRED_PERMISSIONS if not getattr(permissions, flag)]


async def ready_to_play(interaction: discord.Interaction[Any]) -> bool:
    """Answer and return False when the command can't work here (a DM, missing permissions)."""
    if interaction.guild_id is None:
        await tell(interaction, SERVER_ONLY)
        return False
    missing = missing_permissions(interaction)
    if missing:
        await tell(
            interaction,
            "I can't run a game here yet: I need these permissions in this channel: "
            f"**{', '.join(missing)}**. A server admin can grant them in the channel's settings "
            "(Permissions → the Tholos bot's role).",
        )
        return False
    return True


def _flows(interaction: discord.Interaction[Any]) -> Any:
    bot: TholosBot = interaction.client  # type: ignore[assignment]
    return bot.flows


tholos = app_commands.Group(
    name="tholos", description="Play Tholos, the board game of Delphi's temple"
)


@tholos.command(name="challenge", description="Challenge a member to a game of Tholos")
@app_commands.describe(
    opponent="Who you want to play",
    mode="basic (default) or advanced (with ornaments that change columns' rules)",
    ornaments="Advanced mode: how many ornaments, 1 to 5 (default 2)",
    colour="The colour you play (default random)",
    first="Who moves first (default random)",
)
async def challenge(
    interaction: discord.Interaction[Any],
    opponent: discord.User,
    mode: Literal["basic", "advanced"] = "basic",
    ornaments: app_commands.Range[int, 1, 5] | None = None,
    colour: Literal["white", "black", "random"] = "random",
    first: Literal["me", "opponent", "random"] = "random",
) -> None:
    """``/tholos challenge``."""
    if await ready_to_play(interaction):
        await _flows(interaction).challenge(
            interaction,
            opponent=opponent,
            mode=mode,
            ornaments=ornaments,
            colour=colour,
            first=first,
        )


@tholos.command(name="resign", description="Resign the game you are playing in this channel")
async def resign(interaction: discord.Interaction[Any]) -> None:
    """``/tholos resign`` (asks to confirm)."""
    if await ready_to_play(interaction):
        await _flows(interaction).ask_resign(interaction)


@tholos.command(name="board", description="Show this channel's game board again, with its buttons")
async def board(interaction: discord.Interaction[Any]) -> None:
    """``/tholos board``."""
    if await ready_to_play(interaction):
        await _flows(interaction).show_board(interaction)


@tholos.command(name="cancel", description="Withdraw the challenge you made in this channel")
async def cancel(interaction: discord.Interaction[Any]) -> None:
    """``/tholos cancel``."""
    if await ready_to_play(interaction):
        await _flows(interaction).cancel(interaction)


@tholos.command(name="claim", description="Claim the win when your opponent has stopped playing")
async def claim(interaction: discord.Interaction[Any]) -> None:
    """``/tholos claim``."""
    if await ready_to_play(interaction):
        await _flows(interaction).claim_in_channel(interaction)


@tholos.command(name="rules", description="How to play Tholos (only you see it)")
async def rules(interaction: discord.Interaction[Any]) -> None:
    """``/tholos rules``: ephemeral, with this channel's ornaments when a game is on."""
    flows = _flows(interaction)
    game = None
    if interaction.channel_id is not None:
        game = await flows.service.store.active_game(interaction.channel_id)
    await interaction.response.send_message(
        embed=rules_embed(game.position if game else None), ephemeral=True
    )
