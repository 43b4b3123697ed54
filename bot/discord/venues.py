"""Where an interaction comes from, as Discord tells it — a server that added the bot, the bot's
DM, or a place only a member's install of the app reaches (a server without the bot, a DM or
group DM between members) — and what a command that needs the bot there says elsewhere."""

from __future__ import annotations

from typing import Any

import discord

from bot.base.game import Venue
from bot.base.refusals import Refusal
from bot.base.shards import DIRECT_MESSAGES
from bot.words.phrases import command
from engine.vocabulary import N_

Interaction = discord.Interaction[Any]

SERVER_ONLY = N_(
    "That works in server channels: run it in a channel of a server we share. Here, "
    "{ai} plays a game against me."
)
NEEDS_THE_BOT = N_(
    "That works only in servers that added me, and I'm not a member here. Here you can "
    "still play: {challenge} challenges someone, {learn} teaches the game."
)


def venue_of(interaction: Interaction) -> Venue:
    """Where ``interaction`` was made: a server that added the bot (its guild install
    authorized the interaction), the bot's DM, or — a member's install of the app only — a
    server without the bot, a DM between members, a group DM."""
    if interaction.guild_id is not None:
        return "server" if interaction.is_guild_integration() else "server_without_bot"
    if not interaction.context.private_channel:
        return "bot_dm"
    channel = interaction.channel
    if channel is not None and channel.type == discord.ChannelType.group:
        return "group_dm"
    return "dm"


def guild_id_of(interaction: Interaction) -> int:
    """The server a game or challenge made by ``interaction`` belongs to: its server, where
    the bot is; :data:`~bot.base.shards.DIRECT_MESSAGES` (0) anywhere else."""
    if venue_of(interaction) == "server":
        return interaction.guild_id or DIRECT_MESSAGES
    return DIRECT_MESSAGES


def require_server(interaction: Interaction) -> None:
    """Refuse a command that needs a server with the bot (its settings, members, tournaments,
    leaderboard) anywhere else, saying where it works and what works here."""
    venue = venue_of(interaction)
    if venue == "bot_dm":
        raise Refusal(SERVER_ONLY, ai=command("tholos-ai"))
    if venue != "server":
        raise Refusal(
            NEEDS_THE_BOT, challenge=command("tholos challenge"), learn=command("tholos learn")
        )
