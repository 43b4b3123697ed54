"""How games start: challenges and their answers, rematches, and games against the AI."""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from bot.base.game import Game, GamePlace, NewGame, Venue
from bot.base.game_options import RATED_AI_VENUES, GameOptions, Level
from bot.base.paces import RatingPool, rating_pool
from bot.base.people import Caller, Person
from bot.base.refusals import Refusal
from bot.base.server_rules import ReminderDefaults
from bot.features.challenges.store import (
    MAX_OPEN_CHALLENGES,
    PENDING_OPEN,
    PENDING_PAIR,
    TOO_MANY_OPEN,
    Acceptance,
    Challenge,
    ChallengeStore,
    NewChallenge,
)
from bot.features.pool import BlockStore
from bot.health.metrics import METRICS
from bot.storage.games.changes import IN_CHANNEL, SAME_PAIR, ChannelBusyError, StaleGameError
from bot.storage.games.store import GameStore
from bot.words.names import mention
from bot.words.phrases import command
from engine import BLACK, WHITE, Colour, Position
from engine.newgame import new_game
from engine.vocabulary import N_

Answer = Literal["accept", "decline", "withdraw"]
"""What the buttons of a challenge do."""
EXPIRED = N_("This challenge has expired — start a new one with {challenge}.")
CANNOT_CHALLENGE = N_("You can't challenge {opponent} right now.")
"""A challenge between two members one of whom blocked the other (which is not said)."""
NOT_OPEN_TO_YOU = N_("This challenge isn't open to you.")
"""An open challenge taken by a member its challenger blocked, or who blocked them."""
TAKEN = N_(
    "Someone was faster — this challenge was just accepted. Start your own with {challenge}."
)
RATED_WITHOUT_HINTS = N_("A rated game has no hints: ask for `rated` or for `hints`, not both.")
RATED_WHERE_I_AM = N_(
    "A game against me is rated only where I am: in a server that added me, or in our direct "
    "messages. Here, play it unrated (leave out `rated`)."
)
RatingOf = Callable[[RatingPool, int], Awaitable[float]]
"""``rating(pool, user_id)``: a member's rating in a pool."""


class ExpiredChallengeError(Refusal):
    """A press on a challenge whose time ran out (it is now marked expired)."""

    def __init__(self, challenge: Challenge) -> None:
        super().__init__(EXPIRED, challenge=command("tholos challenge"))
        self.challenge = challenge


@dataclass(frozen=True, slots=True)
class ChallengeAnswered:
    """A challenge accepted (``game`` set), declined or withdrawn."""

    challenge: Challenge
    game: Game | None


class ChallengeService:
    """Challenges: made, answered, expired; rematches. Their games (and games against the AI)
    start in ``new_games`` (:class:`NewGames`)."""

    def __init__(
        self,
        challenges: ChallengeStore,
        games: GameStore,
        *,
        challenge_timeout: float,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        reminders: ReminderDefaults | None = None,
        alarm: Callable[[float], None] | None = None,
        rating: RatingOf | None = None,
    ) -> None:
        self.challenges = challenges
        self.games = games
        self.blocks = BlockStore(challenges.database)
        """Who blocked whom: a blocked pair never challenges each other."""
        self.rating = rating
        """Members' ratings, for open challenges with a rating range."""
        self.challenge_timeout = challenge_timeout
        self.new_games = NewGames(challenges, games, clock, rng, reminders, alarm)
        self._clock = clock

    async def challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger: Person,
        opponent: Person | None,
        options: GameOptions,
        in_channel: bool = False,
        timeout: float | None = None,
        rating_range: int | None = None,
        venue: Venue = "server",
    ) -> Challenge:
        """Store a challenge (``opponent`` ``None``: an open one, which any member may accept;
        only those rated within ``rating_range`` of the challenger, if given); raises
        :class:`Refusal` saying why it cannot be made. ``in_channel``: its game would be played
        in the channel itself (no thread), which must be free of games. ``timeout``: seconds
        before it expires (default: the service's)."""
        if opponent is not None:
            _check_opponent(challenger, opponent, rating_range)
            if await self.blocks.between(challenger.id, opponent.id):  # never said why
                raise Refusal(CANNOT_CHALLENGE, opponent=mention(opponent.id))
        asked = options.settled()
        now = self._clock()
        expires_at = now + (timeout or self.challenge_timeout)
        new = NewChallenge(
            guild_id,
            channel_id,
            challenger,
            opponent,
            asked,
            expires_at,
            rating_range,
            in_channel,
            venue,
        )
        try:
            return await self.challenges.create(new, now=now)
        except ChannelBusyError as error:
            raise _channel_busy(error) from None

    async def answer(
        self,
        challenge_id: int,
        caller: Caller,
        answer: Answer,
        thread_id: int | None = None,
        name: str = "",
    ) -> ChallengeAnswered:
        """Accept (its game played in the thread ``thread_id``, or in the challenge's channel),
        decline or withdraw a challenge; raises :class:`Refusal`. ``name``: the caller's, the
        opponent's name if they take an open challenge."""
        challenge = await self.check(challenge_id, caller, answer)
        if answer != "accept":
            status = "declined" if answer == "decline" else "withdrawn"
            closed = await self.challenges.close(challenge.id, status)
            if closed is None:
                raise _answered_meanwhile(challenge)
            return ChallengeAnswered(closed, None)
        accepter = Person(caller.user_id, name)
        game = await self.new_games.accepted(challenge, thread_id, accepter)
        return ChallengeAnswered(await self.challenges.challenge(challenge_id) or challenge, game)

    async def check(self, challenge_id: int, caller: Caller, answer: Answer) -> Challenge:
        """The challenge, if ``caller`` may give it ``answer`` now (nothing is written, unless
        the challenge turns out to have expired); raises :class:`Refusal`."""
        challenge = await self.challenges.challenge(challenge_id)
        if challenge is None or challenge.channel_id != caller.channel_id:
            raise Refusal("This challenge no longer exists here.")
        _check_answer(challenge, caller.user_id, answer)
        if answer != "withdraw" and challenge.is_open:
            await _check_open(challenge, caller.user_id, answer, self.rating, self.games)
            if await self.blocks.between(challenge.challenger_id, caller.user_id):
                raise Refusal(NOT_OPEN_TO_YOU)
        if self._clock() >= challenge.expires_at:
            expired = await self.challenges.close(challenge.id, "expired")
            raise ExpiredChallengeError(expired or challenge)
        return challenge

    async def withdraw_pending(self, caller: Caller) -> Challenge:
        """``/tholos cancel``: the challenger withdraws the channel's pending challenge."""
        challenge = await self.challenges.pending(caller.channel_id, caller.user_id)
        if challenge is None:
            raise Refusal("You have no challenge waiting for an answer in this channel.")
        return (await self.answer(challenge.id, caller, "withdraw")).challenge

    async def expire_due(self) -> list[Challenge]:
        """Mark every pending challenge whose time is up (on this process's servers: the
        store's shards) as expired; return them."""
        expired = []
        for challenge in await self.challenges.expired(self._clock()):
            closed = await self.challenges.close(challenge.id, "expired")
            if closed is not None:
                expired.append(closed)
        return expired

    async def rematch(self, game_id: int, caller: Caller) -> Challenge | Game:
        """Challenge the other player of a finished game again, colours swapped (against the
        AI, the new game starts at once)."""
        game = await self.games.game(game_id)
        me, rival, options = rematch_of(game, caller)
        assert game is not None  # else refused
        home = {"guild_id": game.guild_id, "channel_id": game.channel_id, "venue": game.venue}
        if game.ai_level is not None:
            return await self.new_games.start_ai_game(
                **home, human=me, ai=rival, level=game.ai_level, options=options
            )
        return await self.challenge(
            **home, challenger=me, opponent=rival, options=options, in_channel=True
        )


class NewGames:
    """Games that start: an accepted challenge's, and games against the AI; each counted, and
    the reminder loop's alarm told of its first reminder."""

    def __init__(
        self,
        challenges: ChallengeStore,
        games: GameStore,
        clock: Callable[[], float],
        rng: random.Random | None,
        reminders: ReminderDefaults | None,
        alarm: Callable[[float], None] | None,
    ) -> None:
        self.challenges = challenges
        self.games = games
        self.reminders = reminders
        """With reminders, a new game whose first player is human stores when to remind them
        (``None``: no reminders)."""
        self.alarm = alarm
        """Told the due time of every reminder a new game stores (the reminder loop wakes)."""
        self._clock = clock
        self._rng = rng or random.SystemRandom()

    async def accepted(self, challenge: Challenge, thread_id: int | None, accepter: Person) -> Game:
        """Start the accepted challenge's game (``accepter``: who takes an open challenge)."""
        challenger_colour, seed, start = game_setup(challenge.options, self._rng)
        opponent = challenge.opponent_id if challenge.opponent_id is not None else accepter.id
        white, black = challenge.challenger_id, opponent
        if challenger_colour == BLACK:
            white, black = black, white
        taker = accepter if challenge.is_open else None
        acceptance = Acceptance(white, black, seed, start, thread_id, taker)
        try:
            game = await self.challenges.accept(
                challenge.id, acceptance, now=self._clock(), reminders=self.reminders
            )
        except StaleGameError:
            raise _answered_meanwhile(challenge) from None
        except ChannelBusyError as error:
            raise _channel_busy(error) from None
        return self._started(game)

    async def start_ai_game(
        self,
        *,
        guild_id: int,
        channel_id: int,
        human: Person,
        ai: Person,
        level: Level,
        options: GameOptions,
        parent_id: int | None = None,
        parent_message_id: int | None = None,
        venue: Venue = "server",
    ) -> Game:
        """Start a game against the AI (``ai``: the bot, by the name it plays under) at once
        (no acceptance), in ``channel_id`` (a thread of ``parent_id``, or a channel); rated if
        ``options`` ask (then without hints, and only where the bot is: :func:`check_rated`)."""
        check_rated(options, venue)
        human_colour, seed, start = game_setup(options, self._rng)
        white, black = (human, ai) if human_colour == WHITE else (ai, human)
        place = GamePlace(guild_id, channel_id, parent_id, parent_message_id, venue)
        new = NewGame(
            place,
            white,
            black,
            seed,
            start,
            language=options.language,
            clock=options.clock,
            rated=options.rated,
            ai_level=level,
            ai_id=ai.id,
            hints=options.hints,
        )
        reminders = self.reminders if start.turn == human_colour else None
        try:
            game = await self.games.create_ai_game(new, now=self._clock(), reminders=reminders)
        except ChannelBusyError as error:
            raise _channel_busy(error) from None
        return self._started(game)

    def _started(self, game: Game) -> Game:
        """A new game, once stored: count it, ring the alarm for its first reminder."""
        METRICS.games_started.labels("ai" if game.ai_level is not None else "members").inc()
        if game.reminder_due_at is not None and self.alarm is not None:
            self.alarm(game.reminder_due_at)
        return game


def check_rated(options: GameOptions, venue: Venue) -> None:
    """Refuse a rated game against the AI with hints, or where the bot is not (a DM between
    members, a group DM, a server without the bot: nothing there is rated)."""
    if not options.rated:
        return
    if options.hints:
        raise Refusal(RATED_WITHOUT_HINTS)
    if venue not in RATED_AI_VENUES:
        raise Refusal(RATED_WHERE_I_AM)


def rematch_of(game: Game | None, caller: Caller) -> tuple[Person, Person, GameOptions]:
    """Who challenges whom, and how, when ``caller`` asks for a rematch of ``game``: the same
    setup and pace, colours swapped; raises :class:`Refusal`."""
    if game is None or game.channel_id != caller.channel_id:
        raise Refusal("This button doesn't belong to a game in this channel.")
    old_colour = game.colour_of(caller.user_id)
    if old_colour is None:
        raise Refusal("Only the players of this game can ask for a rematch.")
    if game.is_active:
        raise Refusal("This game is still being played.")
    new_colour = 1 - old_colour
    ornaments = sum(1 for ornament in game.start_position.ornaments if ornament)
    options = GameOptions(
        mode=game.mode,
        ornaments=ornaments or None,
        colour="white" if new_colour == WHITE else "black",
        first="me" if game.start_position.turn == new_colour else "opponent",
        language=game.language,
        clock=game.clock,
        hints=game.hints,
        rated=game.rated and game.ai_level is not None,
    )
    me = Person(caller.user_id, game.name(old_colour))
    return me, Person(game.player(new_colour), game.name(new_colour)), options


def _check_answer(challenge: Challenge, user_id: int, answer: Answer) -> None:
    """Refuse an answer to a challenge no longer pending, a withdrawal by anyone but the
    challenger, and an answer to a named challenge by anyone but its opponent (an open
    challenge's other answers: :func:`_check_open`)."""
    if challenge.status != "pending":
        if challenge.open_to_all and challenge.status == "accepted":
            raise Refusal(TAKEN, challenge=command("tholos challenge"))
        raise Refusal(_ANSWERED[challenge.status])
    if answer == "withdraw":
        if user_id != challenge.challenger_id:
            raise Refusal("Only the challenger can withdraw this challenge.")
    elif challenge.is_open:
        return
    elif user_id == challenge.challenger_id:
        raise Refusal(
            "This challenge is for {opponent} — use Withdraw to take it back.",
            opponent=mention(challenge.opponent_id or 0),
        )
    elif user_id != challenge.opponent_id:
        raise Refusal(
            "This challenge is for {opponent}; you can start your own with {challenge}.",
            opponent=mention(challenge.opponent_id or 0),
            challenge=command("tholos challenge"),
        )


def _answered_meanwhile(challenge: Challenge) -> Refusal:
    """The refusal of an answer that came second: someone took the open challenge first, or
    the challenge was answered."""
    message = TAKEN if challenge.is_open else ALREADY_ANSWERED
    return Refusal(message, challenge=command("tholos challenge"))


def _check_opponent(challenger: Person, opponent: Person, rating_range: int | None) -> None:
    """Refuse a challenge of oneself or of a bot, and a rating range for a named opponent."""
    if opponent.id == challenger.id:
        raise Refusal("You can't challenge yourself — pick another member.")
    if opponent.bot:
        raise Refusal("That bot can't play Tholos — challenge a member, or me for the AI.")
    if rating_range is not None:
        raise Refusal(
            "A rating range is for open challenges: leave out the opponent to let anyone "
            "within it accept."
        )


async def _check_open(
    challenge: Challenge,
    user_id: int,
    answer: Answer,
    rating: RatingOf | None,
    games: GameStore,
) -> None:
    """Refuse an answer to an open challenge but an accept by a member other than the
    challenger, who plays no game against them in the channel yet, within its rating range
    (checked before the accept is tried, so that it never holds the challenge up for others:
    see ``features.challenges``)."""
    if user_id == challenge.challenger_id:
        raise Refusal("You can't accept your own challenge — use Withdraw to take it back.")
    if answer != "accept":
        raise Refusal("An open challenge can't be declined — leave it to someone else.")
    playing = await games.active_games(challenge.channel_id, user_id)
    if any(challenge.challenger_id in (game.white_id, game.black_id) for game in playing):
        raise _channel_busy(ChannelBusyError(SAME_PAIR))
    limit = challenge.rating_range
    if limit is None or rating is None:
        return
    pool = rating_pool(challenge.time_control)
    theirs = await rating(pool, challenge.challenger_id)
    mine = await rating(pool, user_id)
    if abs(mine - theirs) > limit:
        raise Refusal(
            "This challenge is open to ratings from {low} to {high} (within {range} of "
            "{challenger}'s); yours is {rating}. You can start your own with {challenge}.",
            low=round(theirs - limit),
            high=round(theirs + limit),
            range=limit,
            challenger=mention(challenge.challenger_id),
            rating=round(mine),
            challenge=command("tholos challenge"),
        )


def game_setup(options: GameOptions, rng: random.Random) -> tuple[Colour, int, Position]:
    """The challenger's colour, the seed and the start position ``options`` ask for; raises
    :class:`Refusal` for ornaments asked for in the basic mode."""
    ornaments = options.ornament_count()  # refused before anything is drawn
    challenger_colour = {"white": WHITE, "black": BLACK}.get(options.colour)
    if challenger_colour is None:
        challenger_colour = rng.choice((WHITE, BLACK))
    first = {"me": challenger_colour, "opponent": 1 - challenger_colour}.get(options.first)
    if first is None:
        first = rng.choice((WHITE, BLACK))
    seed = rng.randrange(2**31)
    start = new_game(options.game_mode, ornaments=ornaments, seed=seed, first=first)
    return challenger_colour, seed, start


ALREADY_ANSWERED = N_("This challenge was already answered.")
_ANSWERED = {
    "accepted": N_("This challenge was already accepted."),
    "declined": N_("This challenge was already declined."),
    "withdrawn": N_("This challenge was already withdrawn."),
    "expired": N_("This challenge has already expired."),
}
_BUSY = {
    IN_CHANNEL: N_(
        "Sorry, a game is already being played in this channel — finish it first, or play "
        "somewhere else."
    ),
    SAME_PAIR: N_(
        "Sorry, you two already have a game going in this channel — finish it first, or play "
        "somewhere else."
    ),
    PENDING_PAIR: N_(
        "Sorry, a challenge between you two is already waiting in this channel — answer or "
        "withdraw it first."
    ),
    PENDING_OPEN: N_(
        "Your open challenge is already waiting in this channel — withdraw it first to make "
        "another."
    ),
    TOO_MANY_OPEN: N_(
        "You already have {count} open challenges waiting on this server — withdraw one, or "
        "wait for them to be taken or to expire."
    ),
}


def _channel_busy(error: ChannelBusyError) -> Refusal:
    """The refusal for a challenge or a game whose place is taken."""
    return Refusal(_BUSY[str(error)], count=MAX_OPEN_CHALLENGES)
