"""Playing a game: one choice at a time, the AI's turns, resignations and claims; a game that
ends is rated in the transaction that ends it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal
from weakref import WeakValueDictionary

from bot.base.game import Game
from bot.base.logs import GAME_ID
from bot.base.people import Caller
from bot.base.refusals import Refusal
from bot.base.server_rules import ReminderDefaults
from bot.features.ratings import RATINGS_LOCK, rate_game
from bot.health.metrics import METRICS
from bot.storage.db import Transaction
from bot.storage.games.changes import StaleGameError, abort_game, finish_game, record_turn
from bot.storage.games.places import seen_as
from bot.storage.games.store import GameStore
from bot.storage.leases import LeaseStore, board_lease
from bot.words.names import mention
from bot.words.phrases import board_url, command
from engine import BLACK, WHITE, Colour, IllegalTurnError, Turn
from engine.builder import TurnBuilder
from engine.scoring import Outcome, score
from engine.vocabulary import N_

Forfeit = Literal["resignation", "timeout"]
"""How a game ends without a last turn (a :data:`~engine.scoring.Reason`)."""
TURNS_BY_HUMANS = METRICS.turns.labels("human")
TURNS_BY_AI = METRICS.turns.labels("ai")


class OutdatedBoardError(Refusal):
    """A press on a board that no longer shows the game's current state (the message says
    where the current board is)."""

    def __init__(self, game: Game) -> None:
        link = board_url(game) if game.board_message_id is not None else None
        if link is None:
            message = _OUTDATED_OVER if not game.is_active else _OUTDATED
            super().__init__(message)
        else:
            message = _OUTDATED_OVER_LINK if not game.is_active else _OUTDATED_LINK
            super().__init__(message, link=link)
        self.game = game


_OUTDATED = N_("This board is out of date.")
_OUTDATED_LINK = N_("This board is out of date. The current board is here: {link}")
_OUTDATED_OVER = N_("This board is out of date. The game is over.")
_OUTDATED_OVER_LINK = N_(
    "This board is out of date. The game is over. The current board is here: {link}"
)


class TimeUp(Refusal):
    """A press that came after the player's clock ran out: the game ended on time."""

    def __init__(self, game: Game, loser: int) -> None:
        super().__init__(_TIME_UP, player=mention(loser))
        self.game = game


_TIME_UP = N_("Time's up — {player}'s clock ran out before that, so the game is over.")


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


class PlayService:
    """Turns, resignations and claims of the games being played: who may make them, one press
    of a game at a time; their writes are :class:`GameChanges` (``changes``)."""

    def __init__(
        self,
        games: GameStore,
        *,
        inactivity_timeout: float,
        clock: Callable[[], float] = time.time,
        leases: LeaseStore | None = None,
        reminders: ReminderDefaults | None = None,
        alarm: Callable[[float], None] | None = None,
    ) -> None:
        self.games = games
        self.inactivity_timeout = inactivity_timeout
        self.changes = GameChanges(games, clock, leases, reminders, alarm)
        self._clock = clock
        self._locks = GameLocks()

    async def choose(
        self, game_id: int, version: int, path: str, caller: Caller
    ) -> StepShown | TurnPlayed:
        """A press on a board control: one more choice of the turn being built.

        ``path`` is the choices so far, one character each. Raises :class:`OutdatedBoardError`
        for an old board and :class:`Refusal` for the wrong person or an unavailable choice.
        """
        GAME_ID.set(game_id)  # the rest of this interaction's task is about this game
        async with self._locks.of(game_id):
            game = playable(await self.games.places.game_in(game_id, caller.channel_id), caller)
            at = caller.at if caller.at is not None else self._clock()
            if game.flag_at is not None and at >= game.flag_at:
                raise TimeUp(await self.flag(game), game.to_move)
            if version != game.version:
                raise OutdatedBoardError(game)
            if game.to_move != caller.user_id:
                raise Refusal(
                    "It's not your turn — waiting for {player}.", player=mention(game.to_move)
                )
            try:
                builder = TurnBuilder(game.position, tuple(path))
            except IllegalTurnError:
                raise Refusal("That choice isn't available.") from None
            turn = builder.turn
            if turn is None:
                return StepShown(game, builder)
            try:
                ai_next = game.ai_level is not None  # a human's turn passes the move to the AI
                changed = await self.changes.turn(game, turn, ai_next=ai_next, at=at)
            except StaleGameError:
                now = await self.games.places.seen_from(game_id, game.away)
                raise OutdatedBoardError(now or game) from None
            TURNS_BY_HUMANS.inc()
            return TurnPlayed(changed, turn)

    async def ai_turn(self, game: Game, turn: Turn) -> TurnPlayed | None:
        """Store the AI's ``turn`` if ``game`` is still as the AI saw it (else ``None``)."""
        game.position.apply(turn)  # checked: the worker's answer is input too
        async with self._locks.of(game.id):
            try:
                changed = await self.changes.turn(game, turn, ai_next=False)
            except StaleGameError:
                return None
            TURNS_BY_AI.inc()
            return TurnPlayed(changed, turn)

    async def resign(self, game_id: int, version: int, caller: Caller) -> Game:
        """Resign: the opponent wins. ``version`` (from the confirm button) must be current."""
        GAME_ID.set(game_id)  # the rest of this interaction's task is about this game
        async with self._locks.of(game_id):
            game = playable(await self.games.places.game_in(game_id, caller.channel_id), caller)
            if version != game.version:
                raise OutdatedBoardError(game)
            return await self.changes.finish(game, _rival(game, caller.user_id), "resignation")

    async def claim(self, game_id: int, caller: Caller, timeout: float | None = None) -> Game:
        """Claim the win when the player to move has been inactive for ``timeout`` seconds
        (default: the service's)."""
        async with self._locks.of(game_id):
            game = playable(await self.games.places.game_in(game_id, caller.channel_id), caller)
            if game.clock is not None:
                raise Refusal(
                    "This game is played on a clock: it ends by itself when a clock "
                    "runs out, no claim needed."
                )
            if game.to_move == caller.user_id:
                raise Refusal("It's your turn — you can only claim while your opponent is idle.")
            due = game.last_move_at + (timeout or self.inactivity_timeout)
            if self._clock() < due:
                raise Refusal(
                    "{player} still has time to move: you can claim the win {when} if they "
                    "haven't moved by then.",
                    player=mention(game.to_move),
                    when=f"<t:{int(due) + 1}:R>",
                )
            return await self.changes.finish(game, _rival(game, game.to_move), "timeout")

    async def abort(self, game_id: int, guild_id: int, admin_id: int) -> Game:
        """An admin ends one of the server's games without a result (unrated, whoever is to
        move); raises :class:`Refusal` if it is not being played in this server."""
        async with self._locks.of(game_id):
            game = await self.games.game(game_id)
            if game is None or game.guild_id != guild_id or not game.is_active:
                raise Refusal("That game isn't being played in this server (any more).")
            return await self.changes.abort(game_id, admin_id)

    async def flag(self, game: Game, loser: int | None = None, reason: Forfeit = "timeout") -> Game:
        """End a live game whose running clock ran out: the player to move loses on time (or
        ``loser`` by ``reason``: a tournament's withdrawal); raises :class:`OutdatedBoardError`
        if it changed meanwhile (a turn came first)."""
        return await self.changes.finish(game, _rival(game, loser or game.to_move), reason)


class GameChanges:
    """The changes of games being played, each in one transaction: a rated game it ends is
    rated in it too, and it takes the lease of posting its board (the process that stored a
    change posts its board); the reminder loop's alarm hears of every reminder a turn
    stores."""

    def __init__(
        self,
        games: GameStore,
        clock: Callable[[], float],
        leases: LeaseStore | None,
        reminders: ReminderDefaults | None,
        alarm: Callable[[float], None] | None,
    ) -> None:
        self.games = games
        self.leases = leases
        self.reminders = reminders
        """With reminders, every turn that leaves a human to move stores when to remind them,
        in the same write (``None``: no reminders)."""
        self.alarm = alarm
        self._clock = clock

    async def turn(self, game: Game, turn: Turn, *, ai_next: bool, at: float | None = None) -> Game:
        """Store ``turn`` by the player to move (made at ``at``: their clock stops then), and
        the end if it ends the game, and when to remind the next player unless that is the AI
        (``ai_next``; every turn passes the move) or the game is live; raises
        :class:`StaleGameError` if ``game`` changed meanwhile."""
        after = game.position.apply_unchecked(turn)
        now = self._clock()
        outcome = after.outcome()
        reminders = None if ai_next or game.clock is not None else self.reminders
        clock_after = _clock_after(game, now if at is None else at)

        def change(transaction: Transaction) -> Awaitable[Game]:
            return record_turn(
                transaction,
                game,
                player_id=game.to_move,
                turn=str(turn),
                position_after=after,
                outcome=outcome,
                now=now,
                reminders=reminders,
                clock_after=clock_after,
            )

        changed = await self._change(change, game, ends=game.rated and outcome is not None)
        if changed.reminder_due_at is not None and self.alarm is not None:
            self.alarm(changed.reminder_due_at)
        return changed

    async def finish(self, game: Game, winner: Colour, reason: Forfeit) -> Game:
        """End ``game`` without a turn: ``winner`` wins by ``reason``; raises
        :class:`OutdatedBoardError` if it changed meanwhile."""
        outcome = Outcome(winner, reason, score(game.position).totals)
        now = self._clock()
        try:
            return await self._change(
                lambda transaction: finish_game(transaction, game, outcome, now),
                game,
                ends=game.rated,
            )
        except StaleGameError:
            now_seen = await self.games.places.seen_from(game.id, game.away)
            raise OutdatedBoardError(now_seen or game) from None

    async def abort(self, game_id: int, admin_id: int) -> Game:
        """End an active game without a result (an admin's decision); raises
        :class:`Refusal` if it has just ended."""
        now = self._clock()

        async def change(transaction: Transaction) -> Game:
            aborted = await abort_game(transaction, game_id, admin_id, now)
            if aborted is None:  # ended meanwhile (by a turn in another process)
                raise Refusal("That game has just ended.")
            return aborted

        return await self._change(change, None, ends=False)

    async def _change(
        self, change: Callable[[Transaction], Awaitable[Game]], seen: Game | None, *, ends: bool
    ) -> Game:
        """Run ``change`` in one transaction; a rated game it finishes is rated in it too. The
        game it returns is seen from where ``seen`` was (a pool game's place), whose board's
        lease it takes.

        A change that ``ends`` a rated game takes the ratings' lock before it touches the game,
        in the order a rebuild takes them, so the two never wait on each other.
        """
        async with self.games.database.transaction() as transaction:
            if ends:
                await transaction.lock(RATINGS_LOCK, 0)
            game = await change(transaction)
            if game.outcome is not None and game.rated:
                await rate_game(transaction, game.id)
            if seen is not None:
                game = seen_as(game, seen)
            if self.leases is not None:
                lease = board_lease(game.id, game.version, game.away)
                await self.leases.take(transaction, lease, self._clock())
        return game


class GameLocks:
    """A lock per game in this process: the presses on one game take turns (it saves wasted
    work only: the versioned writes are what keep a game consistent)."""

    def __init__(self) -> None:
        self._locks: WeakValueDictionary[int, asyncio.Lock] = WeakValueDictionary()

    def of(self, game_id: int) -> asyncio.Lock:
        """The lock of the presses on ``game_id``."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock


def playable(game: Game | None, caller: Caller) -> Game:
    """``game``, if it is active in this channel and the caller plays in it; raises
    :class:`Refusal`."""
    if game is None or caller.channel_id not in (game.channel_id, game.parent_id):
        raise Refusal("This button doesn't belong to a game in this channel.")
    if game.colour_of(caller.user_id) is None:
        raise Refusal(
            "This is a game between {white} and {black} — start your own with {challenge}.",
            white=mention(game.white_id),
            black=mention(game.black_id),
            challenge=command("tholos challenge"),
        )
    if not game.is_active:
        if game.answers_only:  # its last board may never have been shown there (a clock)
            raise OutdatedBoardError(game)
        raise Refusal("This game is over.")
    return game


def _clock_after(game: Game, at: float) -> float | None:
    """The mover's time left after a turn made at ``at`` (with the increment), in a live game
    where they have a clock; ``None`` otherwise. Until their board was out, none ran."""
    clock = game.clock
    left = game.time_left(game.position.turn, at)
    if clock is None or left is None:
        return None
    return max(0.0, left) + clock.increment


def _rival(game: Game, user_id: int) -> Colour:
    """The colour of ``user_id``'s opponent in ``game`` (``user_id`` plays in it)."""
    return WHITE if user_id == game.black_id else BLACK
