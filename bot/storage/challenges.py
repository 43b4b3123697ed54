"""The challenge repository: a challenge from one member to another (or, open, to anyone),
until it is answered.

Accepting a challenge starts its game in the same transaction. An open challenge is stored with
``opponent_id`` 0 until a member accepts it (see migration 11); outside this module its
opponent is ``None`` until then.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from bot.base.domain import (
    ChallengeStatus,
    ColourChoice,
    FirstChoice,
    Language,
    Mode,
    ReminderDefaults,
    TimeControl,
)
from bot.storage.db import Database, Row, UniqueViolation, scalar
from bot.storage.games import (
    ChannelBusyError,
    Game,
    StaleGameError,
    ensure_no_active_game,
    ensure_pair_free,
    insert_game,
)
from engine import Position

PENDING_PAIR = "pending-pair"
"""Why a challenge can't be made: one between the two is waiting in the channel."""
PENDING_OPEN = "pending-open"
"""Why an open challenge can't be made: the member's open challenge is waiting in the channel."""
TOO_MANY_OPEN = "too-many-open"
"""Why an open challenge can't be made: the member has :data:`MAX_OPEN_CHALLENGES` waiting."""
MAX_OPEN_CHALLENGES = 3
"""Open challenges a member may have waiting on a server at once."""
ANYONE = 0
"""The stored opponent of an open challenge."""
UNSHOWN_CHALLENGE_SECONDS = 60.0
"""A pending challenge whose message was not recorded by then was never shown."""


@dataclass(frozen=True, slots=True)
class Challenge:
    """A challenge from one member to another (``opponent_id`` ``None``: to anyone, until
    someone accepts) in a channel."""

    id: int
    guild_id: int
    channel_id: int
    challenger_id: int
    opponent_id: int | None
    challenger_name: str
    opponent_name: str | None
    mode: Mode
    ornaments: int
    colour: ColourChoice
    """The challenger's colour."""
    first: FirstChoice
    """Who moves first, from the challenger's point of view."""
    message_id: int | None
    status: ChallengeStatus
    created_at: float
    expires_at: float
    game_id: int | None
    language: Language = "en"
    """The language of its message and of its game (the server's, when it was made)."""
    open_to_all: bool = False
    """Made open: anyone may accept it (its opponent, once set, is whoever did)."""
    rating_range: int | None = None
    """An open challenge: only members rated within this many points of the challenger may
    accept it (``None``: anyone)."""
    time_control: str | None = None
    """The game's live clock (``"5+3"``); ``None``: correspondence."""

    @property
    def clock(self) -> TimeControl | None:
        """The game's live clock (``None``: correspondence)."""
        return TimeControl.of(self.time_control)

    @property
    def is_open(self) -> bool:
        """Waiting for anyone to accept it."""
        return self.opponent_id is None


CHALLENGE_COLUMNS = ", ".join(field.name for field in fields(Challenge))
WAITING_OPEN = f"status = 'pending' AND opponent_id = {ANYONE} AND expires_at > ?"
"""The open challenges still waiting at a time (its one parameter)."""
_OPEN_RULE = (
    f"SELECT COUNT(*) FROM challenges WHERE guild_id = ? AND challenger_id = ? AND {WAITING_OPEN}"
)


def challenge_from_row(row: Row) -> Challenge:
    values = {key: row[key] for key in row.keys()}  # noqa: SIM118 (Row is not a dict)
    if values["opponent_id"] == ANYONE:
        values["opponent_id"] = values["opponent_name"] = None
    values["open_to_all"] = bool(values["open_to_all"])
    return Challenge(**values)


class ChallengeStore:
    """Challenges in the database."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int | None,
        challenger_name: str,
        opponent_name: str | None,
        mode: Mode,
        ornaments: int,
        colour: ColourChoice,
        first: FirstChoice,
        now: float,
        expires_at: float,
        in_channel: bool = False,
        language: Language = "en",
        rating_range: int | None = None,
        clock: TimeControl | None = None,
    ) -> Challenge:
        """Store a pending challenge (``opponent_id`` ``None``: an open one, anyone may accept);
        raises :class:`ChannelBusyError` if the two already have a game or a challenge going in
        the channel, if the challenger's open challenge is waiting in the channel or they have
        :data:`MAX_OPEN_CHALLENGES` open ones waiting on the server, or (``in_channel``: the
        game would be played in the channel itself, not in a thread) a game is played in the
        channel.

        A pending challenge of the channel that was never shown (its message was not recorded
        within :data:`UNSHOWN_CHALLENGE_SECONDS`: the bot died while posting it) is expired first.
        """
        is_open = opponent_id is None
        busy = PENDING_OPEN if is_open else PENDING_PAIR
        try:
            async with self.database.transaction() as transaction:
                await transaction.lock("channel", channel_id)
                if in_channel:
                    await ensure_no_active_game(transaction, channel_id)
                if opponent_id is not None:
                    await ensure_pair_free(transaction, channel_id, challenger_id, opponent_id)
                await transaction.execute(
                    "UPDATE challenges SET status = 'expired' WHERE channel_id = ? "
                    "AND status = 'pending' AND message_id IS NULL AND created_at <= ?",
                    (channel_id, now - UNSHOWN_CHALLENGE_SECONDS),
                )
                other = ANYONE if opponent_id is None else opponent_id
                pending = await transaction.fetchone(
                    "SELECT 1 FROM challenges WHERE channel_id = ? AND status = 'pending' AND "
                    "((challenger_id = ? AND opponent_id = ?) OR "
                    "(challenger_id = ? AND opponent_id = ?))",
                    (channel_id, challenger_id, other, other, challenger_id),
                )
                if pending is not None:
                    raise ChannelBusyError(busy)
                if is_open:
                    await transaction.lock("open-challenges", challenger_id)
                    waiting = await scalar(transaction, _OPEN_RULE, (guild_id, challenger_id, now))
                    if waiting >= MAX_OPEN_CHALLENGES:
                        raise ChannelBusyError(TOO_MANY_OPEN)
                row = await transaction.fetchone(
                    "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, "
                    "challenger_name, opponent_name, mode, ornaments, colour, first, created_at, "
                    "expires_at, language, open_to_all, rating_range, time_control) "
                    f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    f"RETURNING {CHALLENGE_COLUMNS}",
                    (
                        guild_id,
                        channel_id,
                        challenger_id,
                        other,
                        challenger_name,
                        opponent_name or "",
                        mode,
                        ornaments,
                        colour,
                        first,
                        now,
                        expires_at,
                        language,
                        is_open,
                        rating_range,
                        None if clock is None else str(clock),
                    ),
                )
                assert row is not None  # INSERT … RETURNING gives the row
                return challenge_from_row(row)
        except UniqueViolation as error:  # the same challenge, made twice at once
            raise ChannelBusyError(busy) from error

    async def set_message(self, challenge_id: int, message_id: int) -> None:
        """Remember the message that shows the challenge."""
        async with self.database.transaction() as transaction:
            await transaction.execute(
                "UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id)
            )

    async def challenge(self, challenge_id: int) -> Challenge | None:
        """The challenge with this id."""
        row = await self.database.fetchone(
            f"SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,)
        )
        return None if row is None else challenge_from_row(row)

    async def pending(self, channel_id: int, challenger_id: int) -> Challenge | None:
        """The newest challenge ``challenger_id`` made in the channel that is still pending."""
        row = await self.database.fetchone(
            f"SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE channel_id = ? "
            "AND challenger_id = ? AND status = 'pending' ORDER BY id DESC LIMIT 1",
            (channel_id, challenger_id),
        )
        return None if row is None else challenge_from_row(row)

    async def close(self, challenge_id: int, status: ChallengeStatus) -> Challenge | None:
        """Mark a pending challenge declined, withdrawn or expired.

        Returns the updated challenge, or ``None`` if it was no longer pending (someone else
        already answered it).
        """
        async with self.database.transaction() as transaction:
            row = await transaction.fetchone(
                f"UPDATE challenges SET status = ? WHERE id = ? AND status = 'pending' "
                f"RETURNING {CHALLENGE_COLUMNS}",
                (status, challenge_id),
            )
        return None if row is None else challenge_from_row(row)

    async def accept(
        self,
        challenge_id: int,
        *,
        white_id: int,
        black_id: int,
        seed: int,
        start: Position,
        now: float,
        thread_id: int | None = None,
        reminders: ReminderDefaults | None = None,
        accepter: tuple[int, str] | None = None,
    ) -> Game:
        """Accept a pending challenge and start its game, in one transaction: in the thread
        ``thread_id`` of the challenge's channel, or (``None``) in the channel itself; with
        ``reminders``, the first player is reminded of their turn (see
        :func:`~bot.storage.games.reminder_due`). An open challenge is ``accepter``'s (id,
        name): the first to accept it has it.

        Raises :class:`StaleGameError` if the challenge is no longer pending (or no longer
        open), and :class:`ChannelBusyError` if the place is taken or the two play each other
        there.
        """
        async with self.database.transaction() as transaction:
            if accepter is None:
                row = await transaction.fetchone(
                    "UPDATE challenges SET status = 'accepted' WHERE id = ? "
                    f"AND status = 'pending' AND opponent_id != {ANYONE} "
                    f"RETURNING {CHALLENGE_COLUMNS}",
                    (challenge_id,),
                )
            else:
                row = await transaction.fetchone(
                    "UPDATE challenges SET status = 'accepted', opponent_id = ?, "
                    f"opponent_name = ? WHERE id = ? AND status = 'pending' "
                    f"AND opponent_id = {ANYONE} RETURNING {CHALLENGE_COLUMNS}",
                    (*accepter, challenge_id),
                )
            if row is None:
                raise StaleGameError("the challenge is no longer open")
            challenge = challenge_from_row(row)
            opponent_id, opponent_name = challenge.opponent_id, challenge.opponent_name
            assert opponent_id is not None and opponent_name is not None  # accepted: someone's
            await transaction.lock("channel", challenge.channel_id)
            await ensure_pair_free(
                transaction, challenge.channel_id, challenge.challenger_id, opponent_id
            )
            names = {challenge.challenger_id: challenge.challenger_name, opponent_id: opponent_name}
            in_thread = thread_id is not None
            game = await insert_game(
                transaction,
                guild_id=challenge.guild_id,
                channel_id=thread_id if in_thread else challenge.channel_id,
                white=(white_id, names[white_id]),
                black=(black_id, names[black_id]),
                seed=seed,
                start=start,
                now=now,
                ai_level=None,
                parent_id=challenge.channel_id if in_thread else None,
                parent_message_id=challenge.message_id if in_thread else None,
                language=challenge.language,
                reminders=reminders,
                clock=challenge.clock,
            )
            await transaction.execute(
                "UPDATE challenges SET game_id = ? WHERE id = ?", (game.id, challenge_id)
            )
        return game
