"""The board as one value: everything any face of a game's board shows — the Discord layout,
the image and its alt text, the live web board — made by one pure function from the game, its
last turn, the turn being composed and the reader's translator. The faces only draw it.

Its controls are :class:`~bot.words.choices.Choice` values; the turn being composed (each
step's prompt and choices) is made by :mod:`bot.words.steps`.

No I/O and no Discord objects: a player is named by the face's own :data:`~bot.words.phrases.Who`
(a mention on Discord, a plain name on the web).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from bot.base.game import Game
from bot.base.paces import clock_text
from bot.words.choices import Choice
from bot.words.names import called_here, plain_name
from bot.words.phrases import (
    MODE_NAMES,
    SANDSTONE,
    STONE_EMOJI,
    Who,
    colour_name,
    ornaments_text,
    result_text,
)
from bot.words.steps import press_choices, step_prompt
from engine import BLACK, WHITE, Colour, Position, Turn
from engine.builder import Step, TurnBuilder
from engine.scoring import Score, score
from engine.vocabulary import N_, location_name, points
from rendering.describe import scoring_lines, turn_text
from rendering.translator import Translator
from rendering.view import BoardView

ACCENT: Final = {WHITE: 0xECE6D6, BLACK: 0x2E2B28}
"""The accent of a game being played: the colour of the player to move (marble, basalt)."""
LAST_TURN, SCORING, IF_IT_ENDED_NOW = N_("Last turn"), N_("Scoring"), N_("If it ended now")
"""The board's headings."""
OPEN_LIVE_BOARD = N_("Open the live board")
Phase = Literal["turn", "ai", "over"]
"""A human is to move, the AI is thinking, or the game is over."""


@dataclass(frozen=True, slots=True)
class LastTurn:
    """A turn to show on a board, and who played it."""

    turn: Turn
    player_id: int


@dataclass(frozen=True, slots=True)
class Side:
    """One player as the board shows them."""

    colour: Colour
    user_id: int
    name: str
    """The display name when the game began."""
    called: str
    """How the face names them (a mention, or the name)."""
    colour_name: str
    stone: str
    points: int
    """Their points if the game ended now (the final points once it is over)."""


@dataclass(frozen=True, slots=True)
class Column:
    """One column and what it scores now."""

    location: str
    """``α A`` … ``η G``."""
    stones: str
    """Bottom to top, as colour letters."""
    capacity: int
    winner: Colour | None
    points: int
    line: str
    """The column's scoring in words (winner, points, ornament change)."""


@dataclass(frozen=True, slots=True)
class Clocks:
    """A live game's clocks at the board's moment."""

    control: str
    """``"5+3"``: minutes each, seconds added a turn."""
    left: tuple[float | None, float | None]
    """White's and Black's seconds left (``None``: no clock — the AI's side)."""
    running: Colour | None
    """Whose clock runs (``None``: none, e.g. the game is over or the board is not out)."""
    runs_out_at: float | None
    """When the running clock runs out (Unix time)."""
    line: str
    """The clocks in words, the running one as a Discord relative time."""


@dataclass(frozen=True, slots=True)
class Board:
    """Everything a face shows of one game at one moment."""

    game_id: int
    version: int
    ply: int
    phase: Phase
    accent: int
    """The colour of the player to move; sandstone once it is over."""
    title: str
    """``Tholos · Basic``."""
    sides: tuple[Side, Side]
    ornaments: str | None
    """The ornaments, one per line (advanced games only)."""
    last_turn: str | None
    """The last turn in words."""
    status: str
    """Whose turn (with the step's prompt), the AI thinking, or the result."""
    prompt: str | None
    """What the player to move is asked at this step."""
    projection: str | None
    """The points if the game ended now (while it goes on)."""
    scoring: str | None
    """Each column's scoring, once it is over."""
    columns: tuple[Column, ...]
    position: str
    """The canonical position string (``python -m engine`` reads it)."""
    small_print: str
    """``Ply N · <position>``."""
    headings: dict[str, str]
    """The headings of the parts above, in the reader's language."""
    options: tuple[Choice, ...]
    """The step's choices (empty unless a human is to move)."""
    commands: tuple[Choice, ...]
    """Skip, Back, Cancel, Claim or Resign, How to play; after the game Rematch, Replay,
    Record, Review."""
    pings: tuple[int, ...]
    """Who is told about this board: the player to move, or both players at the end."""
    image: BoardView
    """What the image and its alt text show besides the position."""
    position_value: Position
    clocks: Clocks | None = None
    """A live game's clocks (``None``: correspondence)."""


def board_of(
    game: Game,
    t: Translator,
    *,
    last: LastTurn | None = None,
    builder: TurnBuilder | None = None,
    bot_id: int | None = None,
    who: Who | None = None,
    live: bool = False,
    now: float | None = None,
) -> Board:
    """The board of ``game`` in ``t``'s language: ``last`` is the newest turn and who played it,
    ``builder`` the turn being composed (``None``: none chosen yet), ``bot_id`` the bot's user
    id (the AI's), ``who`` how to name a player; ``live``: the bot serves the live board, so a
    control opens it; ``now``: the board is about to be posted, which starts the mover's clock
    of a live game (else a clock runs only once its start is stored). By default a player is
    named as the game's channel reads them (:func:`called_here`)."""
    who = who or called_here(game)
    position = game.position
    projected = score(position)
    phase = _phase(game, bot_id)
    prompt, options, commands = _controls(t, game, phase, builder, live)
    sides = _sides(t, game, projected, who)
    last_words = turn_text(last.turn, who(last.player_id), t) if last else None
    return Board(
        game_id=game.id,
        version=game.version,
        ply=game.plies,
        phase=phase,
        accent=ACCENT[position.turn] if phase != "over" else SANDSTONE,
        title="Tholos · " + t(MODE_NAMES[game.mode]).capitalize(),
        sides=sides,
        ornaments=ornaments_text(t, position) if game.mode == "advanced" else None,
        last_turn=last_words,
        status=_status(t, game, phase, prompt, who),
        prompt=prompt,
        projection=" · ".join(f"{side.colour_name} {points(side.points)}" for side in sides)
        if phase != "over"
        else None,
        scoring=scoring_lines(projected, t) if game.outcome is not None else None,
        columns=_columns(t, position, projected),
        position=str(position),
        small_print=t("Ply {ply}", ply=game.plies) + f" · {position}",
        headings={
            "last_turn": t(LAST_TURN),
            "scoring": t(SCORING),
            "projection": t(IF_IT_ENDED_NOW),
        },
        options=options,
        commands=commands,
        pings={"turn": (game.to_move,), "ai": (), "over": (game.white_id, game.black_id)}[phase],
        image=_image_view(t, game, last),
        position_value=position,
        clocks=clocks_of(t, game, now),
    )


def _phase(game: Game, bot_id: int | None) -> Phase:
    """Whether a human is to move, the AI (``bot_id``) is, or the game is over."""
    if not game.is_active:
        return "over"
    return "ai" if game.is_ai_turn(bot_id) else "turn"


def _controls(
    t: Translator, game: Game, phase: Phase, builder: TurnBuilder | None, live: bool
) -> tuple[str | None, tuple[Choice, ...], tuple[Choice, ...]]:
    """The step's prompt, its choices and the board's commands (see :func:`board_of`)."""
    prompt = None
    options: tuple[Choice, ...] = ()
    commands: tuple[Choice, ...] = ()
    if phase == "turn":
        builder = builder or TurnBuilder(game.position)
        step = builder.step()
        assert step is not None  # an active game always has a turn to play
        prompt = step_prompt(t, builder, step)
        options, commands = _step_choices(t, game, builder, step)
    elif phase == "over":
        commands = _final_choices(t, game, live)
    if live:
        commands += (Choice("live", t(OPEN_LIVE_BOARD), "🔴", "primary"),)
    return prompt, options, commands


def _sides(t: Translator, game: Game, projected: Score, who: Who) -> tuple[Side, Side]:
    """White and Black as the board shows them, with their points if the game ended now."""
    white, black = (
        Side(
            colour,
            game.player(colour),
            game.name(colour),
            who(game.player(colour)),
            colour_name(t, colour),
            STONE_EMOJI[colour],
            projected.totals[colour],
        )
        for colour in (WHITE, BLACK)
    )
    return white, black


def _image_view(t: Translator, game: Game, last: LastTurn | None) -> BoardView:
    """What the image and its alt text show besides the position (the names plain: alt text
    renders no markdown)."""
    return BoardView(
        white_name=plain_name(game.white_name),
        black_name=plain_name(game.black_name),
        last_turn=last.turn if last else None,
        final=not game.is_active,
        note=board_note(t, game),
        translator=t,
    )


def clocks_of(t: Translator, game: Game, now: float | None = None) -> Clocks | None:
    """A live game's clocks (``None``: correspondence); see :func:`board_of` for ``now``."""
    control = game.clock
    if control is None:
        return None
    mover = game.position.turn
    running = runs_out_at = None
    if game.is_active and game.clock_of(mover) is not None:
        if game.flag_at is not None:
            running, runs_out_at = mover, game.flag_at
        elif now is not None:
            running, runs_out_at = mover, now + (game.clock_of(mover) or 0.0)
    at = now if now is not None else game.clock_started_at
    left = tuple(
        game.time_left(colour, at) if at is not None else game.clock_of(colour)
        for colour in (WHITE, BLACK)
    )
    parts = []
    for colour, seconds in zip((WHITE, BLACK), left, strict=True):
        if seconds is None:
            continue
        part = f"{STONE_EMOJI[colour]} {colour_name(t, colour)} {clock_text(seconds)}"
        if colour == running and runs_out_at is not None:
            part += " ⏳ " + t("out of time {when}", when=f"<t:{int(runs_out_at)}:R>")
        parts.append(part)
    line = t("⏱️ Clock {pace}: {clocks}", pace=str(control), clocks=" · ".join(parts))
    return Clocks(str(control), (left[0], left[1]), running, runs_out_at, line)


def _status(t: Translator, game: Game, phase: Phase, prompt: str | None, who: Who) -> str:
    if phase == "over":
        return t("Game over. {result}", result=result_text(t, game, who))
    if phase == "ai":
        return t("🤖 {name} is thinking…", name=game.name(game.position.turn))
    return t("{player}, your turn. {prompt}", player=who(game.to_move), prompt=prompt)


def _columns(t: Translator, position: Position, projected: Score) -> tuple[Column, ...]:
    lines = scoring_lines(projected, t).split("\n")
    return tuple(
        Column(
            location_name(column.location),
            position.columns[column.location],
            position.capacities[column.location],
            column.winner,
            column.points,
            line,
        )
        for column, line in zip(projected.columns, lines, strict=True)
    )


def board_note(t: Translator, game: Game) -> str | None:
    """The image's headline for a game that ended without a full temple (names plain: it is
    drawn, and read as alt text)."""
    if game.status == "aborted":
        return t("Ended by an admin: no result")
    outcome = game.outcome
    if outcome is None or outcome.reason not in ("resignation", "timeout"):
        return None
    winner = WHITE if outcome.result == "white" else BLACK
    if outcome.reason == "resignation":
        return t(
            "{loser} resigned: {winner} wins",
            loser=plain_name(game.name(1 - winner)),
            winner=plain_name(game.name(winner)),
        )
    return t("{winner} wins on time", winner=plain_name(game.name(winner)))


def _step_choices(
    t: Translator, game: Game, builder: TurnBuilder, step: Step
) -> tuple[tuple[Choice, ...], tuple[Choice, ...]]:
    """The press's options, and the commands under them: Skip, Back, Cancel, Claim (or, against
    the AI, Hint where allowed and Resign) and How to play."""
    options, commands = press_choices(t, builder, step)
    if game.hints and not builder.path:  # a hint for the turn, before it is begun
        commands += (Choice("hint", t("Hint"), "💡", "success"),)
    if game.ai_level is not None:  # the AI never idles; no /tholos where it may be played (DMs)
        commands += (Choice("resign", t("Resign"), "🏳️"),)
    elif game.clock is None:  # a live game's clock ends it by itself: nothing to claim
        commands += (Choice("claim", t("Claim win (opponent idle)"), "⏰"),)
    return options, (*commands, Choice("rules", t("How to play"), "📖"))


def _final_choices(t: Translator, game: Game, live: bool) -> tuple[Choice, ...]:
    """A finished game's controls: Rematch (not of a game the pool paired: the players may
    share no server), Replay, Record, Review (no review of a game without turns) and, where the
    bot serves the live board (``live``), Analyse there."""
    rematch = () if game.pool else (Choice("rematch", t("Rematch"), "🔁", "primary"),)
    choices = [
        *rematch,
        Choice("replay", t("Replay"), "🎞️"),
        Choice("record", t("Record"), "📜"),
    ]
    if game.plies:
        choices.append(Choice("review", t("Review"), "🔍"))
    if live:
        choices.append(Choice("analyse", t("Analyse"), "🔬"))
    return tuple(choices)
