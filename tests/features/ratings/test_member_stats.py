"""A member's statistics as ``/tholos stats`` shows them (``bot.features.ratings.member_stats``):
the embed, in a server with the bot and outside servers."""

from __future__ import annotations

import dataclasses
import time

import discord
import pytest
from discord.app_commands import AppCommandContext

from bot.base.game import GamePlace, NewGame
from bot.base.people import Caller, Person
from bot.features.ratings.feature import Ratings
from bot.features.ratings.member_stats import MemberStats, stats_embed
from bot.features.ratings.stats import FinishedGame, player_stats
from bot.storage.db import Database
from bot.storage.games.changes import insert_game
from engine.ai import LEVEL_RATINGS
from engine.newgame import new_game
from rendering.translator import ENGLISH
from tests.databases import Services
from tests.discord.test_answers import FakeInteraction, FakeUser
from tests.discord_fakes import Wired, fake_app
from tests.words.test_phrases import ANA, BOB, assert_minus


def test_stats_show_negative_points_everywhere():
    """Bob's biggest win and last games, 19–−2; Ana's points per game, −2.0 for."""
    history = [FinishedGame(5, ANA, BOB, "black", "points", -2, 19, 100.0, None)]
    for member, expected in ((BOB, "19–\u22122"), (ANA, "\u22122.0 for · 19.0 against")):
        embed = stats_embed(ENGLISH, member, "Not rated yet.", player_stats(member, history))
        text = "\n".join(f"{field.name}: {field.value}" for field in embed.fields)
        assert_minus(text, expected)
    bob = stats_embed(ENGLISH, BOB, "Not rated yet.", player_stats(BOB, history))
    biggest = {field.name: field.value for field in bob.fields}["Biggest win"]
    assert biggest.startswith("19–\u22122 vs <@1>")


def test_stats_tell_rated_games_against_the_ai_from_unrated_ones():
    """The last games name the AI with its level's rating and whether the game was rated;
    the record against each level counts both."""
    history = [
        FinishedGame(5, ANA, BOB, "white", "points", 20, 10, 100.0, "hard", rated=True),
        FinishedGame(6, ANA, BOB, "black", "points", 10, 20, 200.0, "hard"),
    ]
    embed = stats_embed(ENGLISH, ANA, "Not rated yet.", player_stats(ANA, history))
    shown = {field.name: field.value for field in embed.fields}
    rating = LEVEL_RATINGS["hard"]
    assert shown["Against the AI"] == "hard 1–1–0"
    last = (shown["Last games"] or "").splitlines()
    assert f"vs the AI (hard · {rating}, unrated)" in last[0]
    assert f"vs the AI (hard · {rating}, rated)" in last[1]


ALICE, BOB_ID, CAROL, GUILD = 100, 200, 300, 1


async def resigned(
    service: Services, database: Database, place: GamePlace, white: int, black: int, loser: int
) -> None:
    """A game between ``white`` and ``black`` at ``place`` that ``loser`` resigned."""
    names = {ALICE: "Alice", BOB_ID: "Bob", CAROL: "Carol"}
    new = NewGame(place, Person(white, names[white]), Person(black, names[black]), 7, new_game())
    async with database.transaction() as transaction:
        game = await insert_game(transaction, new, now=1000.0)
    await service.play.resign(game.id, game.version, Caller(loser, place.channel_id))


@pytest.fixture
async def played(service: Services, database: Database) -> MemberStats:
    """Alice beat Bob in their DM and lost to Carol in a group DM (both unrated: the bot is
    not there), and beat Bob on a server with the bot (rated)."""
    await resigned(service, database, GamePlace(0, 7001, venue="dm"), ALICE, BOB_ID, BOB_ID)
    await resigned(service, database, GamePlace(0, 7002, venue="group_dm"), CAROL, ALICE, ALICE)
    await resigned(service, database, GamePlace(GUILD, 7003), ALICE, BOB_ID, BOB_ID)
    return Wired(fake_app(database))[Ratings].member_stats


PLACES = {
    "bot_dm": FakeInteraction(guild_id=None, context=AppCommandContext(dm_channel=True)),
    "dm": FakeInteraction(guild_id=None, context=AppCommandContext(private_channel=True)),
    "server_without_bot": FakeInteraction(guild_id=GUILD + 1, guild_installed=False),
}
"""Where the bot has no ratings: its DM, a DM between members, a server without it."""


def asked(where: FakeInteraction, reader: int) -> FakeInteraction:
    return dataclasses.replace(where, user=FakeUser(reader), locale=discord.Locale.american_english)


def fields(embed: discord.Embed) -> dict[str | None, str | None]:
    return {field.name: field.value for field in embed.fields}


@pytest.mark.parametrize("where", list(PLACES))
async def test_outside_servers_your_own_stats_count_your_games_there_unrated(
    played: MemberStats, where: str
) -> None:
    """Alice's stats where games are unrated: her rating (won on the server, not ranked yet
    — her deviation has grown since: the games were long ago), the games outside servers,
    unrated and counted apart (a win and a loss), not the server's game."""
    embed, ephemeral = await played.embed(asked(PLACES[where], ALICE), FakeUser(ALICE))
    shown = fields(embed)
    assert not ephemeral
    assert shown["Rating"] == "Correspondence: **1662** ±350 (provisional)"
    assert shown["Outside servers (unrated)"] == "2 games · 1 W · 1 L · 0 D · win rate 50%"
    assert shown["Last games"] is not None and shown["Last games"].count("\n") == 1
    assert "Record" not in shown


async def test_in_a_server_your_own_stats_count_the_games_outside_apart(
    played: MemberStats,
) -> None:
    """On the server: its rated game as before, her rank on its board once her rating has
    settled, and Alice's games outside servers in a line of their own; Bob asking about Alice
    there sees no line about them."""
    server = FakeInteraction(guild_id=GUILD)
    embed, _ = await played.embed(asked(server, ALICE), FakeUser(ALICE))
    assert fields(embed)["Rating"] == "Correspondence: **1662** ±350 (provisional)"
    async with played.store.database.transaction() as transaction:
        await transaction.execute(
            "UPDATE member_ratings SET deviation = 60, updated_at = ? WHERE user_id = ?",
            (time.time(), ALICE),
        )
    embed, ephemeral = await played.embed(asked(server, ALICE), FakeUser(ALICE))
    shown = fields(embed)
    assert not ephemeral
    assert shown["Record"] is not None and shown["Record"].startswith("1 W · 0 L · 0 D")
    assert shown["Rating"] == "Correspondence: #1 of 1 · **1662** ±60"
    assert shown["Outside servers (unrated)"] == "2 games · 1 W · 1 L · 0 D · win rate 50%"
    assert list(shown)[-1] == "Outside servers (unrated)"
    theirs, _ = await played.embed(asked(server, BOB_ID), FakeUser(ALICE))
    assert "Outside servers (unrated)" not in fields(theirs)


async def test_another_members_stats_outside_servers_show_only_your_games_together(
    played: MemberStats,
) -> None:
    """Outside servers, Carol sees of Alice only the game they played together, in an answer
    for her alone; Bob only his; a stranger nothing (no puzzles or lessons either)."""
    for reader, record in ((CAROL, "1 game · 0 W · 1 L · 0 D"), (BOB_ID, "1 game · 1 W · 0 L")):
        embed, ephemeral = await played.embed(asked(PLACES["dm"], reader), FakeUser(ALICE))
        assert ephemeral
        shown = fields(embed)
        assert shown["Outside servers (unrated)"] is not None
        assert shown["Outside servers (unrated)"].startswith(record)
        assert embed.footer.text == "Only your games with them outside servers are shown here."
    embed, ephemeral = await played.embed(asked(PLACES["dm"], 999), FakeUser(ALICE))
    assert ephemeral
    shown = fields(embed)
    assert list(shown) == ["Rating", "Games"]
    assert shown["Games"] == "No finished games outside servers yet."
