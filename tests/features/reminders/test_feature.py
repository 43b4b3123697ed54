"""Sending turn reminders, on both backends with a fake Discord: where the bot is not (a DM or
group DM between members, a server without the bot) nothing is ever sent to the game's
channel; a player who chose ``dm`` gets the reminder by DM, others get none; a DM Discord
refuses (403/50007) is noted and cleared, never retried. What ``/tholos settings`` says of
those games."""

from __future__ import annotations

import logging
import re
import time
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.base.game import GamePlace, NewGame, Venue
from bot.base.people import Person
from bot.base.server_rules import ReminderDefaults
from bot.base.shards import DIRECT_MESSAGES
from bot.features.reminders.feature import (
    Reminders,
    outside_reminder_text,
    reminder_settings_text,
)
from bot.features.reminders.store import ReminderChoice, ReminderStore
from bot.i18n.catalogues import translator
from bot.storage.db import Database
from bot.storage.games.changes import insert_game
from engine.newgame import new_game
from tests.discord_fakes import FakeChannel, FakeDiscord, fake_app

ALICE, BOB, CAROL = 100, 200, 300
DAY = 86400.0
OUTSIDE: tuple[Venue, ...] = ("dm", "group_dm", "server_without_bot")


class RecordingDiscord(FakeDiscord):
    """A fake Discord that notes every channel the bot sends a request to, and refuses DMs
    to the users in :attr:`closed` as Discord does (403, 50007)."""

    def __init__(self) -> None:
        super().__init__()
        self.called: list[int] = []
        self.closed: set[int] = set()

    async def answer(self, channel_id: int) -> None:
        self.called.append(channel_id)
        await super().answer(channel_id)

    async def create_dm(self, user: Any) -> FakeChannel:
        if user.id in self.closed:
            return ClosedDm(self, -user.id)
        return await super().create_dm(user)


class ClosedDm(FakeChannel):
    """The DM of a user who closed their DMs to the bot (or shares nothing with it)."""

    async def send(self, content: str | None = None, **options: Any) -> Any:
        await self.discord.answer(self.id)
        response = SimpleNamespace(status=403, reason="Forbidden")
        raise discord.Forbidden(
            response,  # type: ignore[arg-type]
            {"code": 50007, "message": "Cannot send messages to this user"},
        )


async def due_game(database: Database, venue: Venue, channel: int, to_move: int) -> int:
    """A game between ``to_move`` (White, to move) and Carol at ``venue`` (server id 0: the
    bot is not there), idle for a day: its reminder is due."""
    started = time.time() - DAY
    new = NewGame(
        GamePlace(DIRECT_MESSAGES, channel, venue=venue),
        Person(to_move, f"Player {to_move}"),
        Person(CAROL, "Carol"),
        7,
        new_game(),
    )
    async with database.transaction() as transaction:
        game = await insert_game(
            transaction, new, now=started, reminders=ReminderDefaults(None, DAY)
        )
    assert game.reminder_due_at is not None and game.reminder_due_at < time.time()
    assert game.answers_only and game.guild_id == DIRECT_MESSAGES
    return game.id


async def pending(database: Database) -> list[int]:
    rows = await database.fetchall("SELECT id FROM games WHERE reminder_due_at IS NOT NULL")
    return [row[0] for row in rows]


@pytest.mark.parametrize("venue", OUTSIDE)
async def test_where_the_bot_is_not_a_reminder_goes_by_dm_to_who_chose_it_and_nowhere_else(
    database: Database, venue: Venue
) -> None:
    """Three games there, the player to move choosing ``dm``, ``here`` and ``off``: only the
    first is reminded, by DM, pinging them alone; no request ever goes to a game's channel;
    every reminder is cleared."""
    fake = RecordingDiscord()
    app = fake_app(database, fake)
    store = ReminderStore(database)
    choices: dict[int, ReminderChoice] = {ALICE: "dm", BOB: "here", BOB + 1: "off"}
    channels = {}
    for number, (player, choice) in enumerate(choices.items()):
        await store.choose(player, choice, 1.0)
        channels[player] = 5_000 + number
        await due_game(database, venue, channels[player], player)
    await Reminders(app).sweep()
    assert fake.called == [-ALICE], "the DM alone: never a game's channel"
    [sent] = fake.in_channel(-ALICE)
    content = sent.sent["content"]
    assert content.startswith(f"⏰ <@{ALICE}>, it's your turn against Carol.")
    assert re.findall(r"<@!?&?(\d+)>", content) == [str(ALICE)]
    assert [user.id for user in sent.sent["allowed_mentions"].users] == [ALICE]
    assert sent.sent["nonce"].startswith("rd.")
    assert await pending(database) == []


async def test_a_refused_dm_is_noted_and_not_retried(
    database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord refuses the DM (403/50007: DMs closed, or no shared server and no install):
    the refusal is logged, the reminder cleared, nothing goes to the game's channel, and the
    next sweeps send nothing more."""
    fake = RecordingDiscord()
    fake.closed.add(ALICE)
    app = fake_app(database, fake)
    await ReminderStore(database).choose(ALICE, "dm", 1.0)
    game = await due_game(database, "dm", 5_000, ALICE)
    reminders = Reminders(app)
    caplog.set_level(logging.INFO)
    await reminders.sweep()
    assert fake.called == [-ALICE] and fake.in_channel(-ALICE) == []
    assert f"player {ALICE}'s DMs are closed to the bot: game {game}" in caplog.text
    assert await pending(database) == []
    await reminders.sweep()
    assert fake.called == [-ALICE], "tried once"


@pytest.mark.parametrize("venue", OUTSIDE)
async def test_the_reminder_of_a_game_where_the_bot_is_not_says_where_and_how_to_see_it(
    database: Database, venue: Venue
) -> None:
    """The player to move alone is mentioned; the claim time is a Discord timestamp (or has
    come, or the AI never claims); a DM or group DM is linked (``@me``), a server without the
    bot is not (its id is not kept); ``/tholos board`` and ``/tholos settings`` are named."""
    game_id = await due_game(database, venue, 5_000, ALICE)
    game = await fake_app(database).stores.games.game(game_id)
    assert game is not None
    t, now = translator("en"), time.time()
    text = outside_reminder_text(t, game, now + DAY, now)
    assert re.findall(r"<@!?&?(\d+)>", text) == [str(ALICE)]
    assert f"<t:{int(now + DAY) + 1}:R>" in text
    assert "/tholos board" in text and "/tholos settings" in text
    link = "https://discord.com/channels/@me/5000"
    assert (link in text) == (venue != "server_without_bot")
    assert "https://" not in text or venue != "server_without_bot"
    assert "already claim" in outside_reminder_text(t, game, now, now)
    assert "waiting for your move" in outside_reminder_text(t, game, None, now)


def test_settings_say_what_happens_in_games_where_the_bot_is_not() -> None:
    """``/tholos settings``, wherever it is used: ``dm`` reminds there by DM when Discord lets
    the bot write (a shared server or the app added to the account), after the time in force
    there; ``here`` reminds nobody there and says to choose ``dm``; ``off`` says nothing more;
    reminders turned off for the bot say so. In a server with the bot, its own time too."""
    t = translator("en")
    dm = reminder_settings_text(t, "dm", None, 3600.0, changed=False)
    assert "where I'm not a member" in dm and "by direct message after 60 minutes" in dm
    assert "added me to your account" in dm and "On this server" not in dm
    here = reminder_settings_text(t, "here", 600.0, 3600.0, changed=True)
    assert here.startswith("Saved.") and "On this server they come after 10 minutes" in here
    assert "you get no reminders there: choose dm" in here
    off = reminder_settings_text(t, "off", 600.0, 3600.0, changed=False)
    assert "where I'm not a member" not in off and "On this server" not in off
    none = reminder_settings_text(t, "dm", None, 0.0, changed=False)
    assert "Games played where I'm not a member get no turn reminders." in none
