"""From a press or a command to the messages it leaves: every interaction answered, in time.

Order of work in every flow: check and store (fast, in the database), acknowledge the
interaction, then render the image in a worker thread and post it. A refusal becomes a polite
ephemeral reply; an unexpected error is logged and still answered.
"""

from __future__ import annotations

import asyncio
import io
import logging
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from engine import BLACK, WHITE, Position, Turn, parse_turn
from engine.builder import TurnBuilder
from engine.newgame import new_game
from rendering.board import render_board
from rendering.describe import describe_board
from rendering.view import BoardView

from .ai import AiPlayer
from .controls import board_view, challenge_view, final_view, leaderboard_view, resign_view
from .presenter import (
    challenge_text,
    describe_turn,
    game_embed,
    leaderboard_embed,
    result_text,
    rules_embed,
    stats_embed,
    step_prompt,
)
from .service import (
    Answer,
    Caller,
    ExpiredChallengeError,
    GameOptions,
    GameService,
    OutdatedBoardError,
    Person,
    Refusal,
    StepShown,
    mention,
)
from .stats import player_stats
from .storage import Challenge, Game, RatingStore
from .storage.ratings import PAGE_SIZE

if TYPE_CHECKING:
    from .client import TholosBot

log = logging.getLogger(__name__)

IMAGE_NAME = "board.png"
ALT_TEXT_LIMIT = 1024
"""Discord's limit on an attachment's description (alt text)."""
USERS_ONLY = discord.AllowedMentions(everyone=False, roles=False, users=True)
RENDER_THREADS = 2
"""Boards are rendered on this many threads: enough for 2 cores, and each thread's image
buffers are reused instead of spread over many threads."""
SOMETHING_WENT_WRONG = (
    "Sorry — something went wrong on my side and nothing was changed. Please try again; if it "
    "keeps happening, tell a server admin."
)
SAVED_BUT_NOT_SHOWN = (
    "That was saved, but I couldn't post the new board. `/tholos board` shows it (I'll also "
    "post it myself shortly)."
)
RESTARTING = "I'm restarting — please try again in a few seconds."
REQUIRED_PERMISSIONS = (
    ("view_channel", "View Channel"),
    ("send_messages", "Send Messages"),
    ("embed_links", "Embed Links"),
    ("attach_files", "Attach Files"),
    ("read_message_history", "Read Message History"),
)

Send = Callable[..., Awaitable[discord.Message]]


@dataclass(frozen=True, slots=True)
class LastTurn:
    """A turn to show on a board, and who played it."""

    turn: Turn
    player_id: int

    def words(self) -> str:
        """``<@id> placed white on γ C, …``."""
        return describe_turn(self.turn, self.player_id)


def board_note(game: Game) -> str | None:
    """The image's headline for a game that ended without a full temple."""
    outcome = game.outcome
    if outcome is None or outcome.reason not in ("resignation", "timeout"):
        return None
    winner = WHITE if outcome.result == "white" else BLACK
    if outcome.reason == "resignation":
        return f"{game.name(1 - winner)} resigned: {game.name(winner)} wins"
    return f"{game.name(winner)} wins on time"


def caller(interaction: discord.Interaction[Any]) -> Caller:
    """Who acts, and where."""
    return Caller(interaction.user.id, interaction.channel_id or 0)


def require_permissions(interaction: discord.Interaction[Any]) -> None:
    """Refuse when the bot can't post boards in the interaction's channel, naming what's missing."""
    permissions = interaction.app_permissions
    missing = [name for flag, name in REQUIRED_PERMISSIONS if not getattr(permissions, flag)]
    if missing:
        raise Refusal(
            "I can't run a game here yet: I need these permissions in this channel: "
            f"**{', '.join(missing)}**. A server admin can grant them in the channel's settings "
            "(Permissions → the Tholos bot's role)."
        )


def jump_url(game: Game) -> str | None:
    """A link to the game's current board message."""
    if game.board_message_id is None:
        return None
    return f"https://discord.com/channels/{game.guild_id}/{game.channel_id}/{game.board_message_id}"


class Flows:
    """The bot's interaction flows; one method per command or button."""

    def __init__(
        self, bot: TholosBot, service: GameService, ratings: RatingStore, ai: AiPlayer
    ) -> None:
        self.bot = bot
        self.service = service
        self.ratings = ratings
        self.ai = ai
        self._thinking: dict[int, asyncio.Task[None]] = {}
        self._renderer = ThreadPoolExecutor(RENDER_THREADS, thread_name_prefix="render")
        self._running: set[asyncio.Task[Any]] = set()
        self._closing = False
        self._unpostable: set[int] = set()

    async def warm_up(self) -> None:
        """Render one board before the first player waits for one (fonts, palette, caches)."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._renderer, _render, new_game(), BoardView())

    def close(self) -> None:
        """Stop the render threads and the AI's worker process."""
        self._renderer.shutdown(wait=False, cancel_futures=True)
        self.ai.close()

    async def drain(self, timeout: float) -> None:
        """Refuse new interactions and wait (up to ``timeout`` seconds) for those under way."""
        self._closing = True
        deadline = asyncio.get_running_loop().time() + timeout
        while running := {task for task in self._running if task is not asyncio.current_task()}:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                log.warning("%d interaction(s) still running at shutdown", len(running))
                return
            log.info("waiting for %d interaction(s) to finish", len(running))
            await asyncio.wait(running, timeout=left)

    # -- answering --------------------------------------------------------------------------------

    async def guarded(self, interaction: discord.Interaction[Any], flow: Awaitable[None]) -> None:
        """Run ``flow``; turn refusals and errors into an ephemeral answer."""
        if self._closing:
            flow.close()  # type: ignore[attr-defined]
            await tell(interaction, RESTARTING)
            return
        task = asyncio.current_task()
        if task is not None:
            self._running.add(task)
        try:
            await flow
        except OutdatedBoardError as error:
            link = jump_url(error.game)
            where = f" The current board is here: {link}" if link else ""
            if not error.game.is_active:
                where = " The game is over." + where
            await tell(interaction, f"This board is out of date.{where}")
        except Refusal as refusal:
            await tell(interaction, str(refusal))
        except Exception:
            log.exception("interaction %s failed", interaction.id)
            await tell(interaction, SOMETHING_WENT_WRONG)
        finally:
            self._running.discard(task)  # type: ignore[arg-type]

    # -- boards -----------------------------------------------------------------------------------

    async def last_turn(self, game: Game) -> LastTurn | None:
        """The game's newest turn, for the board's caption and highlight."""
        records = await self.service.store.turns(game.id, last=1)
        if not records:
            return None
        return LastTurn(parse_turn(records[-1].turn), records[-1].player_id)

    async def board_message(self, game: Game, last: LastTurn | None) -> dict[str, Any]:
        """The keyword arguments of a board message: content, embed, image, controls."""
        view = BoardView(
            white_name=game.white_name,
            black_name=game.black_name,
            last_turn=last.turn if last else None,
            final=not game.is_active,
            note=board_note(game),
        )
        loop = asyncio.get_running_loop()
        png, alt = await loop.run_in_executor(self._renderer, _render, game.position, view)
        file = discord.File(io.BytesIO(png), filename=IMAGE_NAME, description=alt[:ALT_TEXT_LIMIT])
        embed = game_embed(game, last.words() if last else None, IMAGE_NAME)
        if game.is_active and self.is_ai_turn(game):
            content = f"🤖 {game.name(game.position.turn)} is thinking…"
            controls = None
        elif game.is_active:
            builder = TurnBuilder(game.position)
            step = builder.step()
            assert step is not None  # an active game always has a turn to play
            content = f"{mention(game.to_move)}, your turn. {step_prompt(builder, step)}"
            controls = board_view(game, builder, step)
        else:
            content = f"Game over. {result_text(game)}"
            controls = final_view(game)
        message = {"content": content, "embed": embed, "file": file, "allowed_mentions": USERS_ONLY}
        return message if controls is None else {**message, "view": controls}

    async def post_board(
        self, send: Send, game: Game, last: LastTurn | None, *, stripped: int | None = None
    ) -> discord.Message:
        """Post the board with ``send``, record it, and strip the controls of the previous one
        (unless it is ``stripped`` already)."""
        message = await send(**await self.board_message(game, last))
        if not await self.service.store.set_board_message(game.id, message.id, game.version):
            await self.strip_controls(game.channel_id, message.id)  # a newer board is out already
            return message
        previous = game.board_message_id
        if previous is not None and previous not in (message.id, stripped):
            await self.strip_controls(game.channel_id, previous)
        return message

    async def post_after_change(
        self,
        interaction: discord.Interaction[Any],
        game: Game,
        last: LastTurn | None,
        *,
        stripped: int | None = None,
    ) -> None:
        """Post the board of a change already stored; if that fails, say what happened."""
        try:
            await self.post_board(interaction.followup.send, game, last, stripped=stripped)
        except Exception as error:  # the change is stored: say so, whatever failed
            if isinstance(error, discord.HTTPException):  # Discord refused: expected, no trace
                log.warning("could not post the board of game %s: %s", game.id, error)
            else:
                log.exception("could not post the board of game %s", game.id)
            await tell(interaction, SAVED_BUT_NOT_SHOWN)

    async def strip_controls(self, channel_id: int, message_id: int) -> None:
        """Remove the buttons of an old message (best effort: it may be gone)."""
        try:
            await (
                self.bot.get_partial_messageable(channel_id)
                .get_partial_message(message_id)
                .edit(view=None)
            )
        except discord.HTTPException as error:
            log.info("could not strip controls of message %s: %s", message_id, error)

    # -- the turn ---------------------------------------------------------------------------------

    async def step(
        self, interaction: discord.Interaction[Any], game_id: int, version: int, path: str
    ) -> None:
        """A press on a board's step button."""
        await self.guarded(interaction, self._step(interaction, game_id, version, path))

    async def _step(
        self, interaction: discord.Interaction[Any], game_id: int, version: int, path: str
    ) -> None:
        require_permissions(interaction)
        result = await self.service.choose(game_id, version, path, caller(interaction))
        if isinstance(result, StepShown):
            step = result.builder.step()
            assert step is not None
            await interaction.response.edit_message(
                content=f"{mention(result.game.to_move)}: {step_prompt(result.builder, step)}",
                view=board_view(result.game, result.builder, step),
                allowed_mentions=USERS_ONLY,
            )
            return
        last = LastTurn(result.turn, interaction.user.id)
        await interaction.response.edit_message(
            content=f"Played: {last.words()}", view=None, allowed_mentions=USERS_ONLY
        )
        pressed = interaction.message.id if interaction.message else None
        await self.post_after_change(interaction, result.game, last, stripped=pressed)
        self.schedule_ai(result.game)

    async def claim(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """The Claim button on a board."""
        await self.guarded(interaction, self._claim(interaction, game_id))

    async def _claim(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        require_permissions(interaction)
        game = await self.service.claim(game_id, caller(interaction))
        await interaction.response.defer()
        await self.post_after_change(interaction, game, await self.last_turn(game))

    async def resign(
        self, interaction: discord.Interaction[Any], game_id: int, version: int
    ) -> None:
        """The confirmation button of ``/tholos resign``."""
        await self.guarded(interaction, self._resign(interaction, game_id, version))

    async def _resign(
        self, interaction: discord.Interaction[Any], game_id: int, version: int
    ) -> None:
        require_permissions(interaction)
        game = await self.service.resign(game_id, version, caller(interaction))
        await interaction.response.edit_message(content="You resigned.", view=None)
        await self.post_after_change(interaction, game, await self.last_turn(game))

    async def ask_resign(self, interaction: discord.Interaction[Any]) -> None:
        """``/tholos resign``: ask to confirm with a button."""
        await self.guarded(interaction, self._ask_resign(interaction))

    async def _ask_resign(self, interaction: discord.Interaction[Any]) -> None:
        game = await self._channel_game(interaction, players_only=True)
        await interaction.response.send_message(
            "Resign this game? Your opponent wins.", view=resign_view(game), ephemeral=True
        )

    async def _channel_game(
        self, interaction: discord.Interaction[Any], *, players_only: bool
    ) -> Game:
        """The active game in the interaction's channel (one its user plays in, if asked)."""
        game = await self.service.store.active_game(interaction.channel_id or 0)
        if game is None:
            raise Refusal("There is no game being played in this channel.")
        if players_only and game.colour_of(interaction.user.id) is None:
            raise Refusal(
                f"The game here is between {mention(game.white_id)} and {mention(game.black_id)}."
            )
        return game

    async def claim_in_channel(self, interaction: discord.Interaction[Any]) -> None:
        """``/tholos claim``."""
        await self.guarded(interaction, self._claim_in_channel(interaction))

    async def _claim_in_channel(self, interaction: discord.Interaction[Any]) -> None:
        game = await self._channel_game(interaction, players_only=True)
        await self._claim(interaction, game.id)

    async def show_board(self, interaction: discord.Interaction[Any]) -> None:
        """``/tholos board``: post the current board again (its controls move with it)."""
        await self.guarded(interaction, self._show_board(interaction))

    async def _show_board(self, interaction: discord.Interaction[Any]) -> None:
        require_permissions(interaction)
        game = await self._channel_game(interaction, players_only=False)
        await interaction.response.defer()
        await self.post_board(interaction.followup.send, game, await self.last_turn(game))

    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        """``/tholos rules``: ephemeral, with this channel's ornaments when a game is on."""
        await self.guarded(interaction, self._rules(interaction))

    async def _rules(self, interaction: discord.Interaction[Any]) -> None:
        game = await self.service.store.active_game(interaction.channel_id or 0)
        await interaction.response.send_message(
            embed=rules_embed(game.position if game else None), ephemeral=True
        )

    # -- challenges -------------------------------------------------------------------------------

    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.User | discord.Member,
        options: GameOptions,
        level: str,
    ) -> None:
        """``/tholos challenge``: post the challenge with its buttons, or start a game against
        the AI when ``opponent`` is this bot."""
        await self.guarded(interaction, self._challenge(interaction, opponent, options, level))

    async def _challenge(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.User | discord.Member,
        options: GameOptions,
        level: str,
    ) -> None:
        require_permissions(interaction)
        await self.expire_challenges()  # an expired challenge must not block the channel
        guild_id, channel_id = interaction.guild_id or 0, interaction.channel_id or 0
        me = Person(interaction.user.id, interaction.user.display_name)
        if self.bot.user is not None and opponent.id == self.bot.user.id:
            game = await self.service.start_ai_game(
                guild_id=guild_id, channel_id=channel_id, human=me, ai_id=opponent.id,
                level=level, options=options,
            )  # fmt: skip
            await self.start_ai_game(interaction, game)
            return
        challenge = await self.service.challenge(
            guild_id=guild_id, channel_id=channel_id, challenger=me,
            opponent=Person(opponent.id, opponent.display_name, opponent.bot), options=options,
        )  # fmt: skip
        await self.post_challenge(interaction, challenge)

    async def post_challenge(
        self, interaction: discord.Interaction[Any], challenge: Challenge
    ) -> None:
        """Answer ``interaction`` with the public challenge message and remember it."""
        sent = await interaction.response.send_message(
            challenge_text(challenge), view=challenge_view(challenge), allowed_mentions=USERS_ONLY
        )
        if sent.message_id is None:
            return
        store = self.service.store
        await store.set_challenge_message(challenge.id, sent.message_id)
        now = await store.challenge(challenge.id)
        if now is not None and now.status != "pending":  # answered or cancelled meanwhile
            await self.refresh_challenge(now)
        self.bot.challenge_made()

    async def answer_challenge(
        self, interaction: discord.Interaction[Any], challenge_id: int, answer: Answer
    ) -> None:
        """Accept / Decline / Withdraw on a challenge message."""
        await self.guarded(interaction, self._answer(interaction, challenge_id, answer))

    async def _answer(
        self, interaction: discord.Interaction[Any], challenge_id: int, answer: Answer
    ) -> None:
        if answer == "accept":
            require_permissions(interaction)
        try:
            answered = await self.service.answer_challenge(
                challenge_id, caller(interaction), answer
            )
        except ExpiredChallengeError as expired:
            await interaction.response.edit_message(
                content=challenge_text(expired.challenge), view=challenge_view(expired.challenge),
                allowed_mentions=USERS_ONLY,
            )  # fmt: skip
            raise
        challenge = answered.challenge
        if answered.game is not None:
            challenge = await self.service.store.challenge(challenge_id) or challenge
        await interaction.response.edit_message(
            content=challenge_text(challenge), view=challenge_view(challenge),
            allowed_mentions=USERS_ONLY,
        )  # fmt: skip
        if answered.game is not None:
            await self.post_after_change(interaction, answered.game, None)

    async def cancel(self, interaction: discord.Interaction[Any]) -> None:
        """``/tholos cancel``: the challenger withdraws the channel's pending challenge."""
        await self.guarded(interaction, self._cancel(interaction))

    async def _cancel(self, interaction: discord.Interaction[Any]) -> None:
        challenge = await self.service.withdraw_pending(caller(interaction))
        await interaction.response.send_message("Your challenge is withdrawn.", ephemeral=True)
        await self.refresh_challenge(challenge)

    async def refresh_challenge(self, challenge: Challenge) -> None:
        """Show a closed challenge's status on its message and disable its buttons."""
        if challenge.message_id is None:
            return
        channel = self.bot.get_partial_messageable(challenge.channel_id)
        try:
            await channel.get_partial_message(challenge.message_id).edit(
                content=challenge_text(challenge), view=challenge_view(challenge),
                allowed_mentions=USERS_ONLY,
            )  # fmt: skip
        except discord.HTTPException as error:
            log.info("could not update challenge message %s: %s", challenge.message_id, error)

    async def rematch(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """The Rematch button of a finished game."""
        await self.guarded(interaction, self._rematch(interaction, game_id))

    async def _rematch(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        require_permissions(interaction)
        await self.expire_challenges()
        rematch = await self.service.rematch(game_id, caller(interaction))
        if isinstance(rematch, Game):
            await self.start_ai_game(interaction, rematch)
        else:
            await self.post_challenge(interaction, rematch)

    # -- the AI opponent --------------------------------------------------------------------------

    def is_ai_turn(self, game: Game) -> bool:
        """Whether ``game`` waits for the AI."""
        user = self.bot.user
        return game.ai_level is not None and user is not None and game.to_move == user.id

    async def start_ai_game(self, interaction: discord.Interaction[Any], game: Game) -> None:
        """Show a new game against the AI; the AI moves if it plays first."""
        await interaction.response.defer()
        await self.post_after_change(interaction, game, None)
        self.schedule_ai(game)

    def schedule_ai(self, game: Game) -> None:
        """Let the AI move in ``game`` if it is its turn and it isn't thinking already."""
        if game.is_active and self.is_ai_turn(game) and game.id not in self._thinking:
            self._thinking[game.id] = asyncio.create_task(self._ai_move(game))

    async def _ai_move(self, game: Game) -> None:
        try:
            seed = game.seed * 1000 + game.plies
            turn = await self.ai.choose(game.position, game.ai_level or "medium", seed)
            played = await self.service.ai_turn(game, turn)
            if played is not None:
                channel = self.bot.get_partial_messageable(game.channel_id)
                await self.post_board(channel.send, played.game, LastTurn(turn, game.to_move))
        except Exception:
            log.exception("the AI could not move in game %s", game.id)
        finally:
            self._thinking.pop(game.id, None)

    async def resume_ai_games(self) -> None:
        """Let the AI move in every game waiting for it (after a restart, or a failure)."""
        for game in await self.service.store.active_ai_games():
            self.schedule_ai(game)

    # -- ratings ----------------------------------------------------------------------------------

    async def leaderboard(
        self, interaction: discord.Interaction[Any], page: int, *, edit: bool
    ) -> None:
        """``/leaderboard`` (a new message) or its Previous / Next buttons (the same message)."""
        await self.guarded(interaction, self._leaderboard(interaction, page, edit=edit))

    async def _leaderboard(
        self, interaction: discord.Interaction[Any], page: int, *, edit: bool
    ) -> None:
        guild_id = interaction.guild_id
        if guild_id is None:
            raise Refusal("Leaderboards belong to servers — run `/leaderboard` in a server.")
        players = await self.ratings.players(guild_id)
        if not players:
            raise Refusal(
                "No rated games have finished on this server yet — `/tholos challenge` someone!"
            )
        pages = -(-players // PAGE_SIZE)
        page = min(page, pages - 1)
        rows = await self.ratings.page(guild_id, page)
        me = await self.ratings.player(guild_id, interaction.user.id)
        embed = leaderboard_embed(rows, page, pages, interaction.user.id, me)
        view = leaderboard_view(page, pages)
        if edit:
            await interaction.response.edit_message(embed=embed, view=view)
        else:
            await interaction.response.send_message(embed=embed, view=view)

    async def stats(self, interaction: discord.Interaction[Any], user: discord.abc.User) -> None:
        """``/tholos stats [member]``."""
        await self.guarded(interaction, self._stats(interaction, user))

    async def _stats(self, interaction: discord.Interaction[Any], user: discord.abc.User) -> None:
        guild_id = interaction.guild_id or 0
        history = await self.ratings.history(guild_id, user.id)
        rated = await self.ratings.player(guild_id, user.id)
        players = await self.ratings.players(guild_id)
        embed = stats_embed(user.id, rated, players, player_stats(user.id, history))
        await interaction.response.send_message(embed=embed)

    # -- housekeeping -----------------------------------------------------------------------------

    async def expire_challenges(self) -> None:
        """Close the challenges whose time is up and say so on their messages."""
        for challenge in await self.service.expire_due():
            await self.refresh_challenge(challenge)

    async def repost_missing_boards(self, grace: float) -> None:
        """Post the boards of changes stored more than ``grace`` seconds ago but never shown (the
        bot died, or Discord failed, between storing and posting)."""
        cutoff = time.time() - grace
        for game in await self.service.store.games_needing_a_board(changed_before=cutoff):
            if game.id in self._unpostable:
                continue
            try:
                channel = self.bot.get_partial_messageable(game.channel_id)
                await self.post_board(channel.send, game, await self.last_turn(game))
            except Exception:
                log.exception(
                    "could not post the board of game %s; retrying at next start", game.id
                )
                self._unpostable.add(game.id)


async def tell(interaction: discord.Interaction[Any], text: str) -> None:
    """Answer ``interaction`` with an ephemeral message, whether or not it was acknowledged."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True, allowed_mentions=USERS_ONLY)
        else:
            await interaction.response.send_message(
                text, ephemeral=True, allowed_mentions=USERS_ONLY
            )
    except discord.HTTPException:
        log.exception("could not answer interaction %s", interaction.id)


def _render(position: Position, view: BoardView) -> tuple[bytes, str]:
    """The board image and its text description (runs in a worker thread)."""
    return render_board(position, view), describe_board(position, view)
