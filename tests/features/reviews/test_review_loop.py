"""The review loop on both backends, with a fake Discord: a review that fails is tried again
with backoff, then failed with its reason, and never delays another; the worker killed
mid-review is replaced and the review completes; a review whose lease is lost stops."""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import random
import signal
import time

import pytest

from bot.base.game_options import GameOptions
from bot.base.people import Person
from bot.base.refusals import Refusal
from bot.features.play.service import StepShown, TurnPlayed
from bot.features.reviews.feature import Reviews
from bot.loops.background import Backoff, stop_tasks
from bot.storage.leases import LeaseStore, review_lease
from bot.workers.ai import Reviewer
from engine import Position, Turn
from engine.ai import Budget
from engine.builder import turn_path
from engine.review import GameReview, review_game
from tests.databases import Services
from tests.discord_fakes import FakeDiscord, eventually, fake_app, services_of
from tests.features.play.test_service import ALICE, BOB, CHANNEL, GUILD, by

QUICK = Budget(iterations=5, solver_nodes=50)
"""A review budget small enough for a test's fake reviewer."""
FAST = Backoff(first=0.01, tries=3)


class ScriptedReviewer:
    """Reviews in this process at a tiny budget, failing for the games in ``failing``;
    remembers the games it was asked for, in order."""

    def __init__(self, failing: set[int] = frozenset()) -> None:
        self.failing = failing
        self.progress: queue.Queue[tuple[int, int, int]] = queue.Queue()
        self.calls: list[int] = []

    async def review(self, game_id: int, start: Position, turns: list[Turn], seed: int) -> str:
        self.calls.append(game_id)
        if game_id in self.failing:
            raise RuntimeError(f"no review for game {game_id}")
        review = await asyncio.to_thread(review_game, start, turns, budget=QUICK, seed=seed)
        return review.to_json()

    def close(self) -> None:
        pass


class StuckReviewer(ScriptedReviewer):
    """A review that never ends on its own; it says when it starts and when it is cancelled."""

    def __init__(self) -> None:
        super().__init__()
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def review(self, game_id: int, start: Position, turns: list[Turn], seed: int) -> str:
        self.calls.append(game_id)
        self.started.set()
        try:
            await asyncio.get_running_loop().create_future()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        raise AssertionError("unreachable")


async def finished_game(services: Services, channel: int, plies: int, rng: random.Random):
    """A game between Alice and Bob in ``channel``: ``plies`` random turns (fewer if it ends),
    then Bob resigns (if it is still on)."""
    made = await services.challenges.challenge(
        guild_id=GUILD,
        channel_id=channel,
        challenger=Person(ALICE, "Alice"),
        opponent=Person(BOB, "Bob"),
        options=GameOptions(colour="white", first="me"),
    )
    game = (await services.challenges.answer(made.id, by(BOB, channel), "accept")).game
    for _ in range(plies):
        if not game.is_active:
            break
        turn = rng.choice(game.position.legal_turns())
        path = "".join(turn_path(game.position, turn))
        played = await services.play.choose(game.id, game.version, path, by(game.to_move, channel))
        if isinstance(played, StepShown):  # a placement that offers a bonus: skip it
            played = await services.play.choose(
                game.id, game.version, path + "-", by(game.to_move, channel)
            )
        assert isinstance(played, TurnPlayed)
        game = played.game
    if game.is_active:
        game = await services.play.resign(game.id, game.version, by(BOB, channel))
    return game


async def requested(reviews: Reviews, discord: FakeDiscord, game, at: float) -> None:
    """Ask for ``game``'s review at ``at``, shown on a message in its channel."""
    await reviews.store.request(game.id, game.guild_id, game.channel_id, ALICE, at, game.plies + 1)
    message = await discord.get_partial_messageable(game.channel_id).send("progress")
    await reviews.store.set_message(game.id, message.id)


def seeded() -> random.Random:
    seed = random.randrange(2**32)
    print(f"seed {seed}")
    return random.Random(seed)


async def test_a_failing_review_is_retried_then_failed_and_delays_no_other(database, caplog):
    discord = FakeDiscord()
    app = fake_app(database, discord)
    rng = seeded()
    failing = await finished_game(services_of(app), CHANNEL, 4, rng)
    fine = await finished_game(services_of(app), CHANNEL + 1, 4, rng)
    reviewer = ScriptedReviewer(failing={failing.id})
    reviews = Reviews(app, reviewer, backoff=FAST)  # type: ignore[arg-type]
    now = time.time()
    await requested(reviews, discord, failing, now - 10)  # asked for first
    await requested(reviews, discord, fine, now - 5)
    caplog.set_level(logging.INFO)
    loop = asyncio.create_task(reviews.loops()[0].run(app.client.is_closed))
    try:

        async def settled() -> bool:
            said = [discord.in_channel(g.channel_id)[0].edits for g in (failing, fine)]
            stored = (await reviews.store.review(fine.id)).status == "done"
            return all(said) and "embed" in said[1][-1] and "content" in said[0][-1] and stored

        await eventually(settled, "the failing review failed, the other shown and stored")
    finally:
        await stop_tasks([loop])
    states = [(await reviews.store.review(g.id)).status for g in (failing, fine)]
    assert states == ["failed", "done"]
    assert reviewer.calls[:2] == [failing.id, fine.id]  # the second went on after one failure
    assert reviewer.calls.count(failing.id) == FAST.tries
    record = await reviews.store.review(failing.id)
    assert record.attempts == FAST.tries
    assert record.failure == f"RuntimeError: no review for game {failing.id}"
    assert record.review is None and record.finished_at is not None
    assert f"gave up reviewing game {failing.id} after 3 tries" in caplog.text
    shown = discord.messages[record.message_id].edits[-1]
    assert shown["content"] == "The AI could not review this game."
    done = await reviews.store.review(fine.id)
    assert GameReview.from_json(done.review).turns[-1].ply == fine.plies
    assert discord.messages[done.message_id].edits[-1]["embed"].title.startswith("AI review")
    with pytest.raises(Refusal, match="could not review"):
        await reviews.message.show_stored(None, failing, record)  # type: ignore[arg-type]


async def test_a_review_retried_waits_its_backoff_behind_newer_ones(database):
    """The next try of a failed review is due after its backoff: the loop runs the reviews due
    now and looks again then."""
    discord = FakeDiscord()
    app = fake_app(database, discord)
    rng = seeded()
    game = await finished_game(services_of(app), CHANNEL, 2, rng)
    reviewer = ScriptedReviewer(failing={game.id})
    reviews = Reviews(app, reviewer, Backoff(first=3600, tries=3))  # type: ignore[arg-type]
    await requested(reviews, discord, game, time.time())
    before = time.time()
    again_at = await reviews.run_due()
    record = await reviews.store.review(game.id)
    assert (record.status, record.attempts) == ("queued", 1)
    assert again_at == record.next_attempt_at and again_at >= before + 3600
    assert await reviews.run_due() == again_at  # not due: not tried
    assert reviewer.calls == [game.id]


async def test_a_review_whose_lease_is_lost_stops(database, caplog):
    discord = FakeDiscord()
    app = fake_app(database, discord)
    game = await finished_game(services_of(app), CHANNEL, 2, seeded())
    reviewer = StuckReviewer()
    reviews = Reviews(app, reviewer)  # type: ignore[arg-type]
    reviews.progress_seconds = 0.01
    await requested(reviews, discord, game, time.time())
    caplog.set_level(logging.INFO)
    running = asyncio.create_task(reviews.run_due())
    await eventually(reviewer.started.is_set, "the review started")
    thief = LeaseStore(database, "another process")
    lease = review_lease(game.id)
    # another process finds the lease run out (as after an outage) and takes it
    assert await thief.acquire(lease, time.time() + lease.seconds + 1)
    await eventually(reviewer.cancelled.is_set, "the review cancelled")
    assert await running is None
    assert f"lost the lease of reviewing game {game.id}" in caplog.text
    record = await reviews.store.review(game.id)
    assert record.status in ("queued", "running") and record.attempts == 0
    assert not await app.stores.leases.acquire(lease, time.time())  # still the other process's


async def test_the_review_worker_killed_mid_review_is_replaced_and_the_review_completes(
    database, caplog
):
    discord = FakeDiscord()
    app = fake_app(database, discord)
    game = await finished_game(services_of(app), CHANNEL, 16, seeded())
    reviewer = Reviewer()
    reviews = Reviews(app, reviewer)
    reviews.progress_seconds = 0.05
    await requested(reviews, discord, game, time.time())
    progress = (await reviews.store.review(game.id)).message_id
    caplog.set_level(logging.INFO)
    loop = asyncio.create_task(reviews.loops()[0].run(app.client.is_closed))
    try:

        async def under_way() -> bool:
            record = await reviews.store.review(game.id)
            return record.status == "running" and record.done >= 1

        await eventually(under_way, "the review under way")
        [worker] = reviewer.worker.pids()
        os.kill(worker, signal.SIGKILL)

        def shown() -> bool:
            edits = discord.messages[progress].edits
            return bool(edits) and "embed" in edits[-1]

        async def stored() -> bool:
            return (await reviews.store.review(game.id)).status == "done"

        await eventually(shown, "the review shown")
        await eventually(stored, "the review stored")  # (shown first, then stored)
        replaced = reviewer.worker.pids()
    finally:
        await stop_tasks([loop])
        reviewer.close()
    assert "the review worker died; a new one takes its task" in caplog.text
    assert len(replaced) == 1 and replaced != [worker]
    record = await reviews.store.review(game.id)
    assert record.attempts == 0 and record.failure is None
    review = GameReview.from_json(record.review)
    assert [turn.ply for turn in review.turns] == list(range(1, game.plies + 1))
    assert discord.messages[record.message_id].edits[-1]["embed"].title.startswith("AI review")
