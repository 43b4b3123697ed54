"""Challenges: ``/tholos challenge`` (a member, anyone — an open challenge —, or the bot itself
for its AI) and ``/tholos cancel``; Accept / Decline / Withdraw; Rematch on a finished board."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from functools import partial

import discord
from discord import app_commands
from discord.ext.commands import Cog

from bot.base.game import Game, Venue
from bot.base.game_options import ColourChoice, FirstChoice, GameOptions, Level
from bot.base.paces import Pace, TimeControl
from bot.base.people import Person
from bot.base.refusals import Refusal
from bot.discord import layout
from bot.discord.answers import USERS_ONLY, Interaction, answers, caller, require_permissions, tell
from bot.discord.app import App
from bot.discord.commands import GAME_OPTIONS, Command, Tholos
from bot.discord.controls import ROW_ID, Button, CustomId, Router, view_of
from bot.discord.feature import Feature
from bot.discord.opponent import AiOpponent
from bot.discord.places import THREAD_FAILED, Opened, game_line, open_thread, place_for, thread_name
from bot.discord.venues import SERVER_ONLY, guild_id_of, venue_of
from bot.features.challenges.service import (
    Answer,
    ChallengeService,
    ExpiredChallengeError,
    RatingOf,
    check_rated,
)
from bot.features.challenges.store import Challenge, ChallengeStore
from bot.features.lessons import FIRST_GAME
from bot.i18n.catalogues import NC_, translator
from bot.i18n.locales import reader, server_language
from bot.loops import work
from bot.loops.background import discord_call
from bot.loops.loop import Loop
from bot.storage.leases import Lease, taking_lease
from bot.words.names import mention, plain_name
from bot.words.phrases import LEVEL_NAMES, command, level_name, pace_name
from engine.core import Mode
from engine.vocabulary import N_
from rendering.translator import Translator

log = logging.getLogger(__name__)

EXPIRY_SECONDS = 30.0
"""The longest the expiry loop sleeps (a challenge another process posted is timed within
it)."""

BEING_TAKEN = N_(
    "Someone is accepting this challenge right now. If no game starts in a few seconds, "
    "press Accept again."
)
"""Said while another press holds the open challenge (it is starting its game, or its process
died and its hold runs out within seconds): no game exists yet, so nobody was faster yet."""
NO_RATINGS_HERE = N_(
    "Games here aren't rated (ratings live in servers that added me), so a challenge here "
    "can't ask for a rating range."
)
ANSWERS = {
    "accept": (N_("Accept"), "success"),
    "decline": (N_("Decline"), "danger"),
    "withdraw": (N_("Withdraw"), "secondary"),
}
"""The buttons of a challenge: their words and emphasis (an open one has no Decline)."""
RATING_RANGE = (50, 1000)
"""The rating ranges an open challenge may ask for."""
LEVEL_CHOICES = [
    app_commands.Choice(
        name=app_commands.locale_str(
            level_name(translator("en"), level), translate=partial(level_name, level=level)
        ),
        value=level,
    )
    for level in LEVEL_NAMES
]
"""The AI's levels as the commands offer them, each with its rating (``medium · 1500``)."""


CHALLENGE = CustomId("ch", (("challenge", ROW_ID, int), ("answer", "accept|decline|withdraw", str)))
"""Answer a challenge."""


class Challenges(Feature):
    """The handlers that start games."""

    def __init__(self, app: App, opponent: AiOpponent, rating: RatingOf) -> None:
        """``opponent``: the AI, for games against it; ``rating``: a member's rating on a
        server, for open challenges with a rating range."""
        super().__init__(app)
        self.store = ChallengeStore(app.database, app.settings.shards)
        self.service = ChallengeService(
            self.store,
            app.stores.games,
            challenge_timeout=app.settings.challenge_timeout,
            reminders=app.reminder_defaults,
            alarm=app.reminder_alarm.ring,
            rating=rating,
        )
        """How games start: challenges, open challenges, rematches, games against the AI."""
        self.opponent = opponent
        self.ai_games = AiGames(app, self.service, opponent)
        self.posted = work.Wakeup()
        """Set when a challenge is posted: the expiry loop wakes to time its expiry."""
        self.messages = ChallengeMessages(app, self.store, self.posted)
        self.answering = ChallengeAnswers(app, self.service, self.messages)

    def commands(self) -> list[Command]:
        return ChallengeCommands(self).get_app_commands()

    def loops(self) -> list[Loop]:
        """Challenges expire on time: the loop sleeps until the next is due (or one is
        posted)."""
        return [Loop("challenges", self.expire_due, EXPIRY_SECONDS, self.posted)]

    async def start(self) -> None:
        """Expire what expired while the bot was away."""
        await self.expire()

    async def expire_due(self) -> float | None:
        """Expire what is due; when the next challenge expires."""
        await self.expire()
        return await self.store.next_expiry()

    def register(self, router: Router) -> None:
        """Route the challenge's buttons, Rematch and the course's first game here."""
        router.add(CHALLENGE, self.answer)
        router.add(layout.REMATCH, lambda interaction, game: self.rematch(interaction, game))
        router.add(FIRST_GAME, self.first_game)

    async def first_game(self, interaction: Interaction) -> None:
        """Play your first game, at the end of the course: against the easy AI, with hints,
        where the member is."""
        await self.play_the_ai(interaction, GameOptions(hints=True), "easy", None)

    @answers(posts_boards=True)
    async def challenge(
        self,
        interaction: Interaction,
        opponent: discord.abc.User | None,
        options: GameOptions,
        level: Level,
        rating_range: int | None = None,
        pace: str | None = None,
    ) -> None:
        """``/tholos challenge``: post the challenge with its buttons (``opponent`` ``None``:
        an open challenge, for anyone within ``rating_range``), or start a game against the AI
        when ``opponent`` is this bot; ``pace``: correspondence or a live clock (``None``: the
        server's default). Where the bot is not (a DM or group DM between members, a server
        without the bot), the challenge and its game are answers to presses there, unrated."""
        await self.expire()  # an expired challenge must not block the channel
        venue = challenge_venue(interaction, rating_range)
        guild_id = guild_id_of(interaction)
        channel_id = interaction.channel_id or 0
        me = Person(interaction.user.id, plain_name(interaction.user.display_name))
        rules = await self.app.rules(guild_id)
        options = replace(options, language=server_language(interaction), clock=rules.pace(pace))
        if options.mode is None and not options.ornaments:
            options = replace(options, mode=rules.default_mode)
        place = place_for(interaction, rules.threads)
        client_user = self.app.client.user
        if client_user is not None and opponent is not None and opponent.id == client_user.id:
            await self.ai_games.start_here(interaction, me, level, options, place.thread, venue)
        else:
            rival = (
                None
                if opponent is None
                else Person(opponent.id, plain_name(opponent.display_name), opponent.bot)
            )
            challenge = await self.service.challenge(
                guild_id=guild_id,
                channel_id=channel_id,
                challenger=me,
                opponent=rival,
                options=options,
                in_channel=not place.thread,
                timeout=rules.challenge_timeout,
                rating_range=rating_range,
                venue=venue,
            )
            await self.messages.post(interaction, challenge)
        if place.note:
            await tell(interaction, place.note)

    async def play_the_ai(
        self, interaction: Interaction, options: GameOptions, level: Level, pace: str | None
    ) -> None:
        """``/tholos-ai``: in a server with the bot, as challenging the bot; in a direct message
        with the bot, or anywhere else a member's install of the app reaches, a game played
        right there (at ``pace``, correspondence unless said: no server settings there)."""
        if venue_of(interaction) != "server":
            clock = TimeControl.of(pace)  # no server: every clock is offered
            await self._ai_in_dm(interaction, replace(options, clock=clock), level)
            return
        assert self.app.client.user is not None
        await self.challenge(interaction, self.app.client.user, options, level, pace=pace)

    @answers()
    async def _ai_in_dm(self, interaction: Interaction, options: GameOptions, level: Level) -> None:
        """``/tholos-ai`` outside servers with the bot: the game is played right there."""
        await self.ai_games.start_in_dm(interaction, options, level)

    @answers()
    async def answer(self, interaction: Interaction, challenge: int, answer: Answer) -> None:
        """Accept / Decline / Withdraw on a challenge message (see
        :meth:`ChallengeAnswers.answer`)."""
        await self.answering.answer(interaction, challenge, answer)

    @answers()
    async def cancel(self, interaction: Interaction) -> None:
        """``/tholos cancel``: the challenger withdraws the channel's pending challenge."""
        challenge = await self.service.withdraw_pending(caller(interaction))
        t = reader(interaction)
        await interaction.response.send_message(t("Your challenge is withdrawn."), ephemeral=True)
        await self.messages.refresh(challenge)

    @answers(posts_boards=True)
    async def rematch(self, interaction: Interaction, game_id: int) -> None:
        """The Rematch button of a finished game."""
        await self.expire()
        rematch = await self.service.rematch(game_id, caller(interaction))
        if isinstance(rematch, Game):
            await self.opponent.start(interaction, rematch)
        else:
            await self.messages.post(interaction, rematch)

    async def expire(self) -> None:
        """Close the challenges whose time is up and say so on their messages."""
        for challenge in await self.service.expire_due():
            await self.messages.refresh(challenge)


def challenge_venue(interaction: Interaction, rating_range: int | None) -> Venue:
    """Where ``/tholos challenge`` is used, if a challenge can be made there: not in the bot's
    DM (nobody but the bot is there), and without a rating range where games are unrated."""
    venue = venue_of(interaction)
    if venue == "bot_dm":
        raise Refusal(SERVER_ONLY, ai=command("tholos-ai"))
    if venue != "server" and rating_range is not None:
        raise Refusal(NO_RATINGS_HERE)
    return venue


class ChallengeMessages:
    """The public message of a challenge: posted with its buttons, and showing its state once
    it is closed."""

    def __init__(self, app: App, store: ChallengeStore, posted: work.Wakeup) -> None:
        self.app = app
        self.store = store
        self.posted = posted
        """Set when a challenge is posted (the expiry loop wakes to time its expiry)."""

    async def post(self, interaction: Interaction, challenge: Challenge) -> None:
        """Answer ``interaction`` with the public challenge message and remember it."""
        t = translator(challenge.language)
        sent = await interaction.response.send_message(
            challenge_text(t, challenge),
            view=challenge_view(t, challenge),
            allowed_mentions=USERS_ONLY,
        )
        if sent.message_id is None:
            return
        store = self.store
        await store.set_message(challenge.id, sent.message_id)
        now = await store.challenge(challenge.id)
        if now is not None and now.status != "pending":  # answered or cancelled meanwhile
            await self.refresh(now)
        self.posted.set()

    async def refresh(self, challenge: Challenge) -> None:
        """Show a closed challenge's status on its message and disable its buttons (where the
        bot is not, its message changes only when pressed)."""
        if challenge.message_id is None or challenge.answers_only:
            return
        channel = self.app.client.get_partial_messageable(challenge.channel_id)
        t = translator(challenge.language)
        try:
            await discord_call(
                channel.get_partial_message(challenge.message_id).edit(
                    content=challenge_text(t, challenge),
                    view=challenge_view(t, challenge),
                    allowed_mentions=USERS_ONLY,
                )
            )
        except discord.HTTPException as error:
            log.info("could not update challenge message %s: %s", challenge.message_id, error)
        except TimeoutError:  # the next challenge's edit must not wait for this one
            log.warning("updating challenge message %s timed out", challenge.message_id)


class ChallengeAnswers:
    """Accept, Decline and Withdraw: the challenge answered, and the game it starts posted."""

    def __init__(self, app: App, service: ChallengeService, messages: ChallengeMessages) -> None:
        self.app = app
        self.service = service
        self.messages = messages

    async def answer(self, interaction: Interaction, challenge: int, answer: Answer) -> None:
        """Answer a challenge; an open challenge is taken by the first member to press Accept
        (the lease on taking it keeps the others from opening a second thread: they are told
        someone is accepting it, and once its game exists that someone was faster)."""
        held: list[Lease] = []
        try:
            await self._answer(interaction, challenge, answer, held)
        finally:
            for lease in held:
                await self.app.stores.leases.release(lease)

    async def _answer(
        self, interaction: Interaction, challenge: int, answer: Answer, held: list[Lease]
    ) -> None:
        """:meth:`answer`, holding the leases it takes in ``held`` (released after)."""
        opened = None
        try:
            if answer == "accept":
                require_permissions(interaction)
                checked = await self.service.check(challenge, caller(interaction), "accept")
                if checked.is_open:
                    taking = taking_lease(checked.id)
                    if not await self.app.stores.leases.acquire(taking, time.time()):
                        raise Refusal(BEING_TAKEN)
                    held.append(taking)
                rules = await self.app.rules(checked.guild_id)
                if place_for(interaction, rules.threads).thread:
                    await interaction.response.defer()  # opening a thread takes a request
                    opened = await _open_thread(interaction, checked)
            answered = await self.service.answer(
                challenge,
                caller(interaction),
                answer,
                thread_id=opened.thread.id if opened else None,
                name=plain_name(interaction.user.display_name),
            )
        except ExpiredChallengeError as expired:
            await _edit(interaction, expired.challenge)
            raise
        except Refusal:
            if opened is not None:
                await opened.delete()
            await self._show_if_closed(interaction, challenge)
            raise
        game = answered.game
        if game is not None and opened is not None:
            await _edit(interaction, answered.challenge, game_line(translator(game.language), game))
            await self.app.poster.post(opened.thread.send, game, None)
            return
        await _edit(interaction, answered.challenge)
        if game is not None:
            await self.app.poster.post_after_change(interaction, game, None)

    async def _show_if_closed(self, interaction: Interaction, challenge_id: int) -> None:
        """Where the bot is not, a closed challenge's message changes only when pressed: the
        press refused shows its status there (its buttons disabled)."""
        challenge = await self.service.challenges.challenge(challenge_id)
        if (
            challenge is not None
            and challenge.answers_only
            and challenge.status != "pending"
            and challenge.channel_id == interaction.channel_id
            and not interaction.response.is_done()
        ):
            await _edit(interaction, challenge)


async def _open_thread(interaction: Interaction, challenge: Challenge) -> Opened | None:
    """The accepted challenge's thread (``None``, and a note, if Discord refused one)."""
    assert interaction.message is not None  # the challenge's buttons are on it
    t = translator(challenge.language)
    taker = plain_name(interaction.user.display_name)  # an open challenge's opponent
    opponent = challenge.opponent_name or taker
    name = thread_name(t, challenge.challenger_name, opponent)
    players = [challenge.challenger_id, challenge.opponent_id or interaction.user.id]
    opened = await open_thread(interaction.client, interaction.message, name, players)
    if opened is None:
        await tell(interaction, THREAD_FAILED)
    return opened


async def _edit(interaction: Interaction, challenge: Challenge, text: str | None = None) -> None:
    """Show the challenge's state (or ``text``) on its message, buttons disabled when it
    is closed."""
    t = translator(challenge.language)
    content = text or challenge_text(t, challenge)
    view = challenge_view(t, challenge) if text is None else None
    if interaction.response.is_done():
        await interaction.edit_original_response(
            content=content, view=view, allowed_mentions=USERS_ONLY
        )
    else:
        await interaction.response.edit_message(
            content=content, view=view, allowed_mentions=USERS_ONLY
        )


class AiGames:
    """How games against the AI start: in a direct message, in a thread of their own, or in
    the channel."""

    def __init__(self, app: App, service: ChallengeService, opponent: AiOpponent) -> None:
        self.app = app
        self.service = service
        self.opponent = opponent

    def person(self, options: GameOptions, level: Level) -> Person:
        """The bot as the AI opponent, in the game's language."""
        return self.opponent.person(options.language, level)

    async def start_here(
        self,
        interaction: Interaction,
        me: Person,
        level: Level,
        options: GameOptions,
        thread: bool,
        venue: Venue = "server",
    ) -> None:
        """A game against the AI in the channel ``/tholos challenge`` named the bot in: in a
        ``thread`` of its own, or in the channel itself."""
        check_rated(options, venue)  # before a thread's line is posted
        ai = self.person(options, level)
        if thread:
            await self.start_in_thread(interaction, me, ai, level, options)
            return
        game = await self.service.new_games.start_ai_game(
            guild_id=guild_id_of(interaction),
            channel_id=interaction.channel_id or 0,
            human=me,
            ai=ai,
            level=level,
            options=options,
            venue=venue,
        )
        await self.opponent.start(interaction, game)

    async def start_in_dm(
        self, interaction: Interaction, options: GameOptions, level: Level
    ) -> None:
        """A game against the AI where ``/tholos-ai`` was used outside servers with the bot (its
        DM, or a place only a member's install reaches): unrated, in the player's own
        language, kept like any other game."""
        options = replace(options, language=server_language(interaction))
        me = Person(interaction.user.id, plain_name(interaction.user.display_name))
        game = await self.service.new_games.start_ai_game(
            guild_id=guild_id_of(interaction),
            channel_id=interaction.channel_id or 0,
            human=me,
            ai=self.person(options, level),
            level=level,
            options=options,
            venue=venue_of(interaction),
        )
        await self.opponent.start(interaction, game)

    async def start_in_thread(
        self, interaction: Interaction, me: Person, ai: Person, level: Level, options: GameOptions
    ) -> None:
        """A game against the AI in a thread on a line of its own in the channel."""
        t = translator(options.language)
        line = (
            N_("🤖 {player} takes on the Tholos AI ({level}) in a rated game.")
            if options.rated
            else N_("🤖 {player} takes on the Tholos AI ({level}).")
        )
        await interaction.response.send_message(
            t(line, player=mention(me.id), level=level_name(t, level)), allowed_mentions=USERS_ONLY
        )
        line = await interaction.original_response()
        name = thread_name(t, me.name, ai.name)
        opened = await open_thread(interaction.client, line, name, [me.id])
        try:
            game = await self.service.new_games.start_ai_game(
                guild_id=interaction.guild_id or 0,
                channel_id=opened.thread.id if opened else interaction.channel_id or 0,
                human=me,
                ai=ai,
                level=level,
                options=options,
                parent_id=interaction.channel_id if opened else None,
                parent_message_id=line.id if opened else None,
            )
        except Refusal:
            if opened is not None:
                await opened.delete()
            await interaction.delete_original_response()
            raise
        if opened is None:
            await tell(interaction, THREAD_FAILED)
            await self.app.poster.post_after_change(interaction, game, None)
        else:
            await interaction.edit_original_response(content=game_line(t, game))
            await self.app.poster.post(opened.thread.send, game, None)
        self.opponent.schedule(game)


class ChallengeCommands(Cog):
    """``/tholos challenge|cancel`` and ``/tholos-ai``."""

    tholos = Tholos()

    def __init__(self, challenges: Challenges) -> None:
        self.challenges = challenges

    @tholos.command(
        name=NC_("command", "challenge"),
        description=N_("Challenge a member to a game of Tholos, or anyone who accepts"),
    )
    @app_commands.choices(level=LEVEL_CHOICES)
    @app_commands.describe(
        opponent=N_("Who you want to play (leave it out: anyone here may accept)"),
        level=N_("Against me, the AI: six levels, easy to master (medium by default)"),
        rating_range=N_("Open challenges: only members rated within this many points of you"),
        pace=N_("Correspondence (no clock), or a live clock: minutes each + seconds a turn"),
        **GAME_OPTIONS,
    )
    async def challenge(
        self,
        interaction: Interaction,
        opponent: discord.User | None = None,
        mode: Mode | None = None,
        ornaments: app_commands.Range[int, 1, 5] | None = None,
        colour: ColourChoice = "random",
        first: FirstChoice = "random",
        level: Level = "medium",
        rating_range: app_commands.Range[int, RATING_RANGE[0], RATING_RANGE[1]] | None = None,
        pace: Pace | None = None,
    ) -> None:
        """``/tholos challenge`` (naming the bot itself starts a game against the AI at once; naming
        nobody posts an open challenge)."""
        options = GameOptions(mode=mode, ornaments=ornaments, colour=colour, first=first)
        await self.challenges.challenge(interaction, opponent, options, level, rating_range, pace)

    @app_commands.command(
        name=NC_("command", "tholos-ai"),
        description=N_("Play Tholos against me, the AI, right here"),
    )
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.choices(level=LEVEL_CHOICES)
    @app_commands.describe(
        level=N_("How strong I play: six levels, easy to master (medium by default)"),
        pace=N_("Correspondence (no clock), or a live clock for you: minutes + seconds a turn"),
        hints=N_("A Hint button on your turn: I show you a good turn when you ask"),
        rated=N_("Rated: the game counts for your rating, against my level's (no hints)"),
        **GAME_OPTIONS,
    )
    async def play_the_ai(
        self,
        interaction: Interaction,
        level: Level = "medium",
        mode: Mode | None = None,
        ornaments: app_commands.Range[int, 1, 5] | None = None,
        colour: ColourChoice = "random",
        first: FirstChoice = "random",
        pace: Pace | None = None,
        hints: bool = False,
        rated: bool = False,
    ) -> None:
        """``/tholos-ai``: a game against the AI, in a server channel or a direct message
        (``rated``: where the bot is, without hints)."""
        options = GameOptions(
            mode=mode, ornaments=ornaments, colour=colour, first=first, hints=hints, rated=rated
        )
        await self.challenges.play_the_ai(interaction, options, level, pace)

    @tholos.command(
        name=NC_("command", "cancel"),
        description=N_("Withdraw the challenge you made in this channel"),
    )
    async def cancel(self, interaction: Interaction) -> None:
        """``/tholos cancel``."""
        await self.challenges.cancel(interaction)


# -- what it says -------------------------------------------------------------------------------


def challenge_text(t: Translator, challenge: Challenge) -> str:
    """The public challenge message: the invitation, its terms, and where it stands."""
    colours = {
        "white": N_("The challenger plays White"),
        "black": N_("The challenger plays Black"),
        "random": N_("The challenger plays a random colour"),
    }[challenge.colour]
    first = {
        "me": N_("the challenger moves first."),
        "opponent": N_("the opponent moves first."),
        "random": N_("a random player moves first."),
    }[challenge.first]
    text = f"{_invitation(t, challenge)}\n{t(colours)}; {t(first)}"
    if challenge.clock is not None:
        text += "\n" + t(
            "⏱️ Played on a {pace}: minutes each, plus seconds after every turn.",
            pace=pace_name(t, challenge.time_control),
        )
    if challenge.rating_range is not None:
        text += "\n" + t(
            "Open to members rated within {range} points of the challenger.",
            range=challenge.rating_range,
        )
    return f"{text}\n{_standing(t, challenge)}"


def _invitation(t: Translator, challenge: Challenge) -> str:
    """Who challenges whom (or anyone here) to which game."""
    if challenge.mode == "basic":
        mode = t("a basic game")
    else:
        mode = t.plural(
            "an advanced game with {count} ornament",
            "an advanced game with {count} ornaments",
            challenge.ornaments,
        )
    if challenge.open_to_all:
        return t(
            "{challenger} is looking for an opponent for {mode} of Tholos — anyone "
            "here may accept!",
            challenger=mention(challenge.challenger_id),
            mode=mode,
        )
    return t(
        "{opponent}, {challenger} challenges you to {mode} of Tholos!",
        opponent=mention(challenge.opponent_id or 0),
        challenger=mention(challenge.challenger_id),
        mode=mode,
    )


def _standing(t: Translator, challenge: Challenge) -> str:
    """When a pending challenge expires, or how it was closed."""
    status = challenge.status
    if status == "pending":
        when = f"<t:{int(challenge.expires_at)}:R>"
        return t("This challenge expires {when}.", when=when)
    if status == "accepted" and challenge.open_to_all:
        return t(
            "✅ Accepted by {opponent} — the game is on.",
            opponent=mention(challenge.opponent_id or 0),
        )
    ending = {
        "accepted": N_("✅ Accepted — the game is on."),
        "declined": N_("❌ Declined."),
        "withdrawn": N_("↩️ Withdrawn by the challenger."),
        "expired": N_("⌛ Expired without an answer."),
    }[status]
    return t(ending)


def challenge_view(t: Translator, challenge: Challenge) -> discord.ui.View:
    """Accept / Decline / Withdraw (an open challenge: Accept / Withdraw), disabled once the
    challenge is answered."""
    return view_of(
        Button.of(
            CHALLENGE,
            challenge=challenge.id,
            answer=answer,
            label=t(label),
            emphasis=emphasis,
            enabled=challenge.status == "pending",
        )
        for answer, (label, emphasis) in ANSWERS.items()
        if not (challenge.open_to_all and answer == "decline")
    )
