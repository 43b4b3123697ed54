"""The slash commands as Discord knows them: registered only when their definition changed
(global registration is rate limited), by the one process that runs shard 0 — keeping the
app's Entry Point command —, or their ids learned from Discord by the others; and both ways to
install the app declared once."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import discord
from discord import app_commands

from bot.i18n.locales import CommandTranslator
from bot.storage.db import Database, get_meta, set_meta
from bot.words.phrases import know_commands

log = logging.getLogger(__name__)

INVITE_PERMISSIONS = discord.Permissions(309237763072)
"""What the bot needs in a server (README's invite link): View Channel, Send Messages, Embed
Links, Attach Files, Read Message History, Create Public Threads, Send Messages in Threads."""
PRIMARY_ENTRY_POINT = 4
"""The type of an app's Entry Point command, which Discord makes when Activities are enabled
(discord.py has no type for it)."""
EVERYWHERE = {"contexts": [0, 1, 2], "integration_types": [0, 1]}
"""Where the Entry Point command is offered: servers, the bot's DM, DMs and group DMs between
members (``contexts`` GUILD, BOT_DM, PRIVATE_CHANNEL), for either install (``integration_types``
GUILD_INSTALL, USER_INSTALL): the live board launches wherever a member reaches the app."""


class Registration:
    """Registers the commands of ``tree`` for the application, or learns their ids."""

    def __init__(
        self,
        client: discord.Client,
        tree: app_commands.CommandTree[Any],
        database: Database,
        guild_id: int | None,
    ) -> None:
        self.client = client
        self.tree = tree
        self.database = database
        self.guild_id = guild_id
        """A server to register the commands on alone (instantly), else globally."""

    async def sync(self) -> None:
        """Register the slash commands with Discord only when their definition changed. A bulk
        overwrite of the global commands keeps the app's Entry Point command (its Activity's):
        Discord refuses one that drops it, and discord.py's ``tree.sync`` cannot express it.
        The Entry Point is offered everywhere (:data:`EVERYWHERE`): registered again when it
        is not, the definitions unchanged or not."""
        assert self.client.application_id is not None
        guild = None
        if self.guild_id is not None:
            guild = discord.Object(self.guild_id)
            self.tree.copy_global_to(guild=guild)
        payload = [
            await command.get_translated_payload(self.tree, CommandTranslator())
            for command in self.tree.get_commands(guild=guild)
        ]
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        key = f"commands:{self.client.application_id}:{self.guild_id or 'global'}"
        database = self.database
        app_id, http = self.client.application_id, self.client.http
        if guild is None:
            registered = await http.get_global_commands(app_id)
        else:
            registered = await http.get_guild_commands(app_id, guild.id)
        kept: list[dict[str, Any]] = [
            dict(c) for c in registered if c.get("type") == PRIMARY_ENTRY_POINT
        ]
        everywhere = all(_offered_everywhere(c) for c in kept)
        kept = [{**c, **EVERYWHERE} for c in kept]
        if await get_meta(database, key) == digest and len(registered) > len(kept) and everywhere:
            log.info("slash commands unchanged; not registering them again")
        else:
            if guild is None:
                registered = await http.bulk_upsert_global_commands(app_id, payload + kept)
            else:
                registered = await http.bulk_upsert_guild_commands(app_id, guild.id, payload)
            await set_meta(database, key, digest)
            log.info("slash commands registered (%s)", f"guild {guild.id}" if guild else "global")
        know_commands({c["name"]: int(c["id"]) for c in registered if c.get("type", 1) == 1})

    async def learn_ids(self) -> None:
        """Learn the commands' ids (another process registers them), so that messages mention
        commands as Discord shows them; without them, messages name the commands as text."""
        guild = discord.Object(self.guild_id) if self.guild_id else None
        try:
            registered = await self.tree.fetch_commands(guild=guild)
        except discord.HTTPException as error:
            log.warning("could not read the slash commands' ids: %s", error)
            return
        know_commands({command.name: command.id for command in registered})

    async def declare_installs(self) -> None:
        """Declare both ways to install the app, once: to a server (the bot and its commands,
        with the permissions boards need) and to a member's account (``/tholos-ai`` in the DM
        with the bot). A refusal is logged: the Developer Portal's Installation page does the
        same."""
        try:
            info = await self.client.application_info()
            if info.user_integration_config is not None:
                return
            guild = info.guild_integration_config
            params = guild.oauth2_install_params if guild is not None else None
            await info.edit(
                guild_install_scopes=params.scopes if params else ["bot", "applications.commands"],
                guild_install_permissions=params.permissions if params else INVITE_PERMISSIONS,
                user_install_scopes=["applications.commands"],
            )
            log.info("declared guild install and user install")
        except discord.HTTPException as error:
            log.warning("could not declare user install (the Developer Portal can): %s", error)


def _offered_everywhere(command: dict[str, Any]) -> bool:
    """Whether a registered command is offered in every context, for both installs."""
    return all(sorted(command.get(field) or []) == places for field, places in EVERYWHERE.items())
