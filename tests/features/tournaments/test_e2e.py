"""Tournaments through the real bot: a Swiss of seven and a round robin of four, from the
announcement's Join buttons to the podium, every game in a thread of its own, with a kill -9
mid-round; the pairings checked against the rules and the standings recomputed from the stored
games. Every test ends with no failed interaction and no rule violation recorded."""

from __future__ import annotations

import asyncio
import datetime
import io
import os
import random
import re
import sqlite3
import tempfile
from collections import defaultdict
from pathlib import Path

import asyncpg
import pytest
from aiohttp import web
from PIL import Image

from engine.record import read_record
from tests.e2e.bots import SpawnBot
from tests.e2e.emulator import BotProcess, Emulator, Member, Message
from tests.e2e.emulator import rest as emulator_rest
from tests.e2e.emulator.model import CREATE_EVENTS, MANAGE_EVENTS
from tests.e2e.table import Table
from tests.e2e.test_shards import SHARDS, shard_env
from tests.postgres import PostgresServer

THREADS = {"THOLOS_THREADS": "on"}
STANDINGS_SEEN = Path(os.environ.get("THOLOS_FRAME_DIR", tempfile.gettempdir())) / "standings.png"
"""Where the test leaves the final standings for a person to look at."""
LINE = re.compile(r"🏆 \*\*(?P<name>.+?)\*\*, round (?P<round>\d+): <@(\d+)> vs <@(\d+)>")


def stored(bot: BotProcess, sql: str, *parameters: object) -> list[tuple]:
    with sqlite3.connect(bot.db_path) as db:
        return db.execute(sql, parameters).fetchall()


class Event:
    """A tournament in ``general``, seen as its players see it."""

    def __init__(
        self,
        emulator: Emulator,
        bot: BotProcess,
        players: list[Member],
        table: Table | None = None,
    ) -> None:
        self.emu = emulator
        self.bot = bot
        self.table = table or Table(emulator)
        self.players = players
        self.by_id = {player.id: player for player in players}

    async def create(self, organiser: Member, **options: object) -> Message:
        """The organiser's announcement, once every player pressed Join on it."""
        made = await self.table.slash(organiser, "tholos-tournament create", **options)
        announcement = made.original
        assert announcement is not None and "Sign-up open" in announcement.content
        for player in self.players:
            await self.table.click(player, announcement, self.table.labelled(announcement, "Join"))
        await self.emu.wait_for(
            lambda: f"({len(self.players)}/" in announcement.content,
            what="every player on the announcement",
        )
        return announcement

    def games_of(self, round: int) -> list[Table]:
        """The tables of a round's games (their threads, each with a board)."""
        tables = []
        for message in self.emu.messages(self.table.channel):
            found = LINE.match(message.content)
            thread = self.emu.thread_of(message)
            if found and int(found["round"]) == round and thread is not None:
                tables.append(self.table.in_thread(thread))
        return tables

    async def round_started(self, round: int, games: int) -> list[Table]:
        await self.emu.wait_for(
            lambda: (
                len(self.games_of(round)) == games
                and all(table.boards() for table in self.games_of(round))
            ),
            what=f"round {round}'s {games} games, each with its board",
        )
        return self.games_of(round)

    async def decide(self, game: Table, rng: random.Random) -> None:
        """The player to move plays a random turn; then a random one of the two resigns."""
        await game.play(rng.choice(game.position().legal_turns()))
        white, black = LINE_PLAYERS(game)
        loser = self.by_id[rng.choice((white, black))]
        ask = await game.slash(loser, "tholos resign")
        assert ask.original is not None and ask.original.ephemeral
        await game.click(loser, ask.original, game.labelled(ask.original, "Yes, resign"))
        await self.emu.wait_for(lambda: game.status().startswith("Game over."), what="the end")

    def standings_messages(self) -> list[Message]:
        return [
            m
            for m in self.emu.messages(self.table.channel)
            if m.attachments and m.attachments[0].filename == "standings.png"
        ]


def LINE_PLAYERS(game: Table) -> tuple[int, int]:
    """White's and Black's ids, read from the board's header."""
    ids = [int(found) for found in re.findall(r"<@(\d+)>", game.header())]
    return ids[0], ids[1]


def recomputed(bot: BotProcess, tournament: int) -> dict[int, float]:
    """Each player's points from the stored games and byes, independently of the bot's
    standings: a win 1, a bye 1, a forfeit 1."""
    points: dict[int, float] = defaultdict(float)
    for white, black, result, game_result in stored(
        bot,
        "SELECT p.white_id, p.black_id, p.result, g.result FROM tournament_games p "
        "LEFT JOIN games g ON g.id = p.game_id WHERE p.tournament_id = ?",
        tournament,
    ):
        outcome = result or game_result
        points[white] += 0
        if black is None:
            points[white] += 1
            continue
        points[black] += 0
        if outcome == "draw":
            points[white] += 0.5
            points[black] += 0.5
        elif outcome is not None:
            points[white if outcome == "white" else black] += 1
    return points


def shown_points(message: Message, names: dict[str, int]) -> dict[int, float]:
    """Each player's points as the standings image's alt text gives them."""
    shown = {}
    for entry in (message.attachments[0].description or "").split("; "):
        found = re.fullmatch(r"\d+\. (.+?)(?: \(withdrawn\))? (\d*)(½?)", entry)
        assert found, entry
        shown[names[found[1]]] = float(found[2] or 0) + (0.5 if found[3] else 0)
    return shown


async def test_a_swiss_of_seven_to_the_podium_across_a_kill(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    rng = random.Random(seed)
    bot = spawn_bot(emulator, env=THREADS)
    await bot.start(sync=True)
    alice, bob, carol = (emulator.member(name) for name in ("alice", "bob", "carol"))
    others = [emulator.add_person(name) for name in ("dave", "erin", "frank", "gina")]
    players = [alice, bob, carol, *others]
    event = Event(emulator, bot, players)
    announcement = await event.create(alice, name="Delphi Open", rounds=3)
    await event.table.click(bob, announcement, event.table.labelled(announcement, "Join"))
    assert event.table.ephemeral(bob)[-1] == "You're already in this tournament."
    ((tournament,),) = stored(bot, "SELECT id FROM tournaments")
    await event.table.slash(alice, "tholos-tournament start", tournament=tournament)
    for round in (1, 2, 3):
        games = last_round = await event.round_started(round, 3)
        for number, game in enumerate(games):
            if round == 2 and number == 1:  # mid-round: the bot dies and comes back
                assert await bot.kill() == -9
                await bot.start()
            await event.decide(game, rng)
        await bot.settle()
    await emulator.wait_for(
        lambda: "Finished after 3 rounds" in announcement.content,
        what="the announcement to say it is over",
    )
    pairings = stored(bot, "SELECT round, white_id, black_id, game_id FROM tournament_games")
    met, byes = set(), []
    for round in (1, 2, 3):
        seated = [p for r, w, b, _ in pairings if r == round for p in (w, b) if p]
        assert sorted(seated) == sorted(p.id for p in players), f"round {round}: once each"
    for _, white, black, game in pairings:
        if black is None:
            byes.append(white)
            assert game is None
        else:
            assert frozenset((white, black)) not in met, "nobody meets an opponent twice"
            met.add(frozenset((white, black)))
    assert len(byes) == len(set(byes)) == 3, "a bye a round, never twice to one player"
    games = stored(bot, "SELECT status, rated FROM games")
    assert len(games) == 9 and set(games) == {("finished", 1)}, "every game played once, rated"
    standings = event.standings_messages()
    assert len(standings) == 3, "one standings message a round (none repeated by the restart)"
    final = standings[-1]
    assert final.content.startswith("🏁 **Delphi Open** is over!") and "🥇" in final.content
    assert "Rating changes:" in final.content
    names = {p.user.global_name: p.id for p in players}
    assert shown_points(final, names) == recomputed(bot, tournament)
    image = Image.open(io.BytesIO(final.attachments[0].data))
    assert image.size[0] == 760 and image.size[1] > 7 * 34
    image.save(STANDINGS_SEEN)
    game = last_round[0]
    white, _ = LINE_PLAYERS(game)
    await game.slash(event.by_id[white], "tholos record")
    record = read_record((await game.private_file(event.by_id[white])).attachments[0].data.decode())
    assert (record.event, record.round) == ("Delphi Open", 3)
    shown = (await event.table.slash(event.by_id[white], "tholos history")).original
    assert shown is not None
    lines = shown.embeds[0]["description"].splitlines()[2:]
    assert lines[0].startswith("🏆 Delphi Open, round 3 · ")
    event.table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_a_round_robin_of_four_with_a_withdrawal_and_a_kill(
    emulator: Emulator, spawn_bot: SpawnBot, seed: int
):
    rng = random.Random(seed)
    bot = spawn_bot(emulator, env=THREADS)
    await bot.start(sync=True)
    alice, bob, carol = (emulator.member(name) for name in ("alice", "bob", "carol"))
    dave = emulator.add_person("dave")
    players = [alice, bob, carol, dave]
    event = Event(emulator, bot, players)
    try:  # Carol may not organise events yet: Discord does not offer her the command
        await event.table.slash(carol, "tholos-tournament create", name="Nope")
    except ValueError as refused:
        assert "not available to carol" in str(refused)
    else:
        raise AssertionError("/tholos-tournament offered without Manage Events")
    emulator.give_role(carol, "Events", MANAGE_EVENTS)
    announcement = await event.create(carol, name="Pythia Cup", format="round_robin", rated=False)
    assert "(4/16)" in announcement.content, "a round robin of 16 is 15 rounds, the most"
    ((tournament,),) = stored(bot, "SELECT id FROM tournaments")
    await event.table.slash(bob, "tholos tournament standings")
    assert "hasn't started" in event.table.ephemeral(bob)[-1]
    emulator.give_role(bob, "Events too", MANAGE_EVENTS)  # but he isn't its organiser
    await event.table.slash(bob, "tholos-tournament start", tournament=tournament)
    assert event.table.ephemeral(bob)[-1].startswith("Only the organiser of this tournament")
    await event.table.slash(alice, "tholos-tournament pause", tournament=tournament)  # owner
    assert event.table.ephemeral(alice)[-1] == "Only a tournament under way can be paused."
    await event.table.slash(carol, "tholos-tournament start", tournament=tournament)
    games = await event.round_started(1, 2)
    await event.decide(games[0], rng)
    assert await bot.kill() == -9  # mid-round 1
    await bot.start()
    await event.decide(games[1], rng)
    games = await event.round_started(2, 2)
    await bot.settle()
    await event.table.slash(bob, "tholos tournament standings")
    shown = await event.table.private_file(bob)
    assert shown.content == (
        "📊 **Pythia Cup** — Standings so far, with round 2 of 3 under way."
    ), shown.content
    assert shown.attachments[0].filename == "standings.png"
    assert shown.attachments[0].description.count("; ") == 3, "four players listed"
    leaver = dave
    out = await event.table.slash(leaver, "tholos tournament withdraw")
    assert "is out of **Pythia Cup**" in event.table.ephemeral(leaver)[-1], out
    await bot.settle()  # the final board of the game the withdrawal lost is posted
    for game in games:
        if "Game over." not in game.status():
            await event.decide(game, rng)
    (last,) = await event.round_started(3, 1)
    await event.table.slash(carol, "tholos-tournament pause", tournament=tournament)
    await emulator.wait_for(
        lambda: "Paused in round 3 of 3" in announcement.content,
        what="the pause on the announcement",
    )
    await event.decide(last, rng)  # games under way go on while it is paused
    await bot.settle()
    assert len(event.standings_messages()) == 2, "no standings while paused"
    await event.table.slash(carol, "tholos-tournament resume", tournament=tournament)
    assert "under way again" in event.table.ephemeral(carol)[-1]
    await bot.settle()
    await emulator.wait_for(
        lambda: "Finished after 3 rounds" in announcement.content, what="the end"
    )
    forfeits = stored(
        bot, "SELECT round, white_id, black_id, result FROM tournament_games WHERE game_id IS NULL"
    )
    assert len(forfeits) == 1 and forfeits[0][0] == 3 and dave.id in forfeits[0][1:3]
    assert (forfeits[0][3] == "white") == (forfeits[0][2] == dave.id), "the other one wins"
    assert stored(bot, "SELECT DISTINCT rated FROM games") == [(0,)], "an unrated tournament"
    final = event.standings_messages()[-1]
    names = {p.user.global_name: p.id for p in players}
    assert shown_points(final, names) == recomputed(bot, tournament)
    assert "(withdrawn)" in (final.attachments[0].description or "")
    assert "Rating changes" not in final.content
    assert len(event.standings_messages()) == 3
    event.table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_a_scheduled_event_for_the_start_and_a_cancellation(
    emulator: Emulator, spawn_bot: SpawnBot
):
    """Where the bot may create events, the tournament's start is one of the server's
    scheduled events; too few players, and the organiser ends it: cancelled, event deleted."""
    bot = spawn_bot(emulator, env=THREADS)
    await bot.start(sync=True)
    emulator.world.bot_role(emulator.guild).permissions |= CREATE_EVENTS
    alice, bob = (emulator.member(name) for name in ("alice", "bob"))
    event = Event(emulator, bot, [bob])
    announcement = await event.create(alice, name="Oracle Night", pace="5+5", starts_in=30)
    await bot.settle()  # the event is made (and stored) after the announcement is out
    (scheduled,) = emulator.guild.scheduled_events.values()
    assert scheduled["name"] == "Oracle Night" and scheduled["entity_metadata"] == {
        "location": "#general"
    }
    ((tournament, starts_at, event_id),) = stored(
        bot, "SELECT id, starts_at, event_id FROM tournaments"
    )
    assert int(scheduled["id"]) == event_id
    start = datetime.datetime.fromisoformat(scheduled["scheduled_start_time"]).timestamp()
    assert abs(start - starts_at) < 1, "the event starts when the tournament does"
    await event.table.slash(bob, "tholos tournament withdraw")
    assert event.table.ephemeral(bob)[-1] == (
        "This tournament hasn't started: press **Leave** on its announcement."
    )
    await event.table.slash(alice, "tholos-tournament end", tournament=tournament)
    assert event.table.ephemeral(alice)[-1] == "**Oracle Night** is cancelled."
    await emulator.wait_for(lambda: "Cancelled" in announcement.content, what="the cancellation")
    assert emulator.guild.scheduled_events == {}, "its event is deleted"
    assert all(button.get("disabled") for button in announcement.buttons)
    event.table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_the_process_of_the_server_s_shard_runs_its_tournament(
    emulator: Emulator, spawn_bot: SpawnBot, postgres_server: PostgresServer, seed: int
):
    """Two processes, one a shard, on one PostgreSQL: only the process of the server's shard
    runs its tournament; it is killed mid-round and a new process for that shard goes on;
    every round is paired once, every game started once, every standings posted once."""
    rng = random.Random(seed)
    url = await postgres_server.create_database()
    guild = emulator.add_guild("Shard 1", shard=(1, SHARDS))
    first, second = (
        spawn_bot(emulator, env={**THREADS, **shard_env(url, shard)}, guild_commands=False)
        for shard in (0, 1)
    )
    await first.start(sync=True)
    await second.start()
    alice, bob, carol = (emulator.member(name) for name in ("alice", "bob", "carol"))
    event = Event(emulator, second, [alice, bob, carol], Table(emulator, "games", guild=guild))
    await event.create(alice, name="Shard Cup", rounds=2)
    connection = await asyncpg.connect(url)
    try:
        tournament = await connection.fetchval("SELECT id FROM tournaments")
        await event.table.slash(alice, "tholos-tournament start", tournament=tournament)
        for game in await event.round_started(1, 1):
            await event.decide(game, rng)
        (game,) = await event.round_started(2, 1)
        assert await second.kill() == -9  # mid-round 2
        third = spawn_bot(emulator, env={**THREADS, **shard_env(url, 1)}, guild_commands=False)
        await third.start()
        await event.decide(game, rng)
        await third.settle()
        await emulator.wait_for(lambda: len(event.standings_messages()) == 2, what="the end")
        rows = await connection.fetch("SELECT round, black_id FROM tournament_games")
        games = await connection.fetchval("SELECT COUNT(*) FROM games")
        status = await connection.fetchval("SELECT status FROM tournaments")
    finally:
        await connection.close()
    assert sorted((r["round"], r["black_id"] is None) for r in rows) == [
        (1, False),
        (1, True),
        (2, False),
        (2, True),
    ], "a game and a bye a round, paired once"
    assert games == 2 and status == "finished", "each game started once"
    lines = [m for m in emulator.messages(event.table.channel) if emulator.thread_of(m)]
    assert len(lines) == 2, "one line (and thread) per game"
    assert "tournament 1: round 1 paired" in second.log()
    assert "tournament 1 finished after 2 rounds" in third.log()
    assert "tournament 1" not in first.log(), "shard 0's process leaves it alone"
    event.table.assert_clean()
    for process in (first, third):
        assert await process.stop() == 0
        process.assert_clean_log()
        assert postgres_server.password not in process.log()


@pytest.fixture
def dropped_round_posts(monkeypatch: pytest.MonkeyPatch) -> dict[str, asyncio.Event]:
    """The emulator holds the first post of a round's pairings for round 2 until
    ``held["release"]``, then drops it (it never reached Discord: the bot was killed first);
    ``held["reached"]`` is set when it arrives. Request it before ``emulator``."""
    held = {"release": asyncio.Event(), "reached": asyncio.Event()}
    create_message = emulator_rest.Rest.create_message

    async def dropping(self: emulator_rest.Rest, request: web.Request) -> web.StreamResponse:
        if request.content_type == "application/json" and not held["reached"].is_set():
            content = (await request.json()).get("content") or ""
            if content.startswith("⚔️ **") and "round 2 of" in content:
                held["reached"].set()
                await held["release"].wait()
                return web.json_response({"message": "lost", "code": 0}, status=500)
        return await create_message(self, request)

    monkeypatch.setattr(emulator_rest.Rest, "create_message", dropping)
    return held


async def test_a_round_stored_but_not_announced_before_a_kill_is_announced(
    dropped_round_posts: dict[str, asyncio.Event],
    emulator: Emulator,
    spawn_bot: SpawnBot,
    seed: int,
):
    """A Swiss of three (a bye every round): the bot is killed after storing round 2 but
    before its post reached Discord. The next process posts it, once, with its bye; the
    announcement shows the round."""
    rng = random.Random(seed)
    bot = spawn_bot(emulator, env=THREADS)
    await bot.start(sync=True)
    players = [emulator.member(name) for name in ("alice", "bob", "carol")]
    event = Event(emulator, bot, players)
    announcement = await event.create(players[0], name="Kill Cup", rounds=2)
    ((tournament,),) = stored(bot, "SELECT id FROM tournaments")
    await event.table.slash(players[0], "tholos-tournament start", tournament=tournament)
    (game,) = await event.round_started(1, 1)
    await event.decide(game, rng)
    await dropped_round_posts["reached"].wait()  # round 2 is stored, its post on the way
    assert stored(bot, "SELECT round, announced_pairings FROM tournaments") == [(2, 1)]
    assert await bot.kill() == -9
    dropped_round_posts["release"].set()
    await bot.start()
    await event.round_started(2, 1)
    await bot.settle()
    ((bye,),) = stored(
        bot, "SELECT white_id FROM tournament_games WHERE round = 2 AND black_id IS NULL"
    )
    posts = [
        m.content
        for m in emulator.messages(event.table.channel)
        if m.content.startswith("⚔️ **Kill Cup** — round")
    ]
    assert len(posts) == 2 and "round 1 of 2" in posts[0] and "round 2 of 2" in posts[1]
    assert f"<@{bye}> has the bye (a point)." in posts[1]
    assert stored(bot, "SELECT announced_pairings FROM tournaments") == [(2,)]
    await emulator.wait_for(
        lambda: "round 2 of 2" in announcement.content, what="the announcement's round"
    )
    event.table.assert_clean()
    assert await bot.stop() == 0
    bot.assert_clean_log()
