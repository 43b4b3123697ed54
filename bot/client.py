"""The Discord client: storage opened and migrated, controls registered, commands synced."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
from typing import Any

import discord
from discord import app_commands

from .ai import AiPlayer
from .commands import leaderboard, on_command_error, tholos
from .controls import DYNAMIC_ITEMS, PREFIX, control_for
from .flows import USERS_ONLY, Flows, tell
from .service import GameService
from .settings import Settings
from .storage import Database, GameStore, RatingStore

log = logging.getLogger(__name__)

SHUTDOWN_GRACE_SECONDS = 10.0
"""How long a shutdown waits for the interactions under way (e.g. a board being posted)."""
HOUSEKEEPING_SECONDS = 30.0
"""The longest the housekeeping loop sleeps (it wakes earlier for a due challenge)."""
REPAIR_GRACE_SECONDS = 30.0
"""A board missing this long after its change was stored is posted by the housekeeping loop."""


def has_component(message: discord.Message | None, custom_id: str) -> bool:
    """Whether ``message`` carries a component with ``custom_id``."""
    if message is None:
        return False
    return any(
        getattr(child, "custom_id", None) == custom_id
        for row in message.components
        for child in getattr(row, "children", ())
    )


class TholosBot(discord.Client):
    """The Tholos bot: slash commands, persistent controls, games in SQLite."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(intents=discord.Intents(guilds=True), allowed_mentions=USERS_ONLY)
        self.settings = settings
        self.tree = app_commands.CommandTree(self)
        self.tree.add_command(tholos)
        self.tree.add_command(leaderboard)
        self.tree.on_error = on_command_error
        self.database: Database | None = None
        self._flows: Flows | None = None
        self._background: list[asyncio.Task[None]] = []
        self._wake = asyncio.Event()

    @property
    def flows(self) -> Flows:
        """The interaction flows (available once ``setup_hook`` ran)."""
        assert self._flows is not None, "setup_hook has not run"
        return self._flows

    def challenge_made(self) -> None:
        """Wake the housekeeping loop: a new challenge may expire before its next round."""
        self._wake.set()

    async def setup_hook(self) -> None:
        """Open storage, register the controls, sync the commands if they changed."""
        self.database = await Database.open(self.settings.database)
        service = GameService(
            GameStore(self.database),
            challenge_timeout=self.settings.challenge_timeout,
            inactivity_timeout=self.settings.inactivity_timeout,
        )
        self._flows = Flows(self, service, RatingStore(self.database), AiPlayer())
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        await self._sync_commands()
        # Catch up on what a crash or restart left behind, before the gateway connects: no
        # interaction can run meanwhile, so nothing races with these repairs.
        await self._flows.warm_up()
        await self._flows.expire_challenges()
        await self._flows.repost_missing_boards(grace=0)
        await self._flows.resume_ai_games()
        self._background.append(asyncio.create_task(self._housekeeping()))

    async def _sync_commands(self) -> None:
        """Register the slash commands with Discord only when their definition changed."""
        guild = None
        if self.settings.guild_id is not None:
            guild = discord.Object(self.settings.guild_id)
            self.tree.copy_global_to(guild=guild)
        payload = [command.to_dict(self.tree) for command in self.tree.get_commands(guild=guild)]
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        key = f"commands:{self.application_id}:{self.settings.guild_id or 'global'}"
        assert self.database is not None
        if await self.database.get_meta(key) == digest and await self.tree.fetch_commands(
            guild=guild
        ):
            log.info("slash commands unchanged; not registering them again")
            return
        await self.tree.sync(guild=guild)
        await self.database.set_meta(key, digest)
        log.info("slash commands registered (%s)", f"guild {guild.id}" if guild else "global")

    async def on_ready(self) -> None:
        """Log the connection."""
        log.info("connected as %s (%s)", self.user, self.user.id if self.user else "?")

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Answer presses that discord.py's dispatcher drops: ids no control knows, and buttons
        no longer on their message (a client showing an old version). The latter go to their
        usual handler, which says exactly what changed (e.g. "this board is out of date")."""
        if interaction.type is not discord.InteractionType.component:
            return
        custom_id = str((interaction.data or {}).get("custom_id", ""))
        if not custom_id.startswith(PREFIX):
            return
        control = await control_for(interaction, custom_id)
        if control is None:
            await tell(interaction, "This button is no longer in use. Try `/tholos board`.")
        elif not has_component(interaction.message, custom_id):
            await control.callback(interaction)

    async def _housekeeping(self) -> None:
        """Expire challenges on time, and post boards that a failed post left missing."""
        await self.wait_until_ready()
        while not self.is_closed():
            try:
                await self.flows.expire_challenges()
                await self.flows.repost_missing_boards(grace=REPAIR_GRACE_SECONDS)
                await self.flows.resume_ai_games()
                next_expiry = await self.flows.service.store.next_challenge_expiry()
            except Exception:
                log.exception("housekeeping failed")
                next_expiry = None
            delay = HOUSEKEEPING_SECONDS
            if next_expiry is not None:
                delay = min(delay, max(0.05, next_expiry - time.time()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)
            self._wake.clear()

    async def close(self) -> None:
        """Let the interactions under way finish, stop background work, disconnect, close the
        database."""
        if self._flows is not None:
            await self._flows.drain(SHUTDOWN_GRACE_SECONDS)
        for task in self._background:
            task.cancel()
        if self._flows is not None:
            self._flows.close()
        await super().close()
        if self.database is not None:
            await self.database.close()
            self.database = None
