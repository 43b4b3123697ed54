"""What every feature of one bot process shares: settings, the shared stores, boards, the
interactions under way — built once, by :func:`build`."""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass
from typing import Any

import discord

from bot.base.paces import CORRESPONDENCE, offered_clocks, offers
from bot.base.server_rules import PYTHON, ReminderDefaults, ServerRules, time_in_force
from bot.base.settings import Settings
from bot.discord.answers import Interactions
from bot.discord.places import Places
from bot.discord.poster import BoardPoster, bot_id_of
from bot.discord.visibility import Visibility
from bot.loops.alarm import Alarm
from bot.storage.db import Database
from bot.storage.games.store import GameStore
from bot.storage.leases import LeaseStore
from bot.storage.listings import GameListings
from bot.storage.servers import ServerSettings, ServerSettingsStore
from bot.storage.sweeps import Sweeps
from bot.workers.ai import Adviser
from bot.workers.renderer import Renderer


@dataclass(frozen=True, slots=True)
class Stores:
    """The stores the features share, each built once (a feature builds its own stores)."""

    games: GameStore
    listings: GameListings
    """Pages and choices of games for members to browse."""
    sweeps: Sweeps
    """What this process's background loops look for, on its own servers."""
    leases: LeaseStore
    servers: ServerSettingsStore

    @classmethod
    def over(cls, database: Database, settings: Settings) -> Stores:
        holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        return cls(
            games=GameStore(database),
            listings=GameListings(database),
            sweeps=Sweeps(database, settings.shards),
            leases=LeaseStore(database, holder),
            servers=ServerSettingsStore(database),
        )


@dataclass(frozen=True, slots=True)
class App:
    """The shared parts of one bot process (built once by the client's ``setup_hook``); each
    feature builds its own store and service over them (:mod:`bot.features.installed`)."""

    client: discord.Client
    settings: Settings
    database: Database
    stores: Stores
    renderer: Renderer
    """Draws boards, replays and charts off the event loop."""
    places: Places
    """Where games live: threads, the channel's line, moving a game whose thread is gone."""
    poster: BoardPoster
    """Posts and records board messages."""
    interactions: Interactions
    reminder_alarm: Alarm
    """Rung with the due time of every reminder a change stores (the reminders' loop sleeps
    on it)."""
    flag_alarm: Alarm
    """Rung when a live clock starts, with when it runs out (the clocks' loop sleeps on
    it)."""
    adviser: Adviser
    """Finds hints and the analysis board's best turns, in a worker process."""
    visibility: Visibility
    """Who may see a game or a challenge (its players, the members who see its channel): one
    memory of Discord's answers for every feature."""

    @property
    def bot_id(self) -> int | None:
        """The bot's own user id (the AI plays under it), once connected."""
        return bot_id_of(self.client)

    @property
    def reminder_defaults(self) -> ReminderDefaults:
        """The bot's turn-reminder defaults (``THOLOS_REMINDER_AFTER``, the idle-claim time)."""
        return ReminderDefaults(self.settings.reminder_after, self.settings.inactivity_timeout)

    async def rules(self, guild_id: int) -> ServerRules:
        """The settings in force on a server: its admins' choices over the environment's."""
        chosen = await self.stores.servers.get(guild_id)
        settings = self.settings
        return ServerRules(
            threads=settings.threads if chosen.threads is None else chosen.threads,
            inactivity_timeout=time_in_force(
                PYTHON, chosen.inactivity_timeout, settings.inactivity_timeout
            ),
            challenge_timeout=time_in_force(
                PYTHON, chosen.challenge_timeout, settings.challenge_timeout
            ),
            default_mode=chosen.default_mode or "basic",
            reminder_after=self.reminder_defaults.resolve(
                chosen.reminder_after, chosen.inactivity_timeout
            ),
            **paces_in_force(chosen, settings),
            puzzle_channel=chosen.puzzle_channel,
            pool=chosen.pool,
            pool_shows_server=chosen.pool_shows_server,
        )

    async def close(self) -> None:
        """Stop what the shared parts run: the boards being posted, the adviser, the renderer."""
        await self.poster.background.drain(CLOSE_SECONDS)
        self.adviser.close()
        self.renderer.close()


CLOSE_SECONDS = 10.0
"""How long a shutdown waits for the boards being posted from the background."""


def build(
    client: discord.Client,
    settings: Settings,
    database: Database,
    renderer: Renderer | None = None,
) -> App:
    """Wire the shared stores and parts of one process over ``database`` (``renderer``: the
    boards' drawing, by default in a worker process of its own)."""
    stores = Stores.over(database, settings)
    renderer, places = renderer or Renderer(), Places(client, stores.games)
    flag_alarm = Alarm()
    live = settings.web_port is not None
    poster = BoardPoster(
        client, stores.games, stores.leases, renderer, places, live=live, alarm=flag_alarm.ring
    )
    return App(
        client=client,
        settings=settings,
        database=database,
        stores=stores,
        renderer=renderer,
        places=places,
        poster=poster,
        interactions=Interactions(),
        reminder_alarm=Alarm(),
        flag_alarm=flag_alarm,
        adviser=Adviser(),
        visibility=Visibility(client),
    )


def paces_in_force(chosen: ServerSettings, settings: Settings) -> dict[str, Any]:
    """The clocks a server offers and its default pace: its admins' choices over the bot's. A
    default the offered clocks no longer include falls back to correspondence."""
    clocks = settings.clocks if chosen.clocks is None else offered_clocks(chosen.clocks)
    pace = chosen.default_pace or settings.default_pace
    if not offers(pace, clocks):
        pace = CORRESPONDENCE
    return {"clocks": clocks, "default_pace": pace}
