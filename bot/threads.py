"""A thread per game: whether a game started from an interaction gets one, and opening it."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import discord

from .answers import Interaction
from .presenter import NO_THREADS

log = logging.getLogger(__name__)

AUTO_ARCHIVE_MINUTES = 1440
"""A game's thread is archived after a day without messages (a board posted unarchives it)."""


@dataclass(frozen=True, slots=True)
class Place:
    """Where a game started from an interaction is played."""

    thread: bool
    """In a thread of its own (else in the interaction's channel)."""
    note: str | None = None
    """What the challenger should know about it (what to grant for threads)."""


def place_for(interaction: Interaction, threads_wanted: bool) -> Place:
    """A thread when the server wants threads, the channel is a text channel and the bot may
    open threads and post in them there; else the channel itself, with a note when only a
    permission is missing."""
    channel = interaction.channel
    if not threads_wanted or not isinstance(channel, discord.TextChannel):
        return Place(thread=False)
    permissions = interaction.app_permissions
    if not (permissions.create_public_threads and permissions.send_messages_in_threads):
        return Place(thread=False, note=NO_THREADS)
    return Place(thread=True)


async def open_thread(
    message: discord.Message | discord.PartialMessage, name: str, players: list[int]
) -> discord.Thread | None:
    """A public thread on ``message`` with ``players`` added; ``None`` when Discord refuses
    (the server's thread limit, a permission changed meanwhile): the game is then played in
    the channel."""
    try:
        thread = await message.create_thread(name=name, auto_archive_duration=AUTO_ARCHIVE_MINUTES)
    except discord.HTTPException as error:
        log.info("no thread for a game on message %s: %s", message.id, error)
        return None
    for user_id in players:
        try:
            await thread.add_user(discord.Object(user_id))
        except discord.HTTPException as error:  # they still see it in the channel's threads
            log.info("could not add %s to thread %s: %s", user_id, thread.id, error)
    return thread


async def delete_thread(thread: discord.Thread) -> None:
    """Delete a thread whose game could not start (best effort)."""
    try:
        await thread.delete()
    except discord.HTTPException as error:
        log.info("could not delete thread %s: %s", thread.id, error)
