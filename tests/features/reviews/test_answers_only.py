"""Review where the bot may only answer interactions (a DM between members, a group DM, a
server without the bot: ``Game.answers_only``): the press answers that the review is under
way, and the review keeps no message — the review loop posts and edits nothing there — and
Review pressed again shows it to the presser alone."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.base.game_options import GameOptions
from bot.base.people import Person
from bot.features.play.service import StepShown, TurnPlayed
from bot.features.reviews.feature import REVIEW_AGAIN, Reviews
from engine.builder import turn_path
from tests.discord_fakes import FakeDiscord, fake_app, services_of
from tests.features.play.test_service import ALICE, BOB, by
from tests.features.reviews.test_review_loop import FAST, ScriptedReviewer

DM = 4_242


@dataclass
class Response:
    """An interaction's first answer, as sent."""

    sent: list[dict[str, Any]] = field(default_factory=list)

    def is_done(self) -> bool:
        return bool(self.sent)

    async def send_message(self, content: str | None = None, **options: Any) -> None:
        self.sent.append({"content": content, **options})


@dataclass
class User:
    id: int = ALICE


@dataclass
class Press:
    """A press of Review in the DM between Alice and Bob (a member's install of the app)."""

    response: Response = field(default_factory=Response)
    guild_id: None = None
    channel_id: int = DM
    channel: None = None
    id: int = 1
    locale: discord.Locale = discord.Locale.american_english
    user: User = field(default_factory=User)
    context: discord.app_commands.AppCommandContext = field(
        default_factory=lambda: discord.app_commands.AppCommandContext(private_channel=True)
    )
    created_at: datetime.datetime = field(
        default_factory=lambda: datetime.datetime.now(datetime.UTC)
    )

    def is_guild_integration(self) -> bool:
        return False


async def test_a_review_in_a_dm_between_members_keeps_no_message(database):
    """Alice's press: under way, said in the DM; run: stored, no message; pressed again:
    the review, to her alone."""
    fake = FakeDiscord()
    app = fake_app(database, fake)
    services = services_of(app)
    made = await services.challenges.challenge(
        guild_id=0,
        channel_id=DM,
        challenger=Person(ALICE, "Alice"),
        opponent=Person(BOB, "Bob"),
        options=GameOptions(colour="white", first="me"),
    )
    game = (await services.challenges.answer(made.id, by(BOB, DM), "accept")).game
    assert game is not None
    path = "".join(turn_path(game.position, game.position.legal_turns()[0]))
    played = await services.play.choose(game.id, game.version, path, by(ALICE, DM))
    if isinstance(played, StepShown):  # a placement that offers a bonus: skip it
        played = await services.play.choose(game.id, game.version, path + "-", by(ALICE, DM))
    assert isinstance(played, TurnPlayed)
    game = await services.play.resign(game.id, played.game.version, by(BOB, DM))
    async with database.transaction() as transaction:
        await transaction.execute("UPDATE games SET venue = 'dm' WHERE id = ?", (game.id,))
    reviews = Reviews(app, ScriptedReviewer(), backoff=FAST)  # type: ignore[arg-type]

    press = Press()
    await reviews.review(press, game.id)  # type: ignore[arg-type]
    assert press.response.sent == [{"content": REVIEW_AGAIN}]
    record = await reviews.store.review(game.id)
    assert record is not None and record.message_id is None

    await reviews.run_due()
    done = await reviews.store.review(game.id)
    assert done is not None and done.status == "done" and done.message_id is None
    assert fake.messages == {}, "nothing posted nor edited where the bot is not"

    again = Press()
    await reviews.review(again, game.id)  # type: ignore[arg-type]
    [shown] = again.response.sent
    assert shown["ephemeral"] and shown["embed"].title == "AI review: Alice vs Bob"
