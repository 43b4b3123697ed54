"""The Discord client: it opens and migrates storage, builds the shared parts and every feature
(wired by :func:`bot.features.installed.features`), adds their commands and buttons, syncs the
commands when they changed, starts the features and runs their loops."""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

from bot.base.settings import Settings
from bot.discord import app as shared
from bot.discord.answers import USERS_ONLY, Interaction, tell
from bot.discord.app import App
from bot.discord.commands import on_command_error, slash_commands
from bot.discord.controls import PREFIX, Router
from bot.discord.feature import Feature
from bot.discord.registration import Registration
from bot.features.installed import features
from bot.health.server import MetricsServer
from bot.i18n.locales import CommandTranslator
from bot.loops.loop import Loops
from bot.storage import open_database
from bot.storage.watched import watch_at_open
from bot.words.phrases import command

log = logging.getLogger(__name__)

SHUTDOWN_GRACE_SECONDS = 10.0
"""How long a shutdown waits for the interactions under way (e.g. a board being posted), and
then for the loops to stop."""


class TholosBot(discord.Client):
    """The Tholos bot: slash commands, persistent controls, games in a database."""

    def __init__(self, settings: Settings, **options: Any) -> None:
        # The bot has no voice: discord.py's warnings about missing voice libraries would only
        # puzzle its host.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        super().__init__(
            intents=discord.Intents(guilds=True), allowed_mentions=USERS_ONLY, **options
        )
        self.settings = settings
        self.tree = app_commands.CommandTree(self)
        self.tree.on_error = on_command_error
        self.tree.interaction_check = self._check
        self.router = Router()
        self.features: list[Feature] = []
        self.app: App | None = None
        self.loops = Loops(self.wait_until_ready, self.is_closed)
        self.metrics_server: MetricsServer | None = None

    async def setup_hook(self) -> None:
        """Open storage, build the shared parts and the features, register their commands and
        buttons, sync the commands if they changed, start the features (each catches up on
        what a restart left behind), then run every loop."""
        database = await open_database(self.settings.database)
        await watch_at_open(database)  # fair play: games under way before its index
        self.app = app = shared.build(self, self.settings, database)
        if self.settings.metrics_port is not None:
            self.metrics_server = MetricsServer(self, database)
            await self.metrics_server.start(self.settings.metrics_host, self.settings.metrics_port)
        self.features = features(app)
        for feature in self.features:
            feature.register(self.router)
        commands = [command for feature in self.features for command in feature.commands()]
        for top_level in slash_commands(commands):
            self.tree.add_command(top_level)
        await self.tree.set_translator(CommandTranslator())
        registration = Registration(self, self.tree, database, self.settings.guild_id)
        if self.settings.registers_commands:
            await registration.sync()
            await registration.declare_installs()
        else:
            await registration.learn_ids()
        loops = []
        for feature in self.features:
            await feature.start()
            loops += feature.loops()
        self.loops.start(loops)

    async def _check(self, interaction: Interaction) -> bool:
        """Before a slash command runs: a feature may answer it instead (the Entry Point)."""
        for feature in self.features:
            if not await feature.check(interaction):
                return False
        return True

    async def on_ready(self) -> None:
        """Log the connection."""
        log.info("connected as %s (%s)", self.user, self.user.id if self.user else "?")

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Route every press of a ``tholos:`` control to its handler, from its ``custom_id``
        alone — on an old version of a message too, whose handler says what changed (e.g.
        "this board is out of date"); an id no control knows is answered here."""
        if interaction.type is not discord.InteractionType.component:
            return
        custom_id = str((interaction.data or {}).get("custom_id", ""))
        if not custom_id.startswith(PREFIX):
            return
        if not self.router.knows(custom_id):
            await tell(
                interaction,
                "This button is no longer in use. Try {board}.",
                board=command("tholos board"),
            )
        else:
            await self.router.route(interaction, custom_id)

    async def close(self) -> None:
        """Let the interactions under way finish, stop the loops (and wait for them: a round
        under way is cancelled), stop the features and the shared parts, disconnect, close
        the database."""
        app = self.app
        if app is not None:
            await app.interactions.drain(SHUTDOWN_GRACE_SECONDS)
        await self.loops.stop(SHUTDOWN_GRACE_SECONDS)
        for feature in reversed(self.features):
            await feature.stop()
        if app is not None:
            await app.close()
        # discord.py (2.7) neither cancels its pending "ready" task on close nor checks that the
        # loop is still there when it fires: a bot stopped within seconds of connecting would
        # log a traceback. Cancel it first.
        ready = getattr(self._connection, "_ready_task", None)
        if ready is not None:
            ready.cancel()
        await super().close()
        if self.metrics_server is not None:
            await self.metrics_server.stop()
        if app is not None:
            await app.database.close()


class ShardedTholosBot(TholosBot, discord.AutoShardedClient):
    """The bot running the shards ``THOLOS_SHARD_IDS`` of ``THOLOS_SHARD_COUNT`` in this
    process (one gateway connection per shard)."""


def make_bot(settings: Settings) -> TholosBot:
    """The bot for ``settings``: sharded when ``THOLOS_SHARD_COUNT`` is set."""
    if not settings.sharded:
        return TholosBot(settings)
    return ShardedTholosBot(
        settings,
        shard_count=settings.shard_count,
        shard_ids=list(settings.shard_ids) if settings.shard_ids is not None else None,
    )
