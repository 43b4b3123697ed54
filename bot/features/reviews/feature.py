"""The AI's review of a finished game: the final board's Review button queues it (once per
game), a worker process of its own runs the reviews one at a time, and one public message in
the game's channel shows the progress, then the review. Pressing Review again shows the stored
one. Reviews survive restarts: a review whose process died runs again once its lease expires;
a review that fails is tried again after a backoff, behind the others, and after a few tries is
failed for good with its reason; a worker that dies is replaced and its review runs again.
Where the bot may only answer interactions (a DM or group DM between members, a server without
the bot) the review has no message: Review pressed again shows it, to the presser."""

from __future__ import annotations

import asyncio
import io
import logging
import math
import queue
import time
from collections.abc import Callable
from typing import Any

import discord

from bot.base.game import Game
from bot.base.refusals import Refusal
from bot.discord import layout
from bot.discord.answers import Interaction, answers, tell
from bot.discord.app import App
from bot.discord.controls import Router
from bot.discord.feature import Feature
from bot.features.reviews.store import REVIEWS_TOPIC, ReviewRecord, ReviewStore
from bot.i18n.catalogues import translator
from bot.i18n.locales import reader
from bot.loops import work
from bot.loops.background import Backoff, discord_call
from bot.loops.loop import Loop
from bot.storage.db import DatabaseUnavailable
from bot.storage.leases import review_lease
from bot.words.names import escaped_name
from bot.words.phrases import SANDSTONE, STONE_EMOJI, channel_url
from bot.workers.ai import Reviewer
from engine import BLACK, WHITE, Turn, parse_turn
from engine.review import GameReview
from engine.vocabulary import N_
from rendering.chart import render_chart
from rendering.describe import turn_text
from rendering.translator import Translator

log = logging.getLogger(__name__)

CHART_NAME = "review.png"
PROGRESS_SECONDS = 3.0
"""How often the review's message shows its progress."""
IDLE_SECONDS = 60.0
"""The longest the review loop sleeps when nothing is queued (a new request wakes it)."""
REVIEW_BACKOFF = Backoff(first=30.0, tries=4)
"""A review that fails is tried again 30 s, 1 min and 2 min later, then failed for good."""
REVIEW_AGAIN = N_("🔍 The AI is reviewing this game: press Review again in a minute to see it.")
"""The answer to Review where the bot only answers interactions (no message to edit)."""
FAILURE_LIMIT = 500
"""The longest failure reason stored."""


class LeaseLostError(Exception):
    """Another process took the lease of the work under way: this one stops it."""


class Reviews(Feature):
    """Queues, runs and shows reviews."""

    def __init__(
        self, app: App, reviewer: Reviewer | None = None, backoff: Backoff = REVIEW_BACKOFF
    ) -> None:
        super().__init__(app)
        self.store = ReviewStore(app.database, app.settings.shards)
        self.reviewer = reviewer or Reviewer()
        self.backoff = backoff
        self.progress_seconds = PROGRESS_SECONDS
        """How often the lease is renewed and the progress shown."""
        self.requested = work.Wakeup()
        self._stop_hearing: Callable[[], None] | None = None
        self.message = ReviewMessage(app, self.store)
        self.running = ReviewRun(app, self.store, self.reviewer, self.message)
        self.visibility = app.visibility
        """Who may open a game."""

    def register(self, router: Router) -> None:
        """Route the Review button here."""
        router.add(layout.REVIEW, lambda interaction, game: self.review(interaction, game))

    def loops(self) -> list[Loop]:
        """Runs the reviews due on this process's servers, one at a time, the first due first;
        sleeps until the next one is due or a new request comes."""
        return [Loop("reviews", self.run_due, IDLE_SECONDS, self.requested)]

    async def start(self) -> None:
        """Wake the loop whenever a review is queued, on any process (the live page's analysis
        board queues them too)."""
        self._stop_hearing = await self.app.database.listen(
            REVIEWS_TOPIC, lambda _: self.requested.set()
        )

    async def stop(self) -> None:
        """Stop the worker process (a review under way runs again after a restart)."""
        if self._stop_hearing is not None:
            self._stop_hearing()
        self.reviewer.close()

    @answers(posts_boards=True)
    async def review(self, interaction: Interaction, game_id: int) -> None:
        """The Review button of a finished game's board. A double press posts one message: the
        review is queued once per game (the second press is told where it is), and whichever
        of this press and the review's run comes last shows the finished review on it (where
        the bot only answers interactions, Review pressed again shows it)."""
        here, user = interaction.channel_id, interaction.user
        game = await self.app.stores.games.places.game_in(game_id, here)
        if (
            game is None
            or here not in (game.channel_id, game.parent_id)
            or not await self.visibility.can_see(game, user.id, user, seen_in=here)
        ):
            raise Refusal("This button doesn't belong to a game in this channel.")
        if game.is_active or not game.plies:
            raise Refusal("Only a finished game with turns can be reviewed.")
        positions = game.plies + 1  # the review evaluates the start and every position after
        record, new = await self.store.request(
            game.id, game.guild_id, game.channel_id, interaction.user.id, time.time(), positions
        )
        if not new:
            await self.message.show_stored(interaction, game, record)
            return
        t = translator(game.language)
        if game.answers_only:  # no message the bot could edit there
            await interaction.response.send_message(t(REVIEW_AGAIN))
            return
        await interaction.response.send_message(review_progress(t, 0, positions))
        message = await interaction.original_response()
        await self.store.set_message(game.id, message.id)
        self.requested.set()
        stored = await self.store.review(game.id)  # done before its message was recorded?
        if stored is not None and stored.status == "done" and stored.review is not None:
            await self.message.show(stored, game, GameReview.from_json(stored.review))

    async def run_due(self) -> float | None:
        """Run every review now due on this process's servers, one after the other; return
        when to look again (the next try of a review that failed, or when the lease of one
        running elsewhere runs out), ``None`` if none waits."""
        wake_at = math.inf
        for record in await self.store.waiting():  # this process's servers only
            if record.next_attempt_at > time.time():  # waiting out its backoff
                wake_at = min(wake_at, record.next_attempt_at)
                continue
            again_at = await self._run(record)
            if again_at is not None:
                wake_at = min(wake_at, again_at)
        return None if wake_at == math.inf else wake_at

    async def _run(self, record: ReviewRecord) -> float | None:
        """Run one review, under its lease, store it and show it; or, if it fails, have it
        tried again later (or give up on it). Return when to look at it again: when its next
        try is due, or when the lease another process holds runs out."""
        lease = review_lease(record.game_id)
        leases = self.app.stores.leases
        if not await leases.acquire(lease, time.time()):
            return await leases.expires_at(lease) or time.time()
        try:
            current = await self.store.review(record.game_id)  # as it is now, under the lease
            if current is None or current.status not in ("queued", "running"):
                return None  # done meanwhile
            if current.next_attempt_at > time.time():
                return current.next_attempt_at
            game = await self.app.stores.games.places.game_in(record.game_id, record.channel_id)
            if game is None:  # (games are never deleted while their review waits)
                await self.store.fail(record.game_id, time.time(), "no such game", 0)
                return None
            try:
                await self.running.run(current, game, self.progress_seconds)
            except DatabaseUnavailable:
                raise  # not the review's fault: the loop tries again
            except LeaseLostError:
                log.warning("lost the lease of reviewing game %s: abandoned here", game.id)
            except Exception as error:
                return await self._failed(current, game, error)
        finally:
            await leases.release(lease)
        return None

    async def _failed(self, record: ReviewRecord, game: Game, error: Exception) -> float | None:
        """A try of the review failed: it is tried again after a backoff (when that is, is
        returned), or, after :attr:`backoff`'s tries, failed for good and said so."""
        attempts = record.attempts + 1
        reason = f"{type(error).__name__}: {error}"[:FAILURE_LIMIT]
        now = time.time()
        if self.backoff.gives_up(attempts):
            log.error(
                "gave up reviewing game %s after %d tries: %s",
                game.id,
                attempts,
                reason,
                exc_info=error,
            )
            await self.store.fail(game.id, now, reason, attempts)
            t = translator(game.language)
            await self.message.edit(record, content=t("The AI could not review this game."))
            return None
        again_at = now + self.backoff.delay(attempts)
        log.warning(
            "reviewing game %s failed (try %d of %d; next in %.0f s): %s",
            game.id,
            attempts,
            self.backoff.tries,
            again_at - now,
            reason,
            exc_info=error,
        )
        await self.store.retry(game.id, attempts, again_at, reason)
        return again_at


class ReviewRun:
    """One review run in the worker process under its lease: the lease renewed and the
    progress shown every few seconds, then the review shown and stored."""

    def __init__(
        self, app: App, store: ReviewStore, reviewer: Reviewer, message: ReviewMessage
    ) -> None:
        self.app = app
        self.store = store
        self.reviewer = reviewer
        self.message = message
        self.reports = ProgressReports(reviewer)

    async def run(self, record: ReviewRecord, game: Game, every: float) -> None:
        """Review ``game`` in the worker, store the review, show it; renew the lease and
        show the progress ``every`` so many seconds meanwhile."""
        turns = [parse_turn(turn.turn) for turn in await self.app.stores.games.turns(game.id)]
        log.info("reviewing game %s (%d turns, try %d)", game.id, len(turns), record.attempts + 1)
        await self.store.progress(game.id, 0, len(turns) + 1)  # running from its first moment
        began = time.perf_counter()
        result = await self._under_lease(record, game, turns, every)
        log.info("reviewed game %s in %.1f s", game.id, time.perf_counter() - began)
        review = GameReview.from_json(result)
        shown_on = None
        try:  # shown first: a crash before it is stored runs it (and shows it) again
            shown_on = await self.message.show(record, game, review)
        except Exception:  # the Review button shows it once stored
            log.exception("could not show the review of game %s", game.id)
        await self.store.finish(game.id, result, time.time())
        stored = await self.store.review(game.id)  # its message recorded meanwhile?
        if stored is not None and stored.message_id not in (None, shown_on):
            try:
                await self.message.show(stored, game, review)
            except Exception:
                log.exception("could not show the review of game %s", game.id)

    async def _under_lease(
        self, record: ReviewRecord, game: Game, turns: list[Turn], every: float
    ) -> str:
        """The review's JSON from the worker, while its lease is renewed and its progress
        shown; raises :class:`LeaseLostError` (the worker's task abandoned) if the lease is
        lost."""
        self.reports.done[game.id] = (0, len(turns) + 1)
        running = asyncio.ensure_future(
            self.reviewer.review(game.id, game.start_position, turns, game.seed)
        )
        keeper = asyncio.create_task(
            self._keep(record, game, every), name=f"review {game.id} lease"
        )
        try:
            await asyncio.wait((running, keeper), return_when=asyncio.FIRST_COMPLETED)
        finally:
            self.reports.done.pop(game.id, None)
            for task in (running, keeper):
                task.cancel()
            await asyncio.wait((running, keeper))
        if not running.cancelled():
            return running.result()
        keeper.result()  # its own failure, if it failed
        raise LeaseLostError(review_lease(game.id))

    async def _keep(self, record: ReviewRecord, game: Game, every: float) -> None:
        """Every few seconds: renew the lease, store the progress, show it on the message;
        return when the lease is lost."""
        t = translator(game.language)
        lease = review_lease(game.id)
        shown = None
        while True:
            await asyncio.sleep(every)
            try:
                if not await self.app.stores.leases.renew(lease, time.time()):
                    return
                self.reports.read()
                done, total = self.reports.done.get(game.id, (0, 0))
                await self.store.progress(game.id, done, total)
            except DatabaseUnavailable as error:  # held until it runs out: try again
                log.warning("review of game %s: database unavailable: %s", game.id, error)
                continue
            if (done, total) != shown:
                shown = (done, total)
                await self.message.edit(record, content=review_progress(t, done, total))


class ReviewMessage:
    """The public message of a review: its progress, then the review (or a new message, if
    that one is gone)."""

    def __init__(self, app: App, store: ReviewStore) -> None:
        self.app = app
        self.store = store

    async def show_stored(self, interaction: Interaction, game: Game, record: ReviewRecord) -> None:
        """A review asked for before: the finished one (only to the presser), or where the one
        under way is."""
        if record.status == "done" and record.review is not None:
            t = reader(interaction)
            review = GameReview.from_json(record.review)
            chart = await self.chart(review, t)
            await interaction.response.send_message(
                embed=review_embed(t, game, review, CHART_NAME), file=chart, ephemeral=True
            )
            return
        if record.status == "failed":
            raise Refusal("The AI could not review this game.")
        if record.message_id is None:  # its message is being posted (or it has none)
            raise Refusal("The AI is reviewing this game already.")
        link = channel_url(record.guild_id, record.channel_id, record.message_id)
        await tell(interaction, "The AI is reviewing this game: {link}", link=link)

    async def show(self, record: ReviewRecord, game: Game, review: GameReview) -> int | None:
        """The finished review on its message (or a new one if that one is gone); the id of
        the message it is on. A review without a message yet — a press is posting it (and
        shows the review once it has), or the analysis board asked for it — is only stored:
        ``None``."""
        stored = await self.store.review(record.game_id)
        message_id = stored.message_id if stored is not None else record.message_id
        if message_id is None:
            return None
        t = translator(game.language)
        embed = review_embed(t, game, review, CHART_NAME)
        chart = await self.chart(review, t)
        changes: dict[str, Any] = {"content": None, "embed": embed, "attachments": [chart]}
        if await self._edit(record, message_id, changes):
            return message_id
        channel = self.app.client.get_partial_messageable(game.channel_id)
        file = await self.chart(review, t)
        message = await discord_call(channel.send(embed=embed, file=file))
        await self.store.set_message(game.id, message.id)
        return message.id

    async def chart(self, review: GameReview, t: Translator) -> discord.File:
        """The chart of the expected result, its mistakes marked (drawn off the loop)."""
        marks = [turn.ply for colour in (0, 1) for turn in review.mistakes(colour, 3)]
        png = await self.app.renderer.slow(render_chart, review.chart, marks, t)
        return discord.File(io.BytesIO(png), filename=CHART_NAME)

    async def edit(self, record: ReviewRecord, content: str) -> bool:
        """Show ``content`` on the review's message; ``False`` when it is gone (or Discord
        refused the edit). A Discord that does not answer in time is logged and taken as done:
        the review is stored, and the Review button shows it."""
        stored = await self.store.review(record.game_id)
        message_id = stored.message_id if stored is not None else record.message_id
        if message_id is None:
            return False
        return await self._edit(record, message_id, {"content": content})

    async def _edit(self, record: ReviewRecord, message_id: int, changes: dict[str, Any]) -> bool:
        """Edit the review's message ``message_id`` with ``changes`` (``PartialMessage.edit``'s
        arguments), as :meth:`edit`."""
        message = self.app.client.get_partial_messageable(record.channel_id).get_partial_message(
            message_id
        )
        try:
            await discord_call(message.edit(**changes))
        except discord.HTTPException as error:
            log.info("could not show review of game %s: %s", record.game_id, error)
            return False
        except TimeoutError:
            log.warning("showing the review of game %s timed out", record.game_id)
        return True


class ProgressReports:
    """How far the reviews under way are, as the worker reports it through its queue."""

    def __init__(self, reviewer: Reviewer) -> None:
        self.reviewer = reviewer
        self.done: dict[int, tuple[int, int]] = {}
        """Each review under way: positions done, and in all."""

    def read(self) -> None:
        """Move the worker's progress reports into :attr:`done` (never blocking: read when the
        progress is shown)."""
        reports = self.reviewer.progress  # a new worker brings a new queue
        try:
            while True:
                game_id, done, total = reports.get_nowait()
                if game_id in self.done:
                    self.done[game_id] = (done, total)
        except queue.Empty:
            pass
        except (OSError, ValueError, EOFError) as error:  # a queue a dead worker broke
            log.info("review progress unreadable: %s", error)


# -- what it says -------------------------------------------------------------------------------


def review_progress(t: Translator, done: int, total: int) -> str:
    """The review's message while the AI works."""
    if not total:
        return t("🔍 The AI will review this game as soon as it can.")
    return t(
        "🔍 The AI is reviewing this game… {done} of {total} positions.", done=done, total=total
    )


def review_embed(t: Translator, game: Game, review: GameReview, chart_name: str) -> discord.Embed:
    """The AI's review: each player's accuracy, their three biggest mistakes with the better
    turn the AI found, and the chart of the expected result."""
    embed = discord.Embed(
        title=t(
            "AI review: {white} vs {black}",
            white=escaped_name(game.white_name),
            black=escaped_name(game.black_name),
        ),
        colour=SANDSTONE,
        description=t(
            "**Accuracy** is the share of a player's turns that kept the result the AI "
            "expected before them."
        ),
    )
    for colour in (WHITE, BLACK):
        name = escaped_name(game.name(colour))
        lines = [
            t(
                "**{ply}.** {played} — better: {best}",
                ply=turn.ply,
                played=turn_text(turn.played, name, t),
                best=turn_text(turn.best, name, t),
            )
            for turn in review.mistakes(colour, 3)
        ]
        accuracy = f"{review.accuracy[colour]:.0%}"
        embed.add_field(
            name=t(
                "{stone} {name}: accuracy {accuracy}",
                stone=STONE_EMOJI[colour],
                name=name,
                accuracy=accuracy,
            ),
            value=("\n".join(lines) or t("No mistakes found."))[:1024],
            inline=False,
        )
    embed.set_image(url=f"attachment://{chart_name}")
    embed.set_footer(text=t("The chart: the expected result for White after each turn."))
    return embed
