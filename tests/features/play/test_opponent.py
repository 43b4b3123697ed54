"""The AI's picker on both backends, with a fake Discord and a fake search: the games waiting
for the AI wait in the database; a search takes its lease when it starts, one per worker; a game
whose board is not shown yet is not moved; an AI turn that fails is tried again after a
backoff."""

from __future__ import annotations

import asyncio
import random

import bot.features.play.opponent as opponent_module
from bot.base.game_options import GameOptions
from bot.base.people import Person
from bot.features.challenges import NewGames
from bot.features.challenges.feature import Challenges
from bot.features.play.feature import Play
from bot.loops.background import Backoff, stop_tasks
from bot.storage.leases import ai_lease
from engine import Position, Turn
from tests.discord_fakes import BOT_ID, FakeDiscord, Wired, eventually, fake_app, opponent_of
from tests.features.play.test_service import ALICE, CHANNEL, GUILD

GAMES = 5


class GatedAi:
    """A search that waits until the test lets it answer (a random legal turn)."""

    workers = 1

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.started: list[int] = []
        """The seeds of the searches started (a game's seed times 1000 plus its plies)."""
        self.running = 0
        self.most_at_once = 0
        self.gate = asyncio.Semaphore(0)
        self.failures = 0
        """How many of the next searches fail."""

    async def choose(self, position: Position, level: str, seed: int) -> Turn:
        self.started.append(seed)
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        try:
            await self.gate.acquire()
            if self.failures:
                self.failures -= 1
                raise RuntimeError("the search broke")
            return self.rng.choice(position.legal_turns())
        finally:
            self.running -= 1

    def close(self) -> None:
        pass


async def ai_games(new_games: NewGames, count: int):
    """``count`` games against the AI, each in a channel of its own, the AI to move first."""
    games = []
    for number in range(count):
        games.append(
            await new_games.start_ai_game(
                guild_id=GUILD,
                channel_id=CHANNEL + number,
                human=Person(ALICE + number, "Human"),
                ai=Person(BOT_ID, "Tholos AI"),
                level="easy",
                options=GameOptions(colour="white", first="opponent"),
            )
        )
    assert all(game.is_ai_turn(BOT_ID) for game in games)
    return games


async def held_ai_leases(database) -> set[str]:
    rows = await database.fetchall("SELECT name FROM leases WHERE name LIKE 'ai:%'")
    return {row[0] for row in rows}


def shown_after_the_ai(app, game):
    """Whether the board after the AI's turn in ``game`` is posted and recorded."""

    async def shown() -> bool:
        now = await app.stores.games.game(game.id)
        return now.plies == 1 and not now.needs_a_board

    return shown


def seeded() -> int:
    seed = random.randrange(2**32)
    print(f"seed {seed}")
    return seed


async def test_the_ai_takes_its_lease_when_its_search_starts_and_waits_in_the_database(database):
    discord = FakeDiscord()
    app = fake_app(database, discord)
    wired = Wired(app)
    games = await ai_games(wired[Challenges].service.new_games, GAMES)
    unshown, *shown = games
    for game in shown:  # the first board of each game is out, but for one game
        assert await app.stores.games.set_board_message(game.id, next(discord.ids), game.version)
    ai = GatedAi(seeded())
    opponent = opponent_of(app, wired[Play].service, ai)
    picker = asyncio.create_task(opponent.loop().run(app.client.is_closed))
    seed_of = {ai_lease(game.id, game.version).name: game.seed * 1000 for game in games}
    try:
        for searched in range(1, len(shown) + 1):
            await eventually(lambda n=searched: len(ai.started) == n, f"search {searched}")
            held = {seed_of[name] for name in await held_ai_leases(database)}
            # a lease is held only by a game whose search has started: the one searching now
            # (and perhaps the one before, storing its turn); no game waiting holds one
            assert ai.started[-1] in held and held <= set(ai.started[-2:])
            assert len(set(ai.started)) == searched  # each game searched once
            ai.gate.release()
        for game in shown:
            await eventually(shown_after_the_ai(app, game), f"the AI's board in game {game.id}")
        assert unshown.seed * 1000 not in ai.started  # its board is not out yet
        assert await app.stores.games.set_board_message(
            unshown.id, next(discord.ids), unshown.version
        )
        opponent.schedule(unshown)
        await eventually(lambda: len(ai.started) == GAMES, "the AI's search once its board shows")
        ai.gate.release()
        await eventually(shown_after_the_ai(app, unshown), "the last AI board")
    finally:
        await stop_tasks([picker])
    assert ai.most_at_once == 1
    for game in games:
        now = await app.stores.games.game(game.id)
        assert (now.plies, now.board_version, now.to_move) == (1, now.version, game.white_id)
        assert len(discord.in_channel(game.channel_id)) == 1
    assert await held_ai_leases(database) == set()


async def test_an_ai_turn_that_fails_is_tried_again_after_a_backoff(database, caplog):
    discord = FakeDiscord()
    app = fake_app(database, discord)
    wired = Wired(app)
    [game] = await ai_games(wired[Challenges].service.new_games, 1)
    assert await app.stores.games.set_board_message(game.id, next(discord.ids), game.version)
    ai = GatedAi(seeded())
    ai.failures = 1
    opponent = opponent_of(app, wired[Play].service, ai, backoff=Backoff(first=0.01, tries=3))
    picker = asyncio.create_task(opponent.loop().run(app.client.is_closed))
    try:
        await eventually(lambda: len(ai.started) == 1, "the first search")
        ai.gate.release()
        await eventually(lambda: len(ai.started) == 2, "the search again")
        assert "the AI could not move in game" in caplog.text
        ai.gate.release()
        await eventually(shown_after_the_ai(app, game), "the AI's board")
    finally:
        await stop_tasks([picker])
    assert (await app.stores.games.game(game.id)).plies == 1
    assert len(opponent.searches.failing) == 0


async def test_an_ai_board_discord_hangs_on_is_left_to_the_repost(database, monkeypatch, caplog):
    """The AI's turn is stored; its board's post times out: not a failure of the turn (nothing
    to try again), the board's lease given back for the repost."""
    monkeypatch.setattr(opponent_module, "POST_SECONDS", 0.01)
    discord = FakeDiscord()
    app = fake_app(database, discord)
    wired = Wired(app)
    [game] = await ai_games(wired[Challenges].service.new_games, 1)
    assert await app.stores.games.set_board_message(game.id, next(discord.ids), game.version)
    discord.hanging.add(game.channel_id)
    ai = GatedAi(seeded())
    ai.gate.release()
    opponent = opponent_of(app, wired[Play].service, ai)
    picker = asyncio.create_task(opponent.loop().run(app.client.is_closed))
    try:
        left = f"the board of game {game.id} is left to the repost: TimeoutError"
        await eventually(lambda: left in caplog.text, "the board's post given up")
        await eventually(lambda: not opponent.searches.moves, "the AI's turn over")
    finally:
        await stop_tasks([picker])
    stored = await app.stores.games.game(game.id)
    assert stored.plies == 1 and stored.needs_a_board
    assert discord.in_channel(game.channel_id) == []
    assert len(opponent.searches.failing) == 0
    assert await database.fetchall("SELECT name FROM leases") == []
