"""The Discord client: the composition root. It opens and migrates storage, builds the
features, registers their buttons and commands, and syncs the commands when they changed."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from typing import Any

import discord
from discord import app_commands

from bot.base.custom_ids import PREFIX
from bot.base.settings import Settings
from bot.face.answers import USERS_ONLY, tell
from bot.face.app import App, Feature, feature_of
from bot.face.background import stop_tasks
from bot.face.commands import on_command_error, tholos
from bot.face.controls import Button, Router, has_component
from bot.face.health import MetricsServer
from bot.face.opponent import Opponent
from bot.face.translator import CommandTranslator
from bot.features.admin import Admin, tholos_admin
from bot.features.challenges import Challenges, ai_command
from bot.features.clocks import Clocks
from bot.features.games import Games
from bot.features.history import History
from bot.features.housekeeping import Chores, Housekeeping
from bot.features.play import Play
from bot.features.puzzles.feature import Puzzles
from bot.features.ratings import Ratings, leaderboard_command
from bot.features.reminders import Reminders
from bot.features.review import Reviews
from bot.features.tournaments.feature import Tournaments, tholos_tournament
from bot.storage import get_meta, open_database, set_meta
from bot.web.entry_point import EntryPoint
from bot.web.server import WebServer
from bot.words.phrases import command, know_commands

log = logging.getLogger(__name__)

INVITE_PERMISSIONS = discord.Permissions(309237763072)
"""What the bot needs in a server (README's invite link): View Channel, Send Messages, Embed
Links, Attach Files, Read Message History, Create Public Threads, Send Messages in Threads."""
PRIMARY_ENTRY_POINT = 4
"""The type of an app's Entry Point command, which Discord makes when Activities are enabled
(discord.py has no type for it)."""
SHUTDOWN_GRACE_SECONDS = 10.0
"""How long a shutdown waits for the interactions under way (e.g. a board being posted)."""


class TholosBot(discord.Client):
    """The Tholos bot: slash commands, persistent controls, games in SQLite."""

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
        self.tree.add_command(tholos)
        self.tree.add_command(leaderboard_command)
        self.tree.add_command(tholos_admin)
        self.tree.add_command(tholos_tournament)
        self.tree.add_command(ai_command)
        self.tree.on_error = on_command_error
        self.router = Router()
        self.features: dict[type[Feature], Feature] = {}
        self.app: App | None = None
        self._background: list[asyncio.Task[None]] = []
        self.metrics_server: MetricsServer | None = None
        self.web_server: WebServer | None = None

    async def setup_hook(self) -> None:
        """Open storage, build the features, register their controls, sync the commands if
        they changed, and catch up on what a restart left behind."""
        database = await open_database(self.settings.database)
        self.app = app = App.build(self, self.settings, database)
        if self.settings.metrics_port is not None:
            self.metrics_server = MetricsServer(self, database)
            await self.metrics_server.start(self.settings.metrics_host, self.settings.metrics_port)
        opponent = Opponent(app)
        challenges = Challenges(app, opponent)
        reminders = Reminders(app)
        housekeeping = Housekeeping(
            app,
            opponent,
            Chores(
                expire_challenges=challenges.expire,
                challenge_posted=challenges.posted,
                send_reminders=reminders.sweep,
            ),
        )
        play, games, ratings = Play(app, opponent), Games(app), Ratings(app)
        reviews, clocks, tournaments = Reviews(app), Clocks(app), Tournaments(app)
        puzzles = Puzzles(app)
        features = (
            opponent,
            play,
            challenges,
            games,
            ratings,
            History(app),
            reviews,
            Admin(app),
            reminders,
            housekeeping,
            clocks,
            tournaments,
            puzzles,
        )
        for feature in features:
            self.features[type(feature)] = feature
            feature.register(self.router)
        self.add_dynamic_items(Button)
        await self.tree.set_translator(CommandTranslator())
        if self.settings.registers_commands:
            await self._sync_commands()
            await self._declare_installs()
        else:
            await self._learn_command_ids()
        await housekeeping.catch_up()
        await puzzles.stock()
        if self.settings.web_port is not None and self.settings.client_secret is not None:
            self.web_server = WebServer(app, opponent, self.settings.client_secret)
            await self.web_server.start(self.settings.web_host, self.settings.web_port)
        entry_point = EntryPoint(app, live=self.web_server is not None)
        self.tree.interaction_check = entry_point.check  # type: ignore[method-assign]
        for name, loop in (
            ("housekeeping", housekeeping.run()),
            ("reviews", reviews.run()),
            ("ai-picker", opponent.run()),
            ("clocks", clocks.run()),
            ("tournaments", tournaments.rounds.run()),
            *puzzles.loops(),
        ):
            self._background.append(asyncio.create_task(loop, name=name))

    async def _sync_commands(self) -> None:
        """Register the slash commands with Discord only when their definition changed. A bulk
        overwrite of the global commands keeps the app's Entry Point command (its Activity's):
        Discord refuses one that drops it, and discord.py's ``tree.sync`` cannot express it."""
        assert self.app is not None and self.application_id is not None
        guild = None
        if self.settings.guild_id is not None:
            guild = discord.Object(self.settings.guild_id)
            self.tree.copy_global_to(guild=guild)
        payload = [
            await command.get_translated_payload(self.tree, CommandTranslator())
            for command in self.tree.get_commands(guild=guild)
        ]
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        key = f"commands:{self.application_id}:{self.settings.guild_id or 'global'}"
        database = self.app.database
        app_id, http = self.application_id, self.http
        if guild is None:
            registered = await http.get_global_commands(app_id)
        else:
            registered = await http.get_guild_commands(app_id, guild.id)
        kept = [c for c in registered if c.get("type") == PRIMARY_ENTRY_POINT]
        if await get_meta(database, key) == digest and len(registered) > len(kept):
            log.info("slash commands unchanged; not registering them again")
        else:
            if guild is None:
                registered = await http.bulk_upsert_global_commands(app_id, payload + kept)
            else:
                registered = await http.bulk_upsert_guild_commands(app_id, guild.id, payload)
            await set_meta(database, key, digest)
            log.info("slash commands registered (%s)", f"guild {guild.id}" if guild else "global")
        know_commands({c["name"]: int(c["id"]) for c in registered if c.get("type", 1) == 1})

    async def _learn_command_ids(self) -> None:
        """Learn the commands' ids (another process registers them), so that messages mention
        commands as Discord shows them; without them, messages name the commands as text."""
        guild = discord.Object(self.settings.guild_id) if self.settings.guild_id else None
        try:
            registered = await self.tree.fetch_commands(guild=guild)
        except discord.HTTPException as error:
            log.warning("could not read the slash commands' ids: %s", error)
            return
        know_commands({command.name: command.id for command in registered})

    async def _declare_installs(self) -> None:
        """Declare both ways to install the app, once: to a server (the bot and its commands,
        with the permissions boards need) and to a member's account (``/tholos-ai`` in the DM
        with the bot). A refusal is logged: the Developer Portal's Installation page does the
        same."""
        try:
            info = await self.application_info()
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
        if not self.router.knows(custom_id):
            await tell(
                interaction,
                "This button is no longer in use. Try {board}.",
                board=command("tholos board"),
            )
        elif not has_component(interaction.message, custom_id):
            await self.router.route(interaction, custom_id)

    async def close(self) -> None:
        """Let the interactions under way finish, stop background work (and wait for it: the
        loops stop the reviews and AI turns under way), disconnect, close the database."""
        app = self.app
        if app is not None:
            await app.interactions.drain(SHUTDOWN_GRACE_SECONDS)
        if self.web_server is not None:
            await self.web_server.stop()
        await stop_tasks(self._background, SHUTDOWN_GRACE_SECONDS)
        if app is not None:
            app.renderer.close()
            feature_of(self, Opponent).close()
            feature_of(self, Reviews).close()
            feature_of(self, Puzzles).close()
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
