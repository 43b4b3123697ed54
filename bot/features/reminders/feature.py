"""Turn reminders: when the human player to move has not moved for the server's reminder time,
one message in the game's thread or channel (or by DM, as they chose with
``/tholos settings``) mentions that player alone, says when their opponent may claim the win,
and links the board. One per turn, never for the AI, none once the game ended or the move was
made.

Where the bot is not (:attr:`~bot.base.game.Game.answers_only`: a DM or group DM between
members, a server without the bot) it never posts in the game's channel — Discord would refuse
it: the reminder goes by DM to a player who chose ``dm``, when Discord lets the bot write to
them (a shared server, or their install of the app), else none; a refusal (403/50007) is
logged and the reminder cleared, never retried.

The due time is stored with the change that leaves a human to move (the services, in the same
write). The housekeeping loop of the process that owns the server's shard calls
:meth:`Reminders.sweep`: each due reminder is sent under a lease, after re-reading the game, with
a nonce made of its game and version (Discord drops a second message with the same nonce, so a
resend after a crash between sending and clearing shows nothing new), then cleared with a
compare-and-set on the game's version.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from typing import Final, Literal

import discord
from discord import app_commands
from discord.ext.commands import Cog

from bot.base.game import Game
from bot.base.server_rules import ServerRules
from bot.base.shards import DIRECT_MESSAGES
from bot.discord.answers import Interaction, answers, pinging
from bot.discord.app import App
from bot.discord.commands import Command, Tholos
from bot.discord.feature import Feature
from bot.discord.venues import venue_of
from bot.features.reminders.store import DueReminder, ReminderChoice, ReminderStore
from bot.i18n.catalogues import NC_, translator
from bot.i18n.locales import reader
from bot.loops.background import Backoff, Retries, discord_call, nonce
from bot.loops.loop import Loop
from bot.storage.db import DatabaseUnavailable
from bot.storage.leases import reminder_lease
from bot.words.names import escaped_name, mention
from bot.words.phrases import board_url, channel_url, command, minutes_text
from engine.vocabulary import N_
from rendering.translator import Translator

log = logging.getLogger(__name__)

SWEEP_SECONDS = 30.0
"""The longest the reminders' loop sleeps (a reminder another process stored is seen within
it)."""
BATCH = 50
"""Reminders sent per housekeeping round; with more due, the next round follows at once (so a
thousand idle games' reminders never hold up the loop's other work for long)."""
REMINDER_SPACING = 0.05
"""Seconds between two reminders of one sweep (at most 20 a second): a backlog (a thousand
games gone idle at once, or a restart after a long outage) neither takes the database from the
presses being played nor spends the bot's share of Discord's global rate limit (50 requests a
second) that their boards need."""
REMINDER_BACKOFF = Backoff(first=60.0, tries=3)
"""A reminder Discord does not answer in time (:data:`~bot.loops.background.DISCORD_CALL_SECONDS`)
is tried again 1 and 2 min later (the nonce keeps one that did arrive from showing twice), then
given up."""
CLOSED_DMS = 50007
"""Discord's code for "Cannot send messages to this user" (DMs closed, or no server shared)."""
MARKED = (NC_("command", "reminders"), N_("here"), N_("dm"))
"""The option's name and choices of ``/tholos settings``, for the catalogue."""


Delivery = Literal["sent", "skipped", "postponed"]
"""What became of a due reminder."""


class Reminders(Feature):
    """``/tholos settings`` and sending the reminders that are due."""

    def __init__(self, app: App, backoff: Backoff = REMINDER_BACKOFF) -> None:
        super().__init__(app)
        self.store = ReminderStore(app.database, app.settings.shards)
        self._sent: set[tuple[int, int]] = set()
        """Reminders sent whose clearing failed (a database outage): cleared, never resent."""
        self.timeouts: Retries[tuple[int, int]] = Retries("reminder (game, version)", backoff)
        """Reminders Discord did not answer in time, by game and version."""
        self.delivery = ReminderDelivery(app, self.store)

    def commands(self) -> list[Command]:
        return ReminderCommands(self).get_app_commands()

    def loops(self) -> list[Loop]:
        """Sends the reminders that are due; sleeps until the next (a change that stores one
        due sooner rings the alarm)."""
        return [Loop("reminders", self.sweep, SWEEP_SECONDS, alarm=self.app.reminder_alarm)]

    @answers()
    async def settings(self, interaction: Interaction, choice: ReminderChoice | None) -> None:
        """``/tholos settings [reminders]``: show, or change, where the member's reminders go."""
        user_id = interaction.user.id
        if choice is None:
            shown = await self.store.choice(user_id)
        else:
            await self.store.choose(user_id, choice, time.time())
            shown = choice
        after = None
        if interaction.guild_id is not None and venue_of(interaction) == "server":
            after = (await self.app.rules(interaction.guild_id)).reminder_after
        outside = (await self.app.rules(DIRECT_MESSAGES)).reminder_after
        text = reminder_settings_text(
            reader(interaction), shown, after, outside, changed=choice is not None
        )
        await interaction.response.send_message(text, ephemeral=True)

    async def sweep(self) -> float | None:
        """Send the reminders due on this process's servers, oldest first, at most
        :data:`BATCH`; return when to look again: the next due time, when a lease held
        elsewhere runs out, or now if more are due (``None``: nothing is pending)."""
        now = time.time()
        due = await self.store.due(now, BATCH)
        wake_at, handled = math.inf, 0
        for reminder in due:  # this process's servers only
            if handled:  # paced: the presses being played come first
                await asyncio.sleep(REMINDER_SPACING)
            held_until = await self._remind(reminder)
            if held_until is None:
                handled += 1
            else:  # being sent elsewhere, or its sender died
                wake_at = min(wake_at, held_until)
        if len(due) == BATCH and handled:
            return now
        following = await self.store.next_due(now)
        if following is not None:
            wake_at = min(wake_at, following)
        return None if wake_at == math.inf else wake_at

    async def _remind(self, reminder: DueReminder) -> float | None:
        """Send one reminder, under its lease, if its game still waits for that turn; clear it.
        Returns when the lease runs out if another process holds it."""
        key = (reminder.game_id, reminder.version)
        lease = reminder_lease(*key)
        if key in self._sent:  # sent before an outage kept it from being cleared
            await self.store.clear(*key, lease)
            self._sent.discard(key)
            return None
        leases = self.app.stores.leases
        if not await leases.acquire(lease, time.time()):
            return await leases.expires_at(lease) or time.time()
        try:
            game = await self.app.stores.games.game(reminder.game_id)
            if game is not None:  # where the player to move sees it
                game = await self.app.stores.games.places.seen_by(game, game.to_move)
            if (
                game is None
                or not game.is_active
                or game.version != reminder.version
                or game.reminder_due_at is None
            ):
                await leases.release(lease)  # moved, ended or sent meanwhile
                return None
            delivered = await self.delivery.deliver(game)
            if delivered == "postponed":
                await leases.release(lease)
                return None
            if delivered == "sent":
                self._sent.add(key)
            await self.store.clear(*key, lease)
            self._sent.discard(key)
            self.timeouts.succeeded(key)
        except DatabaseUnavailable:
            raise  # the next round tries again; the lease runs out by itself
        except TimeoutError:  # Discord hangs: the sweep goes on, this one waits its turn
            again_at = self.timeouts.failed(key, time.time(), "Discord did not answer in time")
            if again_at is None:
                await self.store.clear(*key, lease)
            else:
                await self.store.postpone(*key, again_at)
                await leases.release(lease)
        except discord.HTTPException as error:  # e.g. a permission taken away: not retried
            log.warning("could not send the reminder of game %s v%s: %s", *key, error)
            await self.store.clear(*key, lease)
        except Exception:
            log.exception("the reminder of game %s v%s failed; not retried", *key)
            await self.store.clear(*key, lease)
        return None


class ReminderDelivery:
    """Where a due reminder goes: by DM or in the game's thread or channel, as its player
    chose (or nowhere: the AI to move, reminders off, or later than first stored); where the bot
    is not, by DM only."""

    def __init__(self, app: App, store: ReminderStore) -> None:
        self.app = app
        self.store = store

    async def deliver(self, game: Game) -> Delivery:
        """Remind the player to move in ``game`` where they chose, unless the AI is to move or
        reminders are off (on the server, or for the player): ``skipped``; or the server's
        reminder time grew since this one was stored: ``postponed`` to its new time."""
        if game.is_ai_turn(self.app.bot_id):  # never stored for the AI: a guard
            return "skipped"
        rules = await self.app.rules(game.guild_id)
        if rules.reminder_after <= 0:
            log.debug(
                "reminders are off on server %s: game %s not reminded", game.guild_id, game.id
            )
            return "skipped"
        due_at = game.last_move_at + rules.reminder_after
        if due_at > time.time():  # the sweep's next look finds its new time
            await self.store.postpone(game.id, game.version, due_at)
            return "postponed"
        choice = await self.store.choice(game.to_move)
        if choice == "off":
            log.debug("player %s wants no reminders: game %s not reminded", game.to_move, game.id)
            return "skipped"
        if game.answers_only:
            return await self._outside(game, rules, choice)
        in_dms = game.guild_id == DIRECT_MESSAGES  # its channel is the DM already
        if not (choice == "dm" and not in_dms and await self._direct(game, rules)):
            await self._post(game, rules)
        return "sent"

    async def _outside(self, game: Game, rules: ServerRules, choice: ReminderChoice) -> Delivery:
        """A game where the bot is not: never in its channel (Discord refuses the bot there),
        by DM to a player who chose ``dm`` if Discord lets the bot write to them, else none."""
        if choice != "dm":
            log.debug("game %s is where the bot is not: no reminder %s", game.id, choice)
            return "skipped"
        text = outside_reminder_text(
            translator(game.language), game, self._claim_at(game, rules), time.time()
        )
        return "sent" if await self._send_direct(game, text) else "skipped"

    async def _direct(self, game: Game, rules: ServerRules) -> bool:
        """The reminder of a server's game by DM; ``False`` when Discord refuses it (closed
        DMs), and the game's channel gets it instead."""
        guild = self.app.client.get_guild(game.guild_id)
        text = reminder_text(
            translator(game.language),
            game,
            self._claim_at(game, rules),
            time.time(),
            direct=True,
            server=guild.name if guild is not None else str(game.guild_id),
        )
        return await self._send_direct(game, text)

    async def _send_direct(self, game: Game, text: str) -> bool:
        """Send ``text`` to the player to move by DM; ``False`` (logged) when Discord refuses
        it (403/50007: closed DMs, or no shared server and no install of the app)."""
        client = self.app.client
        try:
            channel = await discord_call(client.create_dm(discord.Object(game.to_move)))
            await discord_call(
                channel.send(
                    text,
                    allowed_mentions=pinging((game.to_move,)),
                    nonce=nonce("rd", game.id, game.version),
                )
            )
        except discord.HTTPException as error:
            if error.code != CLOSED_DMS:
                raise
            log.info(
                "player %s's DMs are closed to the bot: game %s's reminder not sent by DM",
                game.to_move,
                game.id,
            )
            return False
        log.info("reminded player %s of game %s v%s by DM", game.to_move, game.id, game.version)
        return True

    async def _post(self, game: Game, rules: ServerRules) -> None:
        """The reminder in the game's thread or channel."""
        channel = self.app.client.get_partial_messageable(game.channel_id)
        text = reminder_text(
            translator(game.language), game, self._claim_at(game, rules), time.time()
        )
        await discord_call(
            channel.send(
                text,
                allowed_mentions=pinging((game.to_move,)),
                nonce=nonce("rt", game.id, game.version),
            )
        )
        log.info("reminded player %s of game %s v%s", game.to_move, game.id, game.version)

    @staticmethod
    def _claim_at(game: Game, rules: ServerRules) -> float | None:
        """When the opponent may claim the win (``None`` against the AI: it never claims)."""
        if game.ai_level is not None:
            return None
        return game.last_move_at + rules.inactivity_timeout


class ReminderCommands(Cog):
    """``/tholos settings``."""

    tholos = Tholos()

    def __init__(self, reminders: Reminders) -> None:
        self.reminders = reminders

    @tholos.command(
        name=NC_("command", "settings"),
        description=N_("Your own Tholos settings: where your turn reminders go"),
    )
    @app_commands.describe(
        reminders=N_("off, here (in the game's thread or channel) or dm (by direct message)")
    )
    async def settings(
        self, interaction: Interaction, reminders: ReminderChoice | None = None
    ) -> None:
        """``/tholos settings [reminders]``."""
        await self.reminders.settings(interaction, reminders)


# -- what it says -------------------------------------------------------------------------------


REMINDER_CHOICES: Final = {
    "off": N_("off — no reminders"),
    "here": N_("here — in the game's thread or channel"),
    "dm": N_("dm — by direct message (in the game's thread when your DMs are closed)"),
}
"""What each choice of ``/tholos settings reminders`` means."""


def reminder_text(
    t: Translator,
    game: Game,
    claim_at: float | None,
    now: float,
    *,
    direct: bool = False,
    server: str = "?",
) -> str:
    """The turn reminder of the player to move: the game, a link to its board, and when the
    opponent may claim the win (``claim_at``, a Discord timestamp every reader sees in their
    own time; ``None`` against the AI, which never claims; by ``now``, they may already).
    ``direct``: it goes by direct message, so it also says where the game is played (on
    ``server``, the server's name)."""
    player, opponent = mention(game.to_move), escaped_name(game.name(1 - game.position.turn))
    link = board_url(game)
    if claim_at is None:
        text = t(
            "⏰ {player}, your game against {opponent} is waiting for your move: "
            "[go to the board]({link}).",
            player=player,
            opponent=opponent,
            link=link,
        )
    elif claim_at <= now:
        text = t(
            "⏰ {player}, it's your turn against {opponent}: [go to the board]({link}). They "
            "may already claim the win.",
            player=player,
            opponent=opponent,
            link=link,
        )
    else:
        text = t(
            "⏰ {player}, it's your turn against {opponent}: [go to the board]({link}). They "
            "may claim the win {when} if you haven't moved by then.",
            player=player,
            opponent=opponent,
            link=link,
            when=f"<t:{int(claim_at) + 1}:R>",
        )
    if direct:
        place = channel_url(game.guild_id, game.channel_id)
        text += "\n" + t(
            "The game is played on {server}: {place}. {settings} changes where your reminders go.",
            server=escaped_name(server),
            place=place,
            settings=command("tholos settings"),
        )
    return text


OUTSIDE_PLACES: Final = {
    "dm": N_(
        "The game is in your direct messages: {place}. Press a button of its board there, or "
        "use {board} there, to see it."
    ),
    "group_dm": N_(
        "The game is in a group DM: {place}. Press a button of its board there, or use {board} "
        "there, to see it."
    ),
    "server_without_bot": N_(
        "The game is in a server I'm not a member of. Press a button of its board there, or "
        "use {board} in its channel, to see it."
    ),
}
"""Where a game the bot is not in is played, in its reminder by DM (a DM or group DM has a
link; a server without the bot has none: its id is not stored)."""


def outside_reminder_text(t: Translator, game: Game, claim_at: float | None, now: float) -> str:
    """The turn reminder, by DM, of a game where the bot is not (it can only answer presses
    there): as :func:`reminder_text` says it, and where the game is and how to see its board."""
    player, opponent = mention(game.to_move), escaped_name(game.name(1 - game.position.turn))
    if claim_at is None:
        text = t(
            "⏰ {player}, your game against {opponent} is waiting for your move.",
            player=player,
            opponent=opponent,
        )
    elif claim_at <= now:
        text = t(
            "⏰ {player}, it's your turn against {opponent}. They may already claim the win.",
            player=player,
            opponent=opponent,
        )
    else:
        text = t(
            "⏰ {player}, it's your turn against {opponent}. They may claim the win {when} if "
            "you haven't moved by then.",
            player=player,
            opponent=opponent,
            when=f"<t:{int(claim_at) + 1}:R>",
        )
    where = t(OUTSIDE_PLACES[game.venue], place=board_url(game), board=command("tholos board"))
    settings = t("{settings} changes where your reminders go.", settings=command("tholos settings"))
    return f"{text}\n{where} {settings}"


def reminder_settings_text(
    t: Translator,
    choice: str,
    reminder_after: float | None,
    outside_after: float,
    *,
    changed: bool,
) -> str:
    """``/tholos settings``: where the reader's turn reminders go (``changed``: just saved);
    in a server with the bot, after how long without a move (``reminder_after``; 0: off
    there); and what becomes of them in games where the bot is not (reminded after
    ``outside_after``; 0: off), which only a DM can reach."""
    chosen = t(REMINDER_CHOICES[choice])
    lines = [
        t("Saved. Your turn reminders: {choice}.", choice=chosen)
        if changed
        else t("Your turn reminders: {choice}.", choice=chosen)
    ]
    if reminder_after is not None and choice != "off":
        lines.append(
            t(
                "On this server they come after {time} without a move.",
                time=minutes_text(t, reminder_after),
            )
            if reminder_after > 0
            else t("This server has turned turn reminders off.")
        )
    if choice != "off":
        lines.append(outside_settings_text(t, choice, outside_after))
    lines.append(
        t(
            "Choose with {settings} (reminders: off, here or dm).",
            settings=command("tholos settings"),
        )
    )
    return "\n".join(lines)


def outside_settings_text(t: Translator, choice: str, after: float) -> str:
    """What ``choice`` means in games where the bot is not (a DM or group DM between members,
    a server without it): it cannot post there, so only a DM reminds, when Discord allows it."""
    if after <= 0:
        return t("Games played where I'm not a member get no turn reminders.")
    if choice == "dm":
        return t(
            "In games played where I'm not a member (a DM between friends, a group DM, a server "
            "without me) they come by direct message after {time} without a move, if Discord "
            "lets me write to you: we share a server, or you added me to your account, and your "
            "DMs are open.",
            time=minutes_text(t, after),
        )
    return t(
        "In games played where I'm not a member (a DM between friends, a group DM, a server "
        "without me) I can't post, so you get no reminders there: choose dm to get them by "
        "direct message."
    )
