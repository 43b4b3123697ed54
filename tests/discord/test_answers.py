"""Answering interactions (``bot.discord.answers``): a handler's refusal becomes one polite
ephemeral answer in the reader's language and nothing else; an error, the database's
troubles, a shutdown, a direct message or a channel without the permissions to post boards
each have their answer; the handler owes its answer within Discord's 3 s."""

from __future__ import annotations

import asyncio
import datetime
import time
from dataclasses import dataclass, field
from typing import Any

import discord
import pytest

from bot.base.answer_deadline import answer_by
from bot.base.refusals import Refusal
from bot.discord.answers import (
    ALREADY_ANSWERED,
    ANSWER_WITHIN,
    CANNOT_SAVE,
    DATABASE_BUSY,
    DATABASE_UNAVAILABLE,
    RESTARTING,
    SOMETHING_WENT_WRONG,
    USERS_ONLY,
    Interactions,
    answers,
    database_trouble,
    pinging,
)
from bot.discord.visibility import NO_SUCH_GAME
from bot.health.metrics import METRICS
from bot.i18n.locales import translator_for
from bot.storage.db import DatabaseBusy, DatabaseCannotWrite, DatabaseUnavailable

SPANISH = discord.Locale.spain_spanish


@dataclass
class FakeResponse:
    """An interaction's first answer: what was sent, and whether it was acknowledged."""

    sent: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    done: bool = False

    def is_done(self) -> bool:
        return self.done

    async def send_message(self, text: str, **options: Any) -> None:
        self.sent.append((text, options))
        self.done = True

    async def defer(self, **options: Any) -> None:
        self.done = True


@dataclass
class FakeFollowup:
    """The followup messages of an acknowledged interaction."""

    sent: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def send(self, text: str, **options: Any) -> None:
        self.sent.append((text, options))


@dataclass
class FakeUser:
    id: int = 11


@dataclass
class FakeInteraction:
    """What :func:`answers` reads of an interaction, and the answers it got."""

    guild_id: int | None = 5
    channel_id: int = 6
    locale: discord.Locale = SPANISH
    app_permissions: discord.Permissions = field(default_factory=discord.Permissions.all)
    id: int = 77
    user: FakeUser = field(default_factory=FakeUser)
    created_at: datetime.datetime = field(
        default_factory=lambda: datetime.datetime.now(datetime.UTC)
    )
    response: FakeResponse = field(default_factory=FakeResponse)
    followup: FakeFollowup = field(default_factory=FakeFollowup)
    context: discord.app_commands.AppCommandContext = field(
        default_factory=lambda: discord.app_commands.AppCommandContext(guild=True)
    )
    channel: None = None
    guild_installed: bool = True
    """The server added the bot (else a member's install of the app runs it there)."""

    def is_guild_integration(self) -> bool:
        return self.guild_id is not None and self.guild_installed

    def answers(self) -> list[tuple[str, dict[str, Any]]]:
        """Every answer sent, first the response, then the followups."""
        return self.response.sent + self.followup.sent


class Feature:
    """A feature whose handlers do what each test asks."""

    def __init__(self) -> None:
        self.interactions = Interactions()
        self.ran: list[str] = []
        self.deadline: float | None = None

    @answers()
    async def refuse(self, interaction: Any, deferred: bool) -> None:
        self.ran.append("refuse")
        if deferred:
            await interaction.response.defer(ephemeral=True)
        raise Refusal(NO_SUCH_GAME)

    @answers()
    async def fail(self, interaction: Any, error: Exception) -> None:
        self.ran.append("fail")
        raise error

    @answers()
    async def note_the_deadline(self, interaction: Any) -> None:
        self.ran.append("note_the_deadline")
        self.deadline = answer_by()

    @answers(server_only=True, posts_boards=True)
    async def post_a_board(self, interaction: Any) -> None:
        self.ran.append("post_a_board")


def counted(handler: str, outcome: str) -> float:
    """How many interactions of ``Feature.<handler>`` ended with ``outcome``."""
    return METRICS.interactions.labels(f"Feature.{handler}", outcome)._value.get()


@pytest.mark.parametrize("deferred", [False, True])
async def test_a_refusal_is_one_ephemeral_answer_in_the_reader_s_language(deferred):
    """The refusal's sentence, in Spanish for a Spanish reader, to them alone and pinging no
    role: as the response, or as a followup once the handler acknowledged the press."""
    feature, interaction = Feature(), FakeInteraction()
    before = counted("refuse", "refused")
    await feature.refuse(interaction, deferred)
    spanish = translator_for(SPANISH)(NO_SUCH_GAME)
    assert spanish != NO_SUCH_GAME
    assert interaction.answers() == [(spanish, {"ephemeral": True, "allowed_mentions": USERS_ONLY})]
    assert interaction.followup.sent if deferred else interaction.response.sent
    assert counted("refuse", "refused") == before + 1


async def test_an_unexpected_error_is_answered_and_counted():
    feature, interaction = Feature(), FakeInteraction(locale=discord.Locale.american_english)
    before = counted("fail", "error")
    await feature.fail(interaction, KeyError("a bug"))
    assert [text for text, _ in interaction.answers()] == [SOMETHING_WENT_WRONG]
    assert counted("fail", "error") == before + 1


async def test_an_interaction_another_process_answered_gets_no_second_answer():
    """During a handoff both processes of a shard get the press: the one whose answer Discord
    refuses (already answered) says nothing more."""
    feature, interaction = Feature(), FakeInteraction()
    response = type("Response", (), {"status": 400, "reason": "Bad Request"})()
    error = discord.HTTPException(response, {"code": ALREADY_ANSWERED, "message": "answered"})
    before = counted("fail", "answered_elsewhere")
    await feature.fail(interaction, error)
    assert interaction.answers() == []
    assert counted("fail", "answered_elsewhere") == before + 1


@pytest.mark.parametrize(
    ("error", "sentence"),
    [
        (DatabaseCannotWrite("database or disk is full"), CANNOT_SAVE),
        (DatabaseBusy("locked"), DATABASE_BUSY),
        (DatabaseUnavailable("gone"), DATABASE_UNAVAILABLE),
    ],
)
async def test_the_database_s_trouble_is_told_as_such(error, sentence):
    feature, interaction = Feature(), FakeInteraction(locale=discord.Locale.american_english)
    await feature.fail(interaction, error)
    assert [text for text, _ in interaction.answers()] == [sentence]


@pytest.mark.parametrize(
    ("error", "outcome", "sentence"),
    [
        (DatabaseCannotWrite("database or disk is full"), "database_cannot_write", CANNOT_SAVE),
        (DatabaseBusy("locked"), "database_busy", DATABASE_BUSY),
        (DatabaseUnavailable("gone"), "database_unavailable", DATABASE_UNAVAILABLE),
    ],
)
def test_each_database_trouble_has_its_outcome_and_sentence(error, outcome, sentence):
    assert database_trouble(error) == (outcome, sentence)


async def test_the_handler_owes_its_answer_within_discord_s_three_seconds():
    """While the handler runs, the database's waits end by :data:`ANSWER_WITHIN` from its
    start (:func:`answer_by`); after it, the task owes nothing."""
    feature = Feature()
    began = time.monotonic()
    await feature.note_the_deadline(FakeInteraction())
    assert feature.deadline is not None
    assert began + ANSWER_WITHIN <= feature.deadline <= time.monotonic() + ANSWER_WITHIN < began + 3
    assert answer_by() is None


async def test_while_shutting_down_a_press_is_told_to_wait_and_not_run():
    feature, interaction = Feature(), FakeInteraction()
    await feature.interactions.drain(0)
    await feature.refuse(interaction, False)
    assert feature.ran == []
    assert [text for text, _ in interaction.answers()] == [translator_for(SPANISH)(RESTARTING)]


async def test_a_shutdown_waits_for_the_interactions_under_way():
    """:meth:`Interactions.drain` refuses new ones and returns once those running end."""
    interactions = Interactions()
    release = asyncio.Event()

    async def press() -> None:
        with interactions.running():
            await release.wait()

    running = asyncio.create_task(press())
    await asyncio.sleep(0)
    draining = asyncio.create_task(interactions.drain(60))
    await asyncio.sleep(0.05)
    assert interactions.closing and not draining.done()
    release.set()
    await asyncio.wait_for(draining, 5)
    await running


async def test_a_server_only_handler_refuses_a_direct_message():
    feature, interaction = (
        Feature(),
        FakeInteraction(
            guild_id=None,
            locale=discord.Locale.american_english,
            context=discord.app_commands.AppCommandContext(dm_channel=True),
        ),
    )
    await feature.post_a_board(interaction)
    assert feature.ran == []
    [(text, _)] = interaction.answers()
    assert text.startswith("That works in server channels")


@pytest.mark.parametrize(
    "where",
    [
        FakeInteraction(guild_installed=False),  # a server that never added the bot
        FakeInteraction(  # a DM between members, or a group DM
            guild_id=None, context=discord.app_commands.AppCommandContext(private_channel=True)
        ),
    ],
    ids=["server without the bot", "DM between members"],
)
async def test_a_server_only_handler_refuses_where_the_bot_is_not(where: FakeInteraction):
    """A member's install of the app runs commands where the bot is not: one that needs the
    bot's server says so, and what works there instead (no permission is asked for: the bot
    posts nothing there)."""
    feature = Feature()
    where.locale = discord.Locale.american_english
    where.app_permissions = discord.Permissions.none()
    await feature.post_a_board(where)
    assert feature.ran == []
    [(text, options)] = where.answers()
    assert text.startswith("That works only in servers that added me"), text
    assert "/tholos challenge" in text and options["ephemeral"] is True
    assert options["ephemeral"] is True


async def test_a_channel_without_the_permissions_to_post_boards_is_refused_naming_them():
    """The names as Discord's UI shows them in the reader's language; the handler never runs."""
    lacking = discord.Permissions.all()
    lacking.update(attach_files=False, embed_links=False)
    feature, interaction = Feature(), FakeInteraction(app_permissions=lacking)
    await feature.post_a_board(interaction)
    assert feature.ran == []
    [(text, _)] = interaction.answers()
    t = translator_for(SPANISH)
    assert f"**{t('Embed Links')}, {t('Attach Files')}**" in text
    await feature.post_a_board(FakeInteraction())
    assert feature.ran == ["post_a_board"]


def test_a_tournament_message_pings_only_the_players_it_means():
    allowed = pinging([7, 8, 7]).to_dict()
    assert allowed == {"parse": [], "users": [7, 8]}, "no role, no @everyone, no repeat"
    assert pinging([]).to_dict() == {"parse": [], "users": []}
    merged = discord.AllowedMentions(everyone=True, roles=True).merge(pinging([9])).to_dict()
    assert "everyone" not in merged["parse"] and "roles" not in merged["parse"]
