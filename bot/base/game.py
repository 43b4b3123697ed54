"""What a game is: its players, its position, its pace and where it is played — the value
every layer passes around (the store maps its rows to it). No I/O."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.base.game_options import Level
from bot.base.languages import Language
from bot.base.paces import TimeControl
from bot.base.people import Person
from engine import BLACK, WHITE, Colour, Position
from engine.core import Mode
from engine.scoring import Outcome

Venue = Literal["server", "bot_dm", "dm", "group_dm", "server_without_bot"]
"""Where a game is played, as Discord tells it: a server channel (or thread) of a server with
the bot, the bot's own direct message, or — through a member's install of the app — a direct
message between members, a group DM, or a server that never added the bot."""
ANSWERS_ONLY: frozenset[Venue] = frozenset({"dm", "group_dm", "server_without_bot"})
"""The venues the bot is not in: it can only answer the interactions members make there
(Discord refuses its posts), so each board there is an interaction's answer."""


@dataclass(frozen=True, slots=True)
class Game:
    """A game: its players, setup, position and version, and where and how it is played (what
    the store keeps of it; a game that is not stored, such as a puzzle drawn as a game, has
    only its players and position)."""

    white_id: int
    black_id: int
    white_name: str
    black_name: str
    mode: Mode
    start_position: Position
    position: Position
    id: int = 0
    """0: a game that is not stored (a puzzle, a lesson, an analysis, drawn as a game)."""
    guild_id: int = 0
    channel_id: int = 0
    seed: int = 0
    version: int = 0
    """Bumped by every stored change; controls carry it to detect outdated boards."""
    plies: int = 0
    """Turns played."""
    status: Literal["active", "finished", "aborted"] = "active"
    outcome: Outcome | None = None
    """How it ended (``None`` while it goes on, and for an aborted game)."""
    board_message_id: int | None = None
    board_version: int | None = None
    """The version the board message shows (behind ``version`` after a crash mid-post)."""
    created_at: float = 0.0
    last_move_at: float = 0.0
    finished_at: float | None = None
    rated: bool = False
    """Whether the game counts for ratings."""
    ai_level: Level | None = None
    """The AI's level (``engine.ai.LEVELS``) in a game against the bot's AI."""
    parent_id: int | None = None
    """The channel a game played in a thread started from (``None``: played in
    ``channel_id`` itself)."""
    parent_message_id: int | None = None
    """The message in the parent channel that stands for the game (its challenge)."""
    ended_by: int | None = None
    """The admin who aborted the game (``status == "aborted"``)."""
    language: Language = "en"
    """The language of its public messages and images (the server's at challenge time)."""
    reminder_due_at: float | None = None
    """When the player to move is reminded of their turn (``None``: no reminder pending —
    the AI is to move, the game is over, reminders are off, or it was sent)."""
    time_control: str | None = None
    """A live clock (``"5+3"``); ``None``: a correspondence game, paced by the idle claim."""
    white_clock: float | None = None
    """White's seconds left when their turn began (``None``: no clock — the AI's side)."""
    black_clock: float | None = None
    """Black's seconds left when their turn began."""
    clock_started_at: float | None = None
    """When the clock of the player to move started: the board of their turn was posted
    (``None``: not running)."""
    flag_at: float | None = None
    """When the running clock runs out (``None``: none runs)."""
    hints: bool = False
    """The player may ask for hints (an unrated game against the AI only)."""
    hints_used: int = 0
    """How many hints they asked for."""
    venue: Venue = "server"
    """Where it is played: in a server with the bot, in the bot's DM, or where the bot can only
    answer presses (:attr:`answers_only`)."""
    pool: bool = False
    """Paired by the pool: shown in each player's place (its other places: the store's
    ``game_places``), several may share a channel."""
    away: int | None = None
    """A pool game seen from one of its places other than its home: the player who asked for
    it there (its channel, thread, language and board here are that place's); ``None``: seen
    at home, where the game's row is."""

    @property
    def clock(self) -> TimeControl | None:
        """The game's live clock (``None``: correspondence)."""
        return TimeControl.of(self.time_control)

    def clock_of(self, colour: Colour) -> float | None:
        """``colour``'s seconds left when their turn began (``None``: they have no clock)."""
        return self.white_clock if colour == WHITE else self.black_clock

    def time_left(self, colour: Colour, now: float) -> float | None:
        """``colour``'s seconds left at ``now`` (their clock runs while it is their turn and
        their board is out); ``None``: they have no clock."""
        left = self.clock_of(colour)
        if left is None:
            return None
        running = self.is_active and self.position.turn == colour
        if running and self.clock_started_at is not None:
            left -= max(0.0, now - self.clock_started_at)
        return left

    @property
    def home_id(self) -> int:
        """The channel the game belongs to: its thread's parent, or its own channel."""
        return self.parent_id or self.channel_id

    @property
    def answers_only(self) -> bool:
        """Whether the bot is not where the game is played (a DM or group DM between members,
        a server without the bot): each of its boards answers a press there."""
        return self.venue in ANSWERS_ONLY

    @property
    def thread_id(self) -> int | None:
        """The game's thread, if it is played in one."""
        return self.channel_id if self.parent_id is not None else None

    @property
    def is_active(self) -> bool:
        """Whether the game is still being played."""
        return self.status == "active"

    def player(self, colour: Colour) -> int:
        """The user id playing ``colour``."""
        return self.white_id if colour == WHITE else self.black_id

    def name(self, colour: Colour) -> str:
        """The display name of the player of ``colour`` (as it was when the game began)."""
        return self.white_name if colour == WHITE else self.black_name

    def colour_of(self, user_id: int) -> Colour | None:
        """The colour ``user_id`` plays, or ``None`` for someone else."""
        if user_id == self.white_id:
            return WHITE
        if user_id == self.black_id:
            return BLACK
        return None

    @property
    def needs_a_board(self) -> bool:
        """Whether the newest change has no board message yet."""
        return self.board_version is None or self.board_version < self.version

    @property
    def to_move(self) -> int:
        """The user id of the player to move."""
        return self.player(self.position.turn)

    def is_ai_turn(self, bot_id: int | None) -> bool:
        """Whether the game waits for the AI: an AI game (``ai_level``) whose player to move is
        the bot (``bot_id``, the bot's own user id)."""
        return self.is_active and self.ai_level is not None and self.to_move == bot_id


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One stored turn."""

    ply: int
    player_id: int
    turn: str
    position_after: str
    created_at: float
    clock: float | None = None
    """In a live game, the mover's time left after it (with the increment)."""


@dataclass(frozen=True, slots=True)
class GamePlace:
    """Where a game is played: ``channel_id`` on the server ``guild_id`` — a thread of
    ``parent_id`` opened on its message ``parent_message_id``, or (``parent_id`` ``None``) the
    channel itself."""

    guild_id: int
    channel_id: int
    parent_id: int | None = None
    parent_message_id: int | None = None
    venue: Venue = "server"
    """Where, as Discord tells it (``guild_id`` is 0 outside servers with the bot)."""

    @property
    def home_id(self) -> int:
        """The channel the game belongs to: its thread's parent, or its own channel."""
        return self.parent_id or self.channel_id


@dataclass(frozen=True, slots=True)
class NewGame:
    """A game about to start: where, who plays White and Black, its seed and start position,
    the language of its public messages, its pace, and whether it is rated (``None``: unless
    it is against the AI)."""

    place: GamePlace
    white: Person
    black: Person
    seed: int
    start: Position
    language: Language = "en"
    clock: TimeControl | None = None
    """A live game: each human's clock is set to its time (the AI has none); their clocks start
    as the boards of their turns are posted."""
    rated: bool | None = None
    ai_level: Level | None = None
    """The AI's level (``engine.ai.LEVELS``) in a game against the bot's AI, whose user id is
    ``ai_id``."""
    ai_id: int | None = None
    hints: bool = False
    """The player may ask for hints (an unrated game against the AI only)."""
