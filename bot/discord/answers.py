"""Answering interactions: the one place refusals become polite ephemeral messages.

Every feature handler is decorated with :func:`answers`: it refuses new work while the bot
shuts down, checks that the interaction comes from a server (and that the bot may post boards
in its channel) when asked, and turns a :class:`~bot.base.refusals.Refusal` or an unexpected
error into an ephemeral answer, so that no interaction is left unanswered.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

import discord

from bot.base.answer_deadline import answering
from bot.base.logs import INTERACTION_ID
from bot.base.people import Caller
from bot.base.refusals import Refusal
from bot.discord.venues import require_server, venue_of
from bot.health.metrics import METRICS
from bot.i18n.locales import reader
from bot.loops import work
from bot.storage.db import DatabaseBusy, DatabaseCannotWrite, DatabaseUnavailable
from bot.words.phrases import LIVE_BOARD_OFF, LIVE_UNAVAILABLE, command
from engine.vocabulary import N_

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]
USERS_ONLY = discord.AllowedMentions(everyone=False, roles=False, users=True)


def pinging(user_ids: Iterable[int]) -> discord.AllowedMentions:
    """Mentions that ping ``user_ids`` and nobody else (no role, no ``@everyone``)."""
    return discord.AllowedMentions(
        everyone=False,
        roles=False,
        replied_user=False,
        users=[discord.Object(user) for user in dict.fromkeys(user_ids)],
    )


SOMETHING_WENT_WRONG = N_(
    "Sorry — something went wrong on my side and nothing was changed. Please try again; if it "
    "keeps happening, tell a server admin."
)
RESTARTING = N_("I'm restarting — please try again in a few seconds.")
DATABASE_BUSY = N_(
    "My database is busy for a moment (maintenance), so nothing was changed. Please try again."
)
DATABASE_UNAVAILABLE = N_(
    "I can't reach my database right now, so nothing was changed. Please try again in a minute."
)
CANNOT_SAVE = N_(
    "I can't save anything right now — my server's disk is full or read-only — so nothing was "
    "changed, and nothing was lost. Please try again later."
)
ALREADY_ANSWERED = 40060
"""Discord's error code for a second answer to an interaction: while two processes run the
same shard (a handoff), both receive its interactions and the first answer wins."""
ANSWER_WITHIN = 2.4
"""Seconds from a handler's start within which its waits for the database end (Discord wants
an answer within 3: the rest is for sending it)."""
OUTCOMES = (
    "ok",
    "refused",
    "error",
    "database_busy",
    "database_unavailable",
    "database_cannot_write",
    "closing",
    "answered_elsewhere",
)
"""How an interaction ended (``tholos_interactions_total``'s ``outcome``)."""
REQUIRED_PERMISSIONS = (
    ("view_channel", N_("View Channel")),
    ("send_messages", N_("Send Messages")),
    ("embed_links", N_("Embed Links")),
    ("attach_files", N_("Attach Files")),
    ("read_message_history", N_("Read Message History")),
)
"""What the bot needs in a channel to post boards: the flag and its name in Discord's UI (in
the reader's language, as Discord shows it)."""


def missing_permissions(permissions: discord.Permissions) -> list[str]:
    """What of :data:`REQUIRED_PERMISSIONS` ``permissions`` lack, by their names in Discord's
    UI (English, marked for translation)."""
    return [name for flag, name in REQUIRED_PERMISSIONS if not getattr(permissions, flag)]


class Interactions:
    """The interactions under way, so that a shutdown lets them finish first."""

    def __init__(self) -> None:
        self.closing = False
        self._running: set[asyncio.Task[Any]] = set()

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """Count the current task as an interaction under way while the block runs."""
        task = asyncio.current_task()
        assert task is not None, "interactions are handled in tasks"
        self._running.add(task)
        try:
            yield
        finally:
            self._running.discard(task)

    async def drain(self, timeout: float) -> None:
        """Refuse new interactions and wait (up to ``timeout`` seconds) for those under way."""
        self.closing = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while running := {task for task in self._running if task is not asyncio.current_task()}:
            left = deadline - loop.time()
            if left <= 0:
                log.warning("%d interaction(s) still running at shutdown", len(running))
                return
            log.info("waiting for %d interaction(s) to finish", len(running))
            await asyncio.wait(running, timeout=left)


class Handles(Protocol):
    """A feature: it knows the interactions under way."""

    @property
    def interactions(self) -> Interactions: ...


F = TypeVar("F", bound=Handles)
P = ParamSpec("P")
Handler = Callable[Concatenate[F, Interaction, P], Awaitable[None]]


def answers(
    *, server_only: bool = False, posts_boards: bool = False
) -> Callable[[Handler[F, P]], Handler[F, P]]:
    """Decorate a feature's handler ``(self, interaction, …)`` so that it always answers.

    ``server_only`` refuses anywhere but a server with the bot
    (:func:`~bot.discord.venues.require_server`); ``posts_boards`` refuses a channel where the
    bot lacks a permission it needs to post boards, naming it.
    """

    def decorate(handler: Handler[F, P]) -> Handler[F, P]:
        kind = handler.__qualname__
        counted = {outcome: METRICS.interactions.labels(kind, outcome) for outcome in OUTCOMES}

        @functools.wraps(handler)
        async def run(feature: F, interaction: Interaction, *args: P.args, **kwargs: P.kwargs):
            if feature.interactions.closing:
                counted["closing"].inc()
                await tell(interaction, RESTARTING)
                return
            context = INTERACTION_ID.set(interaction.id)
            outcome = "error"  # unless it ends otherwise (a cancelled handler too)
            with feature.interactions.running(), work.busy(), answering(ANSWER_WITHIN):
                try:
                    if server_only:
                        require_server(interaction)
                    if posts_boards:
                        require_permissions(interaction)
                    await handler(feature, interaction, *args, **kwargs)
                    outcome = "ok"
                except Refusal as refusal:
                    outcome = "refused"
                    await tell(interaction, refusal.message, **refusal.values)
                except discord.HTTPException as error:
                    if error.code == ALREADY_ANSWERED:  # another process of the shard did
                        outcome = "answered_elsewhere"
                        log.info("interaction %s was answered elsewhere", interaction.id)
                        return
                    log.exception("interaction %s failed", interaction.id)
                    await tell(interaction, SOMETHING_WENT_WRONG)
                except DatabaseUnavailable as error:  # busy, out of reach, or cannot write
                    outcome, sentence = database_trouble(error)
                    log.warning(
                        "interaction %s: %s: %s", interaction.id, outcome.replace("_", " "), error
                    )
                    await tell(interaction, sentence)
                except Exception:
                    log.exception("interaction %s failed", interaction.id)
                    await tell(interaction, SOMETHING_WENT_WRONG)
                finally:
                    counted[outcome].inc()
                    INTERACTION_ID.reset(context)

        return run

    return decorate


DATABASE_TROUBLES = (
    (DatabaseCannotWrite, "database_cannot_write", CANNOT_SAVE),
    (DatabaseBusy, "database_busy", DATABASE_BUSY),
    (DatabaseUnavailable, "database_unavailable", DATABASE_UNAVAILABLE),
)
"""Each way the database fails to do what a member asked: the error, the interaction's
outcome, and what the member is told."""


def database_trouble(error: DatabaseUnavailable) -> tuple[str, str]:
    """The outcome of an interaction the database failed, and why, for the member (English,
    marked for translation): it cannot save, it is busy, or it cannot be reached."""
    return next(
        (outcome, said) for kind, outcome, said in DATABASE_TROUBLES if isinstance(error, kind)
    )


def caller(interaction: Interaction) -> Caller:
    """Who acts, and where."""
    return Caller(
        interaction.user.id, interaction.channel_id or 0, interaction.created_at.timestamp()
    )


def require_permissions(interaction: Interaction) -> None:
    """Refuse when the bot can't post boards in the interaction's channel, naming what's missing
    (the bot's DM needs none, nor does a place the bot is not in: its boards are answers
    there)."""
    if venue_of(interaction) != "server":
        return
    t = reader(interaction)
    missing = [t(name) for name in missing_permissions(interaction.app_permissions)]
    if missing:
        raise Refusal(
            "I can't run a game here yet: I need these permissions in this channel: "
            "**{permissions}**. A server admin can grant them in the channel's settings "
            "(Permissions → the Tholos bot's role).",
            permissions=", ".join(missing),
        )


async def tell(interaction: Interaction, message: str, /, **values: object) -> None:
    """Answer ``interaction`` with an ephemeral ``message`` (English, with ``{placeholders}``
    filled from ``values``) in the reader's language, whether or not it was acknowledged."""
    text = reader(interaction)(message, **values)
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True, allowed_mentions=USERS_ONLY)
        else:
            await interaction.response.send_message(
                text, ephemeral=True, allowed_mentions=USERS_ONLY
            )
    except discord.HTTPException as error:
        if error.code == ALREADY_ANSWERED:
            log.info("interaction %s was answered elsewhere", interaction.id)
        else:
            log.exception("could not answer interaction %s", interaction.id)


async def launch_live_board(interaction: Interaction, live: bool) -> None:
    """Answer ``interaction`` by launching the live board (the Activity) where the member is;
    where this bot does not serve it (``live`` false) or Discord refuses the launch (Activities
    off), tell them so privately."""
    if not live:
        await tell(interaction, LIVE_BOARD_OFF, challenge=command("tholos challenge"))
        return
    try:
        await interaction.response.launch_activity()
    except discord.HTTPException as error:
        log.warning("could not launch the live board: %s", error)
        await tell(interaction, LIVE_UNAVAILABLE)
