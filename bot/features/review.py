"""The AI's review of a finished game: the final board's Review button queues it (once per
game), a worker process of its own runs the reviews one at a time, and one public message in
the game's channel shows the progress, then the review. Pressing Review again shows the stored
one. Reviews survive restarts: a review whose process died runs again once its lease expires."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import queue
import time

import discord

from engine import parse_turn
from engine.review import GameReview
from rendering.chart import render_chart
from rendering.words import Words

from ..ai import Reviewer
from ..answers import Interaction, answers, tell
from ..app import App, Feature
from ..controls import ReviewButton, Router
from ..domain import Refusal
from ..i18n import reader, words
from ..presenter import review_embed, review_progress
from ..storage import DatabaseUnavailable, Game
from ..storage.leases import review_lease
from ..storage.reviews import ReviewRecord, ReviewStore

log = logging.getLogger(__name__)

CHART_NAME = "review.png"
PROGRESS_SECONDS = 3.0
"""How often the review's message shows its progress."""
IDLE_SECONDS = 60.0
"""The longest the review loop sleeps when nothing is queued (a new request wakes it)."""


class Reviews(Feature):
    """Queues, runs and shows reviews."""

    def __init__(self, app: App, reviewer: Reviewer | None = None) -> None:
        super().__init__(app)
        self.store = ReviewStore(app.database, app.settings.shards)
        self.reviewer = reviewer or Reviewer()
        self.requested = asyncio.Event()
        self._progress: dict[int, tuple[int, int]] = {}

    def register(self, router: Router) -> None:
        """Route the Review button here."""
        router.add(ReviewButton, self.review)

    def close(self) -> None:
        """Stop the worker process."""
        self.reviewer.close()

    @answers(posts_boards=True)
    async def review(self, interaction: Interaction, button: ReviewButton) -> None:
        """The Review button of a finished game's board."""
        game = await self.app.games.game(button.game_id)
        here = interaction.channel_id
        if game is None or here not in (game.channel_id, game.parent_id):
            raise Refusal("This button doesn't belong to a game in this channel.")
        if game.is_active or not game.plies:
            raise Refusal("Only a finished game with turns can be reviewed.")
        positions = game.plies + 1  # the review evaluates the start and every position after
        record, new = await self.store.request(
            game.id, game.guild_id, game.channel_id, interaction.user.id, time.time(), positions
        )
        if not new:
            await self._show_stored(interaction, game, record)
            return
        t = words(game.language)
        await interaction.response.send_message(review_progress(t, 0, positions))
        message = await interaction.original_response()
        await self.store.set_message(game.id, message.id)
        self.requested.set()

    async def _show_stored(
        self, interaction: Interaction, game: Game, record: ReviewRecord
    ) -> None:
        """A review asked for before: the finished one (only to the presser), or where the one
        under way is."""
        if record.status == "done" and record.review is not None:
            t = reader(interaction)
            review = GameReview.from_json(record.review)
            chart = await self._chart(review, t)
            await interaction.response.send_message(
                embed=review_embed(t, game, review, CHART_NAME), file=chart, ephemeral=True
            )
            return
        if record.status == "failed":
            raise Refusal("The AI could not review this game.")
        link = (
            f"https://discord.com/channels/{record.guild_id or '@me'}/{record.channel_id}/"
            f"{record.message_id}"
        )
        await tell(interaction, "The AI is reviewing this game: {link}", link=link)

    async def run(self) -> None:
        """Run the waiting reviews of this process's servers, one at a time, oldest first."""
        client = self.app.client
        await client.wait_until_ready()
        log.info("review loop started")
        progress = asyncio.create_task(self._watch_progress())
        try:
            while not client.is_closed():
                wake_at = time.time() + IDLE_SECONDS
                try:
                    for record in await self.store.waiting():
                        if self.app.settings.shards.owns(record.guild_id):
                            held_until = await self._run(record)
                            if held_until is not None:  # running elsewhere, or its runner died
                                wake_at = min(wake_at, held_until)
                except DatabaseUnavailable as error:
                    log.warning("reviews postponed: database unavailable: %s", error)
                except Exception:
                    log.exception("the review loop failed")
                delay = max(0.05, wake_at - time.time())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.requested.wait(), timeout=delay)
                self.requested.clear()
        finally:
            progress.cancel()

    async def _run(self, record: ReviewRecord) -> float | None:
        """Run one review, under its lease (renewed as it goes), and show it; when another
        process holds the lease, when it runs out instead."""
        lease = review_lease(record.game_id)
        leases = self.app.leases
        if not await leases.acquire(lease, time.time()):
            return await leases.expires_at(lease)
        try:
            game = await self.app.games.game(record.game_id)
            if game is None:
                await self.store.fail(record.game_id, time.time())
                return None
            turns = [parse_turn(turn.turn) for turn in await self.app.games.turns(game.id)]
            log.info("reviewing game %s (%d turns)", game.id, len(turns))
            began = time.perf_counter()
            self._progress[game.id] = (0, len(turns))
            showing = asyncio.create_task(self._show_progress(record, game))
            try:
                result = await self.reviewer.review(game.id, game.start_position, turns, game.seed)
            finally:
                showing.cancel()
                self._progress.pop(game.id, None)
            log.info("reviewed game %s in %.1f s", game.id, time.perf_counter() - began)
            await self.store.finish(game.id, result, time.time())
            await self._show(record, game, GameReview.from_json(result))
        finally:
            await leases.release(lease)
        return None

    async def _show_progress(self, record: ReviewRecord, game: Game) -> None:
        """Every few seconds: renew the lease, store the progress, show it on the message."""
        t = words(game.language)
        shown = None
        while True:
            await asyncio.sleep(PROGRESS_SECONDS)
            done, total = self._progress.get(game.id, (0, 0))
            await self.app.leases.renew(review_lease(game.id), time.time())
            await self.store.progress(game.id, done, total)
            if (done, total) != shown:
                shown = (done, total)
                await self._edit(record, content=review_progress(t, done, total))

    async def _watch_progress(self) -> None:
        """Move the worker's progress reports into :attr:`_progress` (polled, never blocking
        the loop)."""
        reports = self.reviewer.progress
        while True:
            try:
                while True:
                    game_id, done, total = reports.get_nowait()
                    if game_id in self._progress:
                        self._progress[game_id] = (done, total)
            except queue.Empty:
                pass
            await asyncio.sleep(0.5)

    async def _show(self, record: ReviewRecord, game: Game, review: GameReview) -> None:
        """The finished review on its message (or a new one if that is gone)."""
        t = words(game.language)
        embed = review_embed(t, game, review, CHART_NAME)
        chart = await self._chart(review, t)
        if not await self._edit(record, content=None, embed=embed, attachments=[chart]):
            channel = self.app.client.get_partial_messageable(game.channel_id)
            message = await channel.send(embed=embed, file=await self._chart(review, t))
            await self.store.set_message(game.id, message.id)

    async def _chart(self, review: GameReview, t: Words) -> discord.File:
        """The chart of the expected result, its mistakes marked (drawn off the loop)."""
        marks = [turn.ply for colour in (0, 1) for turn in review.mistakes(colour, 3)]
        loop = asyncio.get_running_loop()
        png = await loop.run_in_executor(None, render_chart, review.chart, marks, t)
        return discord.File(io.BytesIO(png), filename=CHART_NAME)

    async def _edit(self, record: ReviewRecord, **changes: object) -> bool:
        """Edit the review's message; ``False`` when it is gone."""
        stored = await self.store.review(record.game_id)
        message_id = stored.message_id if stored is not None else record.message_id
        if message_id is None:
            return False
        message = self.app.client.get_partial_messageable(record.channel_id).get_partial_message(
            message_id
        )
        try:
            await message.edit(**changes)
        except discord.HTTPException as error:
            log.info("could not show review of game %s: %s", record.game_id, error)
            return False
        return True
