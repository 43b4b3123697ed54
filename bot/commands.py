"""The ``/tholos`` slash commands: thin handlers that hand over to :class:`bot.flows.Flows`."""

from __future__ import annotations

import logging
from typing import Any, Literal

import discord
from discord import app_commands

from .controls import flows_of
from .flows import SOMETHING_WENT_WRONG, tell
from .service import GameOptions
from .storage.games import ColourChoice, FirstChoice, Mode

log = logging.getLogger(__name__)

SERVER_ONLY = (
    "Tholos is played in server channels — run `/tholos challenge` in a channel of a server "
    "we share."
)
BOARD_COOLDOWN_SECONDS = 10.0
"""``/tholos board`` renders an image: once per channel in this many seconds is plenty."""


async def in_server(interaction: discord.Interaction[Any]) -> bool:
    """Answer and return False in a DM: games are played in server channels."""
    if interaction.guild_id is None:
        await tell(interaction, SERVER_ONLY)
        return False
    return True


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
    level="Against me, the AI: easy, medium (default) or hard",
)
async def challenge(
    interaction: discord.Interaction[Any],
    opponent: discord.User,
    mode: Mode = "basic",
    ornaments: app_commands.Range[int, 1, 5] | None = None,
    colour: ColourChoice = "random",
    first: FirstChoice = "random",
    level: Literal["easy", "medium", "hard"] = "medium",
) -> None:
    """``/tholos challenge`` (naming the bot itself starts a game against the AI at once)."""
    if await in_server(interaction):
        options = GameOptions(mode=mode, ornaments=ornaments, colour=colour, first=first)
        await flows_of(interaction).challenge(interaction, opponent, options, level)


@tholos.command(name="resign", description="Resign the game you are playing in this channel")
async def resign(interaction: discord.Interaction[Any]) -> None:
    """``/tholos resign`` (asks to confirm)."""
    if await in_server(interaction):
        await flows_of(interaction).ask_resign(interaction)


@tholos.command(name="board", description="Show this channel's game board again, with its buttons")
@app_commands.checks.cooldown(
    1, BOARD_COOLDOWN_SECONDS, key=lambda interaction: interaction.channel_id
)
async def board(interaction: discord.Interaction[Any]) -> None:
    """``/tholos board``."""
    if await in_server(interaction):
        await flows_of(interaction).show_board(interaction)


@tholos.command(name="cancel", description="Withdraw the challenge you made in this channel")
async def cancel(interaction: discord.Interaction[Any]) -> None:
    """``/tholos cancel``."""
    if await in_server(interaction):
        await flows_of(interaction).cancel(interaction)


@tholos.command(name="claim", description="Claim the win when your opponent has stopped playing")
async def claim(interaction: discord.Interaction[Any]) -> None:
    """``/tholos claim``."""
    if await in_server(interaction):
        await flows_of(interaction).claim_in_channel(interaction)


@tholos.command(name="stats", description="A player's Tholos rating, record and recent games")
@app_commands.describe(member="Whose stats (default: yours)")
async def stats(interaction: discord.Interaction[Any], member: discord.User | None = None) -> None:
    """``/tholos stats [member]``."""
    if await in_server(interaction):
        await flows_of(interaction).stats(interaction, member or interaction.user)


@app_commands.command(
    name="leaderboard", description="This server's Tholos players ranked by rating"
)
@app_commands.describe(page="Which page (10 players a page)")
async def leaderboard(
    interaction: discord.Interaction[Any], page: app_commands.Range[int, 1, 100000] = 1
) -> None:
    """``/leaderboard [page]``."""
    await flows_of(interaction).leaderboard(interaction, page - 1, edit=False)


@tholos.command(name="rules", description="How to play Tholos (only you see it)")
async def rules(interaction: discord.Interaction[Any]) -> None:
    """``/tholos rules``: ephemeral, with this channel's ornaments when a game is on."""
    await flows_of(interaction).rules(interaction)


async def on_command_error(
    interaction: discord.Interaction[Any], error: app_commands.AppCommandError
) -> None:
    """Answer what a command could not do: a cooldown, a bad option, or a bug (logged)."""
    if isinstance(error, app_commands.CommandOnCooldown):
        await tell(interaction, f"Just a moment — try again in {error.retry_after:.0f} s.")
        return
    log.error("command %s failed", interaction.command, exc_info=error)
    await tell(interaction, SOMETHING_WENT_WRONG)
