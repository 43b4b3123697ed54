"""The pool on Discord: ``/tholos play [pace]`` (the opt-in on first use, then the waiting
message), ``/tholos pool leave|block|unblock``, the waiting message's buttons, and the waves'
loop.

Where: in a server whose admins opened the pool (``/tholos-admin settings pool:on``), the game
is shown in the member's channel; in the DM with the bot, there; anywhere else the app is
installed (a DM or group DM between members, a server without the bot, a server that did not
open the pool is refused), the game goes to the member's DM with the bot, which the answer
says."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import discord
from discord import app_commands
from discord.ext.commands import Cog

from bot.base.game_options import GameOptions, Level
from bot.base.paces import Pace
from bot.base.refusals import Refusal
from bot.base.seats import Seat
from bot.base.server_rules import ServerRules
from bot.discord.answers import Interaction, answers
from bot.discord.app import App
from bot.discord.commands import Command, Tholos
from bot.discord.controls import Router
from bot.discord.feature import Feature
from bot.discord.venues import guild_id_of, venue_of
from bot.features.pool.service import PoolRatings, PoolService
from bot.features.pool.store import POOL_TOPIC, PoolStore
from bot.features.pool.views import (
    CANCEL,
    JOIN,
    LEAVE,
    PLAY_AI,
    REFRESH,
    left_text,
    opt_in_text,
    opt_in_view,
    pace_of,
)
from bot.features.pool.waiting import Waiters
from bot.features.pool.waves import IDLE_SECONDS, Waves
from bot.i18n.catalogues import NC_, language_of
from bot.i18n.locales import reader, server_language
from bot.loops import work
from bot.loops.loop import Loop
from bot.words.names import mention, plain_name
from bot.words.phrases import command
from engine.vocabulary import N_

PlayTheAi = Callable[[Interaction, GameOptions, Level, str | None], Awaitable[None]]
"""``play_the_ai(interaction, options, level, pace)``: a game against the AI where the member
pressed (the challenges' ``/tholos-ai``)."""
POOL_CLOSED = N_(
    "This server hasn't opened the pool. A server admin can with {settings} — meanwhile "
    "{play} works in our direct messages."
)
LEFT_POOL = N_("You left the pool. {play} asks you again if you want back in.")
NOT_IN_POOL = N_("You weren't in the pool. {play} asks you to join.")


class Pool(Feature):
    """``/tholos play`` and the pool's buttons; the waves."""

    def __init__(self, app: App, play_the_ai: PlayTheAi, ratings: PoolRatings) -> None:
        """``play_the_ai``: a game against the AI, offered to those who waited with nobody;
        ``ratings``: the members' ratings in each pool."""
        super().__init__(app)
        self.service = PoolService(PoolStore(app.database), ratings)
        """The pool as members use it (from Discord, and the live page)."""
        self.play_the_ai = play_the_ai
        self.waiters = Waiters(app, self.service)
        self.waves = Waves(
            app.database, app.stores.leases, ratings, reminders=app.reminder_defaults
        )
        self.joined = work.Wakeup()
        """Set when someone joins the queue (here or, on PostgreSQL, in another process): a
        wave may pair them at once."""
        self._stop_listening: Callable[[], None] | None = None

    def commands(self) -> list[Command]:
        return PoolCommands(self).get_app_commands()

    def register(self, router: Router) -> None:
        router.add(JOIN, self.join)
        router.add(CANCEL, self.cancel)
        router.add(REFRESH, self.refresh)
        router.add(LEAVE, self.leave)
        router.add(PLAY_AI, self.ai)

    def loops(self) -> list[Loop]:
        """The waves: every few seconds while anyone waits, at once after a join."""
        return [Loop("pool", self.waves.round, IDLE_SECONDS, self.joined)]

    async def start(self) -> None:
        """Hear the queue's changes: the waiting messages follow them, a join wakes the
        waves."""
        self._stop_listening = await self.app.database.listen(POOL_TOPIC, self.heard)

    def heard(self, payload: str | None) -> None:
        """A change of the queue, announced."""
        if payload is None or payload.startswith("joined:"):
            self.joined.set()
        self.waiters.heard(payload)

    async def stop(self) -> None:
        if self._stop_listening is not None:
            self._stop_listening()
        self.waiters.close()

    @answers(posts_boards=True)
    async def play(self, interaction: Interaction, pace: str | None) -> None:
        """``/tholos play [pace]``: the opt-in on first use, else wait for ``pace``."""
        chosen = pace_of((await pool_rules(self.app, interaction)).pace(pace))
        user = interaction.user
        if not await self.service.opted_in(user.id):
            t = reader(interaction)
            await interaction.response.send_message(
                opt_in_text(t, global_name(user), chosen),
                view=opt_in_view(t, chosen),
                ephemeral=True,
            )
            return
        await self._wait(interaction, chosen, edit=False)

    @answers(posts_boards=True)
    async def join(self, interaction: Interaction, pace: str) -> None:
        """Join the pool (the opt-in's consent) and wait for ``pace``."""
        chosen = pace_of((await pool_rules(self.app, interaction)).pace(pace))
        await self.service.opt_in(interaction.user.id, global_name(interaction.user))
        await self._wait(interaction, chosen, edit=True)

    async def _wait(self, interaction: Interaction, pace: str, *, edit: bool) -> None:
        """Queue the member for ``pace`` and answer with the waiting message."""
        seat = await seat_of(self.app, interaction)
        self.waiters.expect(seat.user_id)
        try:
            state = await self.service.join(seat, pace, time.time())
        except Exception:
            self.waiters.forget(seat.user_id)
            raise
        await self.waiters.answer(interaction, state, edit=edit)

    @answers()
    async def cancel(self, interaction: Interaction) -> None:
        """Not now: the opt-in is closed, nothing kept."""
        t = reader(interaction)
        await interaction.response.edit_message(
            content=t("Not now, then. {play} asks again.", play=command("tholos play")),
            view=None,
        )

    @answers()
    async def refresh(self, interaction: Interaction) -> None:
        """The waiting message as the queue is now."""
        await self.waiters.refresh(interaction)

    @answers()
    async def leave(self, interaction: Interaction) -> None:
        """Leave the queue (the member stays in the pool)."""
        await self.service.leave(interaction.user.id)
        self.waiters.forget(interaction.user.id)
        await interaction.response.edit_message(content=left_text(reader(interaction)), view=None)

    @answers(posts_boards=True)
    async def ai(self, interaction: Interaction, level: Level, pace: str, rated: int) -> None:
        """Leave the queue and play the AI at the member's level, where they are (``rated``:
        on the pool's scale)."""
        await self.service.leave(interaction.user.id)
        self.waiters.forget(interaction.user.id)
        await self.play_the_ai(interaction, GameOptions(rated=bool(rated)), level, pace)

    @answers()
    async def leave_pool(self, interaction: Interaction) -> None:
        """``/tholos pool leave``: opt out (and out of the queue)."""
        left = await self.service.opt_out(interaction.user.id)
        self.waiters.forget(interaction.user.id)
        said = LEFT_POOL if left else NOT_IN_POOL
        t = reader(interaction)
        await interaction.response.send_message(
            t(said, play=command("tholos play")), ephemeral=True
        )

    @answers()
    async def block(self, interaction: Interaction, member: discord.abc.User, on: bool) -> None:
        """``/tholos pool block|unblock member``."""
        user_id, t = interaction.user.id, reader(interaction)
        if on:
            changed = await self.service.block(user_id, member.id)
            said = (
                t(
                    "You blocked {member}: you'll never be paired, and you won't see their "
                    "challenges.",
                    member=mention(member.id),
                )
                if changed
                else t("You had already blocked {member}.", member=mention(member.id))
            )
        else:
            changed = await self.service.unblock(user_id, member.id)
            said = (
                t("You unblocked {member}.", member=mention(member.id))
                if changed
                else t("You hadn't blocked {member}.", member=mention(member.id))
            )
        await interaction.response.send_message(said, ephemeral=True)


async def pool_rules(app: App, interaction: Interaction) -> ServerRules:
    """The rules where the member is; refused in a server that did not open the pool."""
    rules = await app.rules(guild_id_of(interaction))
    if venue_of(interaction) == "server" and not rules.pool:
        raise Refusal(
            POOL_CLOSED,
            settings=command("tholos-admin settings"),
            play=command("tholos play"),
        )
    return rules


async def seat_of(app: App, interaction: Interaction) -> Seat:
    """Where the member's game is to be shown: their channel in a server with the pool
    open, else their DM with the bot."""
    user, name = interaction.user, global_name(interaction.user)
    venue = venue_of(interaction)
    if venue == "server":
        guild_id = interaction.guild_id or 0
        rules = await app.rules(guild_id)
        guild = interaction.guild
        shown = plain_name(guild.name) if rules.pool_shows_server and guild is not None else None
        language = server_language(interaction)
        return Seat(user.id, name, guild_id, interaction.channel_id or 0, venue, language, shown)
    channel_id = interaction.channel_id or 0
    if venue != "bot_dm":
        channel_id = (await user.create_dm()).id
    return Seat(user.id, name, 0, channel_id, "bot_dm", language_of(interaction.locale))


def global_name(user: discord.abc.User) -> str:
    """How the pool shows a member across servers: their global display name, made plain."""
    return plain_name(user.global_name or user.name)


class PoolCommands(Cog):
    """``/tholos play`` and ``/tholos pool leave|block|unblock``."""

    tholos = Tholos()
    pool = app_commands.Group(
        name=NC_("command", "pool"),
        description=N_("The pool: members of every server"),
        parent=tholos,
    )

    def __init__(self, feature: Pool) -> None:
        self.feature = feature

    @tholos.command(
        name=NC_("command", "play"),
        description=N_("Play now: an opponent from any server, close to your rating"),
    )
    @app_commands.describe(
        pace=N_("Correspondence (no clock), or a live clock: minutes each + seconds a turn"),
    )
    async def play(self, interaction: Interaction, pace: Pace | None = None) -> None:
        """``/tholos play``."""
        await self.feature.play(interaction, pace)

    @pool.command(
        name=NC_("command", "leave"),
        description=N_("Leave the pool: no more pairing with members of other servers"),
    )
    async def leave(self, interaction: Interaction) -> None:
        """``/tholos pool leave``."""
        await self.feature.leave_pool(interaction)

    @pool.command(
        name=NC_("command", "block"),
        description=N_("Never be paired with a member, nor see their challenges"),
    )
    @app_commands.describe(member=N_("The member to block"))
    async def block(self, interaction: Interaction, member: discord.User) -> None:
        """``/tholos pool block``."""
        await self.feature.block(interaction, member, True)

    @pool.command(name=NC_("command", "unblock"), description=N_("Unblock a member"))
    @app_commands.describe(member=N_("The member to unblock"))
    async def unblock(self, interaction: Interaction, member: discord.User) -> None:
        """``/tholos pool unblock``."""
        await self.feature.block(interaction, member, False)
