"""Nothing stalls for good, on both backends with a fake Discord: a Discord request that hangs
times out and the sweep goes on to the next game (reminders, challenge expiry); a shutdown
cancels the background loops and waits for them, the review and the AI turn under way
included."""

from __future__ import annotations

import logging
import time

import pytest

import bot.loops.background
from bot.base.game_options import GameOptions
from bot.base.people import Person
from bot.base.server_rules import ReminderDefaults
from bot.base.settings import Settings
from bot.client import TholosBot
from bot.features.challenges.feature import Challenges
from bot.features.housekeeping.feature import Housekeeping
from bot.features.play.feature import Play
from bot.features.puzzles.feature import Puzzles
from bot.features.reminders.feature import Reminders
from bot.features.reviews.feature import Reviews
from bot.loops.background import Backoff
from bot.loops.loop import Loops
from bot.storage import open_database
from tests.databases import Clock
from tests.discord_fakes import FakeDiscord, Wired, eventually, fake_app, services_of
from tests.features.play.test_opponent import GatedAi, ai_games
from tests.features.play.test_service import ALICE, BOB, CHANNEL, GUILD, by
from tests.features.reminders.test_reminders import DAY, reminding
from tests.features.reviews.test_review_loop import StuckReviewer, finished_game, requested, seeded

HANGS, ANSWERS = CHANNEL, CHANNEL + 1


@pytest.fixture
def quick_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord calls time out after a hundredth of a second."""
    monkeypatch.setattr(bot.loops.background, "DISCORD_CALL_SECONDS", 0.01)


async def games_due_for_reminders(database) -> list:
    """A game in each of two channels, long idle: its first player's reminder is due."""
    service = reminding(database, Clock(1_000.0), ReminderDefaults(None, DAY), [])
    games = []
    for channel in (HANGS, ANSWERS):
        made = await service.challenges.challenge(
            guild_id=GUILD,
            channel_id=channel,
            challenger=Person(ALICE, "Alice"),
            opponent=Person(BOB, "Bob"),
            options=GameOptions(colour="white", first="me"),
        )
        games.append((await service.challenges.answer(made.id, by(BOB, channel), "accept")).game)
    assert all(game.reminder_due_at < time.time() for game in games)
    return games


async def test_a_reminder_discord_hangs_on_times_out_and_the_next_is_sent(
    database, quick_timeout, caplog
):
    discord = FakeDiscord()
    discord.hanging.add(HANGS)
    app = fake_app(database, discord)
    hung, answered = await games_due_for_reminders(database)
    reminders = Reminders(app, backoff=Backoff(first=0.0, tries=2))
    caplog.set_level(logging.INFO)
    await reminders.sweep()
    assert discord.hung == [HANGS]
    [sent] = discord.in_channel(ANSWERS)
    assert f"<@{ALICE}>" in sent.sent["content"]
    assert (await app.stores.games.game(answered.id)).reminder_due_at is None
    postponed = (await app.stores.games.game(hung.id)).reminder_due_at
    assert postponed is not None and postponed > hung.reminder_due_at  # tried again later
    await reminders.sweep()  # it hangs again: given up
    assert discord.hung == [HANGS, HANGS]
    assert (await app.stores.games.game(hung.id)).reminder_due_at is None
    assert f"gave up on the reminder (game, version) ({hung.id}, {hung.version})" in caplog.text
    assert discord.in_channel(HANGS) == [] and len(discord.in_channel(ANSWERS)) == 1


async def test_a_challenge_expiry_discord_hangs_on_times_out_and_the_next_is_shown(
    database, quick_timeout
):
    discord = FakeDiscord()
    challenges = Wired(fake_app(database, discord))[Challenges]
    service = reminding(database, Clock(1_000.0), ReminderDefaults(None, DAY), [])
    messages = {}
    for channel in (HANGS, ANSWERS):
        made = await service.challenges.challenge(
            guild_id=GUILD,
            channel_id=channel,
            challenger=Person(ALICE, "Alice"),
            opponent=Person(BOB, "Bob"),
            options=GameOptions(),
        )
        message = await discord.get_partial_messageable(channel).send("challenge")
        await challenges.store.set_message(made.id, message.id)
        messages[channel] = message
    discord.hanging.add(HANGS)
    await challenges.expire()
    assert discord.hung == [HANGS]
    assert messages[HANGS].edits == []
    [shown] = messages[ANSWERS].edits
    assert shown["content"].endswith("⌛ Expired without an answer.")


async def test_shutdown_waits_for_every_background_task(database_url):
    """The bot's close cancels the loops — the boards', the reviews' (a review under way) and
    the AI's picker (a search under way) — and waits for them: each has stopped its work and
    given back its lease before the database closes."""
    database = await open_database(database_url)
    discord = FakeDiscord()
    reviewer, ai = StuckReviewer(), GatedAi(seeded().randrange(2**32))
    app = fake_app(database, discord)
    wired = Wired(app, ai)
    game = await finished_game(services_of(app), CHANNEL, 2, seeded())
    [ai_game] = await ai_games(wired[Challenges].service.new_games, 1)
    await app.stores.games.set_board_message(ai_game.id, next(discord.ids), ai_game.version)
    reviews = Reviews(app, reviewer)  # type: ignore[arg-type]
    play, housekeeping = wired[Play], wired[Housekeeping]
    await requested(reviews, discord, game, time.time())
    client = TholosBot(Settings(token="test", database=database_url))
    client.app = app
    client.features = [play, reviews, wired[Challenges], wired[Reminders], housekeeping]
    client.features.append(wired[Puzzles])
    client.loops = Loops(discord.wait_until_ready, discord.is_closed)
    client.loops.start([*play.loops(), *housekeeping.loops(), *reviews.loops()])
    loops = list(client.loops._tasks)
    await eventually(reviewer.started.is_set, "the review under way")
    await eventually(lambda: ai.running == 1, "the AI's search under way")
    await client.close()
    assert all(loop.done() for loop in loops)
    assert reviewer.cancelled.is_set() and ai.running == 0
    reopened = await open_database(database_url)
    try:
        held = await reopened.fetchall(
            "SELECT name FROM leases WHERE name LIKE 'review:%' OR name LIKE 'ai:%'"
        )
        assert held == []  # the review's and the AI's, given back
        assert (await reopened.fetchone("SELECT status FROM reviews"))[0] in ("queued", "running")
    finally:
        await reopened.close()
