"""The bot's game flow without Discord: challenges, presses, resignations, claims, rematches.

Handlers call these methods and turn :class:`Refusal` into a polite ephemeral reply; nothing here
imports discord, so the flow is tested against a real database alone.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal
from weakref import WeakValueDictionary

from engine import BLACK, WHITE, Colour, IllegalTurnError, Position, Turn
from engine.builder import TurnBuilder
from engine.newgame import DEFAULT_ORNAMENTS, new_game
from engine.scoring import score

from .storage import Challenge, ChannelBusyError, Game, GameStore, StaleGameError
from .storage.games import ColourChoice, FirstChoice, Mode, Outcome

Answer = Literal["accept", "decline", "withdraw"]


class Refusal(Exception):
    """A request refused for a reason the user should read (the message is that reason)."""


class ExpiredChallengeError(Refusal):
    """A press on a challenge whose time ran out (it is now marked expired)."""

    def __init__(self, challenge: Challenge) -> None:
        super().__init__("This challenge has expired — start a new one with `/tholos challenge`.")
        self.challenge = challenge


class OutdatedBoardError(Refusal):
    """A press on a board that no longer shows the game's current state."""

    def __init__(self, game: Game) -> None:
        super().__init__("This board is out of date.")
        self.game = game


@dataclass(frozen=True, slots=True)
class Caller:
    """Who pressed or typed, and in which channel: a game or challenge can only be acted on
    from its own channel."""

    user_id: int
    channel_id: int


@dataclass(frozen=True, slots=True)
class Person:
    """A member as a challenge needs them: id, display name, and whether it is a bot."""

    id: int
    name: str
    bot: bool = False


@dataclass(frozen=True, slots=True)
class GameOptions:
    """What a challenge asks for: the mode, how many ornaments (``None``: the mode's
    default), the challenger's colour and who moves first."""

    mode: Mode = "basic"
    ornaments: int | None = None
    colour: ColourChoice = "random"
    first: FirstChoice = "random"

    def ornament_count(self) -> int:
        """How many ornaments the game gets; raises :class:`Refusal` for ornaments in basic."""
        if self.mode == "basic" and self.ornaments:
            raise Refusal("Ornaments belong to the advanced mode: add `mode: advanced`.")
        return (self.ornaments or DEFAULT_ORNAMENTS) if self.mode == "advanced" else 0


@dataclass(frozen=True, slots=True)
class StepShown:
    """A press that made a choice but did not finish the turn."""

    game: Game
    builder: TurnBuilder


@dataclass(frozen=True, slots=True)
class TurnPlayed:
    """A press that completed and stored a turn."""

    game: Game
    turn: Turn


@dataclass(frozen=True, slots=True)
class ChallengeAnswered:
    """A challenge accepted (``game`` set), declined or withdrawn."""

    challenge: Challenge
    game: Game | None


def mention(user_id: int) -> str:
    """Discord's mention markup for a user."""
    return f"<@{user_id}>"


class GameService:
    """The rules of the bot around the rules of the game."""

    def __init__(
        self,
        store: GameStore,
        *,
        challenge_timeout: float,
        inactivity_timeout: float,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.store = store
        self.challenge_timeout = challenge_timeout
        self.inactivity_timeout = inactivity_timeout
        self._clock = clock
        self._rng = rng or random.SystemRandom()
        self._locks: WeakValueDictionary[int, asyncio.Lock] = WeakValueDictionary()

    def _lock(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    # -- challenges -------------------------------------------------------------------------------

    async def challenge(
        self, *, guild_id: int, channel_id: int, challenger: Person, opponent: Person,
        options: GameOptions,
    ) -> Challenge:  # fmt: skip
        """Store a challenge; raises :class:`Refusal` saying why it cannot be made."""
        if opponent.id == challenger.id:
            raise Refusal("You can't challenge yourself — pick another member.")
        if opponent.bot:
            raise Refusal("That bot can't play Tholos — challenge a member, or me for the AI.")
        count = options.ornament_count()
        now = self._clock()
        try:
            return await self.store.create_challenge(
                guild_id=guild_id,
                channel_id=channel_id,
                challenger_id=challenger.id,
                opponent_id=opponent.id,
                challenger_name=challenger.name,
                opponent_name=opponent.name,
                mode=options.mode,
                ornaments=count,
                colour=options.colour,
                first=options.first,
                now=now,
                expires_at=now + self.challenge_timeout,
            )
        except ChannelBusyError as error:
            raise _channel_busy(error) from None

    async def answer_challenge(
        self, challenge_id: int, caller: Caller, answer: Answer
    ) -> ChallengeAnswered:
        """Accept, decline or withdraw a challenge; raises :class:`Refusal`."""
        challenge = await self.store.challenge(challenge_id)
        if challenge is None or challenge.channel_id != caller.channel_id:
            raise Refusal("This challenge no longer exists here.")
        user_id = caller.user_id
        if challenge.status != "pending":
            raise Refusal(f"This challenge is already {challenge.status}.")
        if answer == "withdraw":
            if user_id != challenge.challenger_id:
                raise Refusal("Only the challenger can withdraw this challenge.")
        elif user_id != challenge.opponent_id:
            raise Refusal(
                f"This challenge is for {mention(challenge.opponent_id)}"
                + (
                    " — use Withdraw to take it back."
                    if user_id == challenge.challenger_id
                    else "; you can start your own with `/tholos challenge`."
                )
            )
        if self._clock() >= challenge.expires_at:
            expired = await self.store.close_challenge(challenge.id, "expired")
            raise ExpiredChallengeError(expired or challenge)
        if answer != "accept":
            status = "declined" if answer == "decline" else "withdrawn"
            closed = await self.store.close_challenge(challenge.id, status)
            if closed is None:
                raise Refusal("This challenge was already answered.")
            return ChallengeAnswered(closed, None)
        return ChallengeAnswered(challenge, await self._start_game(challenge))

    def _setup(
        self, mode: Mode, ornaments: int, colour: ColourChoice, first: FirstChoice
    ) -> tuple[Colour, int, Position]:
        """The challenger's colour, the seed and the start position a challenge asked for."""
        challenger_colour = {"white": WHITE, "black": BLACK}.get(colour)
        if challenger_colour is None:
            challenger_colour = self._rng.choice((WHITE, BLACK))
        first_colour = {"me": challenger_colour, "opponent": 1 - challenger_colour}.get(first)
        if first_colour is None:
            first_colour = self._rng.choice((WHITE, BLACK))
        seed = self._rng.randrange(2**31)
        return (
            challenger_colour,
            seed,
            new_game(mode, ornaments=ornaments, seed=seed, first=first_colour),
        )

    async def _start_game(self, challenge: Challenge) -> Game:
        challenger_colour, seed, start = self._setup(
            challenge.mode, challenge.ornaments, challenge.colour, challenge.first
        )
        white, black = challenge.challenger_id, challenge.opponent_id
        if challenger_colour == BLACK:
            white, black = black, white
        try:
            return await self.store.accept_challenge(
                challenge.id, white_id=white, black_id=black, seed=seed, start=start,
                now=self._clock(),
            )  # fmt: skip
        except StaleGameError:
            raise Refusal("This challenge was already answered.") from None
        except ChannelBusyError:
            raise Refusal("A game is already being played in this channel.") from None

    async def start_ai_game(
        self, *, guild_id: int, channel_id: int, human: Person, ai_id: int, level: str,
        options: GameOptions,
    ) -> Game:  # fmt: skip
        """Start a game against the AI at once (no acceptance); never rated."""
        human_colour, seed, start = self._setup(
            options.mode, options.ornament_count(), options.colour, options.first
        )
        players = ((human.id, human.name), (ai_id, f"Tholos AI ({level})"))
        white, black = players if human_colour == WHITE else players[::-1]
        try:
            return await self.store.create_ai_game(
                guild_id=guild_id, channel_id=channel_id, white=white, black=black,
                seed=seed, start=start, level=level, now=self._clock(),
            )  # fmt: skip
        except ChannelBusyError as error:
            raise _channel_busy(error) from None

    async def ai_turn(self, game: Game, turn: Turn) -> TurnPlayed | None:
        """Store the AI's ``turn`` if ``game`` is still as the AI saw it (else ``None``)."""
        after = game.position.apply(turn)  # checked: the worker's answer is input too
        async with self._lock(game.id):
            try:
                return TurnPlayed(await self._record(game, turn, after), turn)
            except StaleGameError:
                return None

    async def withdraw_pending(self, caller: Caller) -> Challenge:
        """``/tholos cancel``: the challenger withdraws the channel's pending challenge."""
        challenge = await self.store.pending_challenge(caller.channel_id)
        if challenge is None:
            raise Refusal("There is no pending challenge in this channel.")
        return (await self.answer_challenge(challenge.id, caller, "withdraw")).challenge

    async def expire_due(self) -> list[Challenge]:
        """Mark every pending challenge whose time is up as expired; return them."""
        expired = []
        for challenge in await self.store.expired_challenges(self._clock()):
            closed = await self.store.close_challenge(challenge.id, "expired")
            if closed is not None:
                expired.append(closed)
        return expired

    # -- playing ----------------------------------------------------------------------------------

    async def _playable(self, game_id: int, caller: Caller) -> Game:
        """The active game of this channel that the caller plays in; raises :class:`Refusal`."""
        game = await self.store.game(game_id)
        if game is None or game.channel_id != caller.channel_id:
            raise Refusal("This button doesn't belong to a game in this channel.")
        if game.colour_of(caller.user_id) is None:
            raise Refusal(
                f"This is a game between {mention(game.white_id)} and {mention(game.black_id)} — "
                "start your own with `/tholos challenge`."
            )
        if not game.is_active:
            raise Refusal("This game is over.")
        return game

    async def choose(
        self, game_id: int, version: int, path: str, caller: Caller
    ) -> StepShown | TurnPlayed:
        """A press on a board control: one more choice of the turn being built.

        ``path`` is the choices so far, one character each. Raises :class:`OutdatedBoardError`
        for an old board and :class:`Refusal` for the wrong person or an unavailable choice.
        """
        async with self._lock(game_id):
            game = await self._playable(game_id, caller)
            if version != game.version:
                raise OutdatedBoardError(game)
            if game.to_move != caller.user_id:
                raise Refusal(f"It's not your turn — waiting for {mention(game.to_move)}.")
            try:
                builder = TurnBuilder(game.position, tuple(path))
            except IllegalTurnError:
                raise Refusal("That choice isn't available.") from None
            turn = builder.turn
            if turn is None:
                return StepShown(game, builder)
            after = game.position.apply_unchecked(turn)
            try:
                return TurnPlayed(await self._record(game, turn, after), turn)
            except StaleGameError:
                raise OutdatedBoardError(await self.store.game(game_id) or game) from None

    async def _record(self, game: Game, turn: Turn, after: Position) -> Game:
        """Store ``turn`` by the player to move, and the end if it ends the game; raises
        :class:`StaleGameError` if ``game`` changed meanwhile."""
        return await self.store.record_turn(
            game, player_id=game.to_move, turn=str(turn), position_after=after,
            outcome=final_outcome(after), now=self._clock(),
        )  # fmt: skip

    async def resign(self, game_id: int, version: int, caller: Caller) -> Game:
        """Resign: the opponent wins. ``version`` (from the confirm button) must be current."""
        async with self._lock(game_id):
            game = await self._playable(game_id, caller)
            if version != game.version:
                raise OutdatedBoardError(game)
            winner = 1 - game.colour_of(caller.user_id)  # type: ignore[operator]
            return await self._finish(game, winner, "resignation")

    async def claim(self, game_id: int, caller: Caller) -> Game:
        """Claim the win when the player to move has been inactive long enough."""
        async with self._lock(game_id):
            game = await self._playable(game_id, caller)
            if game.to_move == caller.user_id:
                raise Refusal("It's your turn — you can only claim while your opponent is idle.")
            due = self.claimable_at(game)
            if self._clock() < due:
                raise Refusal(
                    f"{mention(game.to_move)} still has time to move: you can claim the win "
                    f"<t:{int(due) + 1}:R> if they haven't moved by then."
                )
            return await self._finish(game, game.colour_of(caller.user_id), "timeout")  # type: ignore[arg-type]

    def claimable_at(self, game: Game) -> float:
        """When the opponent of the player to move may claim the win."""
        return game.last_move_at + self.inactivity_timeout

    async def _finish(
        self, game: Game, winner: int, reason: Literal["resignation", "timeout"]
    ) -> Game:
        white, black = score(game.position).totals
        outcome = Outcome("white" if winner == WHITE else "black", reason, white, black)
        try:
            return await self.store.finish_game(game, outcome, self._clock())
        except StaleGameError:
            raise OutdatedBoardError(await self.store.game(game.id) or game) from None

    async def rematch(self, game_id: int, caller: Caller) -> Challenge | Game:
        """Challenge the other player of a finished game again, colours swapped (against the
        AI, the new game starts at once)."""
        game = await self.store.game(game_id)
        if game is None or game.channel_id != caller.channel_id:
            raise Refusal("This button doesn't belong to a game in this channel.")
        user_id = caller.user_id
        if game.colour_of(user_id) is None:
            raise Refusal("Only the players of this game can ask for a rematch.")
        if game.is_active:
            raise Refusal("This game is still being played.")
        old_colour: int = game.colour_of(user_id)  # type: ignore[assignment]
        new_colour = 1 - old_colour
        ornaments = sum(1 for ornament in game.start_position.ornaments if ornament)
        options = GameOptions(
            mode=game.mode,
            ornaments=ornaments or None,
            colour="white" if new_colour == WHITE else "black",
            first="me" if game.start_position.turn == new_colour else "opponent",
        )
        me = Person(user_id, game.name(old_colour))
        if game.ai_level is not None:
            return await self.start_ai_game(
                guild_id=game.guild_id, channel_id=game.channel_id, human=me,
                ai_id=game.player(new_colour), level=game.ai_level, options=options,
            )  # fmt: skip
        return await self.challenge(
            guild_id=game.guild_id, channel_id=game.channel_id, challenger=me,
            opponent=Person(game.player(new_colour), game.name(new_colour)), options=options,
        )  # fmt: skip


def _channel_busy(error: ChannelBusyError) -> Refusal:
    """The refusal for a challenge or AI game in a channel that already has one."""
    return Refusal(f"Sorry, {error} — one game per channel. Finish it or use another channel.")


def final_outcome(position: Position) -> Outcome | None:
    """The stored outcome of a finished position (``None`` while the game goes on)."""
    if not position.is_over():
        return None
    result = score(position)
    white, black = result.totals
    return Outcome(result.outcome.result, result.outcome.decided_by, white, black)
