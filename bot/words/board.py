"""The board as one value: everything any face of a game's board shows — the Discord layout,
the image and its alt text, the live web board — made by one pure function from the game, its
last turn, the turn being composed and the reader's words. The faces only translate it.

No I/O and no Discord objects: a player is named by the face's own :data:`~bot.words.phrases.Who`
(a mention on Discord, a plain name on the web).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from bot.base.paces import clock_text
from bot.storage.games import Game
from bot.words.names import mention, plain_name
from bot.words.phrases import (
    MODE_NAMES,
    SANDSTONE,
    STONE_EMOJI,
    Who,
    colour_name,
    ornaments_text,
    result_text,
)
from bot.words.presses import back_path, compound_options
from engine import (
    BLACK,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    LOCATION_LETTERS,
    WHITE,
    Colour,
    Position,
    Turn,
)
from engine.builder import GRAY_FROM_QUARRY, OWN_BONUS, SKIP, Step, StepKind, TurnBuilder
from engine.core import MOVER_COLOUR
from engine.scoring import Score, score
from engine.vocabulary import N_, bonus_name, location_name, points
from rendering.describe import scoring_lines, turn_text
from rendering.translator import Translator
from rendering.view import BoardView

ACCENT: Final = {WHITE: 0xECE6D6, BLACK: 0x2E2B28}
"""The accent of a game being played: the colour of the player to move (marble, basalt)."""
LAST_TURN, SCORING, IF_IT_ENDED_NOW = N_("Last turn"), N_("Scoring"), N_("If it ended now")
"""The board's headings."""

Action = Literal[
    "choose",
    "back",
    "cancel",
    "claim",
    "resign",
    "rules",
    "rematch",
    "replay",
    "record",
    "review",
    "analyse",
    "live",
    "reveal",
    "lessons",
    "hint",
]
"""What a control does: make a choice of the turn (or go back, or start over); claim the win
from an idle opponent; resign (against the AI, where no command may be at hand); read the
rules; after the game, challenge again, replay, get the record, ask the AI's review, analyse
it on the live board; open the live board (the Activity); show a puzzle's answer; list the
course's lessons; ask for a hint."""
OPEN_LIVE_BOARD = N_("Open the live board")
Emphasis = Literal["primary", "secondary", "success", "danger"]
"""How strongly a control stands out (Discord's button styles)."""
Phase = Literal["turn", "ai", "over"]
"""A human is to move, the AI is thinking, or the game is over."""


@dataclass(frozen=True, slots=True)
class LastTurn:
    """A turn to show on a board, and who played it."""

    turn: Turn
    player_id: int


@dataclass(frozen=True, slots=True)
class Choice:
    """One control of the board, abstractly: what it does, its words, whether it can be used
    now and, if not, why."""

    action: Action
    label: str
    emoji: str | None = None
    emphasis: Emphasis = "secondary"
    enabled: bool = True
    why_not: str | None = None
    path: str = ""
    """``choose``/``back``/``cancel``: the turn's path the control leads to (its choices so
    far, one token each)."""


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
    who: Who = mention,
    live: bool = False,
    now: float | None = None,
) -> Board:
    """The board of ``game`` in the words ``t``: ``last`` is the newest turn and who played it,
    ``builder`` the turn being composed (``None``: none chosen yet), ``bot_id`` the bot's user
    id (the AI's), ``who`` how to name a player; ``live``: the bot serves the live board, so a
    control opens it; ``now``: the board is about to be posted, which starts the mover's clock
    of a live game (else a clock runs only once its start is stored)."""
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
        words=t,
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


# -- the turn being composed ----------------------------------------------------------------------


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


def press_choices(
    t: Translator, builder: TurnBuilder, step: Step
) -> tuple[tuple[Choice, ...], tuple[Choice, ...]]:
    """The choices of one press of a turn being composed on Discord's buttons (a game's, a
    puzzle's answer, a lesson's task): as many steps at once as fit (:mod:`bot.words.presses`),
    else the step's whole domain; then Back (to the press before) and Cancel."""
    compound = compound_options(t, builder)
    if compound is None:
        options, commands = step_choices(t, builder, step)
    else:
        options = tuple(
            Choice("choose", label, None, "primary", path=path) for path, label in compound
        )
        commands = ()
    if not builder.path:
        return options, commands
    kept = tuple(choice for choice in commands if choice.action == "choose")  # Skip
    back = Choice("back", t("Back"), "↩️", path=back_path(builder))
    return options, (*kept, back, Choice("cancel", t("Cancel"), "✖️"))


def step_choices(
    t: Translator, builder: TurnBuilder, step: Step
) -> tuple[tuple[Choice, ...], tuple[Choice, ...]]:
    """The choices of one step of a turn being composed, a token each (the live board's): its
    options, and Skip, Back and Cancel."""
    path = "".join(builder.path)
    options: list[Choice] = []
    commands: list[Choice] = []
    for option in step.options:
        label, emoji = option_label(t, builder, step.kind, option.token)
        if option.token == SKIP:
            commands.append(Choice("choose", label, emoji, "success", path=path + SKIP))
            continue
        options.append(
            Choice(
                "choose",
                label,
                emoji,
                "primary" if option.enabled else "secondary",
                enabled=option.enabled,
                why_not=None if option.enabled else why_not(t, builder, step.kind, option.token),
                path=path + option.token,
            )
        )
    if builder.path:
        commands.append(Choice("back", t("Back"), "↩️", path=path[:-1]))
        commands.append(Choice("cancel", t("Cancel"), "✖️"))
    return tuple(options), tuple(commands)


@dataclass(frozen=True, slots=True)
class TurnStep:
    """One step of a turn, for a face that composes whole turns itself (the live board)."""

    path: str
    """The choices before this step, one token each."""
    kind: StepKind
    prompt: str
    options: tuple[Choice, ...]
    """The step's whole domain (the impossible options disabled, with why), then Skip where
    the bonus may be skipped. An option whose ``path`` is not a step's completes a turn."""


def turn_steps(game: Game, t: Translator) -> tuple[TurnStep, ...]:
    """Every step of every legal turn from the game's position, first step first."""
    found: list[TurnStep] = []
    waiting = [TurnBuilder(game.position)]
    while waiting:
        builder = waiting.pop(0)
        step = builder.step()
        if step is None:
            continue
        options, commands = step_choices(t, builder, step)
        skip = tuple(choice for choice in commands if choice.action == "choose")
        found.append(
            TurnStep(
                "".join(builder.path), step.kind, step_prompt(t, builder, step), options + skip
            )
        )
        waiting += [builder.choose(token) for token in step.enabled_tokens()]
    return tuple(found)


def _final_choices(t: Translator, game: Game, live: bool) -> tuple[Choice, ...]:
    """A finished game's controls: Rematch, Replay, Record, Review (no review of a game
    without turns) and, where the bot serves the live board (``live``), Analyse there."""
    choices = [
        Choice("rematch", t("Rematch"), "🔁", "primary"),
        Choice("replay", t("Replay"), "🎞️"),
        Choice("record", t("Record"), "📜"),
    ]
    if game.plies:
        choices.append(Choice("review", t("Review"), "🔍"))
    if live:
        choices.append(Choice("analyse", t("Analyse"), "🔬"))
    return tuple(choices)


def step_prompt(t: Translator, builder: TurnBuilder, step: Step) -> str:
    """What the player is asked at this step."""
    kind = step.kind
    if kind == "action":
        return t("Take stones from the quarry, or place a stone from your workshop?")
    if kind == "take-colour":
        return t("Take which colour? (your colour up to 3, gray up to 2, your rival's 1)")
    if kind == "stone":
        return t("Place which stone from your workshop?")
    colour = builder.colour
    assert colour is not None  # chosen before every later step
    if kind == "take-count":
        return t("How many stones of {colour}?", colour=t(COLOUR_NAMES[colour]))
    if kind == "location":
        return t("Where does the stone of {colour} go?", colour=t(COLOUR_NAMES[colour]))
    location = builder.location
    assert location is not None  # every later step is a bonus of this location
    here = location_name(location)
    if kind == "bonus-choice":
        return t(
            "Bonus of {location}: its own bonus, or a gray stone from the quarry — or skip?",
            location=here,
        )
    if kind == "remove":
        return t(
            "Bonus of {location}: send the top stone of which column to the quarry?", location=here
        )
    if kind == "draw":
        return t("Bonus of {location}: draw which colour from the quarry?", location=here)
    if kind == "steal":
        rival = colour_name(t, 1 - builder.position.turn)
        return t(
            "Bonus of {location}: take which stone from {rival}'s workshop?",
            location=here,
            rival=rival,
        )
    if kind == "extra-stone":
        return t("Bonus of {location}: place which other stone from your workshop?", location=here)
    if kind == "extra-location" and builder.extra_colour is not None:
        return t(
            "Where does the extra stone of {colour} go?",
            colour=t(COLOUR_NAMES[builder.extra_colour]),
        )
    if kind == "move-source":
        return t(
            "Bonus of {location}: move a top stone of {colour} — from which column?",
            location=here,
            colour=t(COLOUR_NAMES[MOVER_COLOUR[location]]),
        )
    if kind == "move-target" and builder.source is not None:
        return t(
            "Move the top of {location} onto which column?", location=location_name(builder.source)
        )
    return t("Put the gray quarry stone on which column?")


def option_label(
    t: Translator, builder: TurnBuilder, kind: str, token: str
) -> tuple[str, str | None]:
    """A control's label and emoji for choosing ``token`` at a step of ``kind``."""
    position = builder.position
    if token == SKIP:
        return t("Skip the bonus"), None
    if kind == "action":
        return (t("Take stones"), "⛏️") if token == "T" else (t("Place a stone"), "🏛️")
    if kind == "bonus-choice":
        if token == OWN_BONUS and builder.location is not None:
            return f"{location_name(builder.location)}: {bonus_name(builder.location, t)}", None
        assert token == GRAY_FROM_QUARRY
        return t("Gray stone from quarry"), STONE_EMOJI[2]
    if kind == "take-count":
        return token, None
    if token in COLOUR_LETTERS:
        colour = COLOUR_LETTERS.index(token)
        return colour_name(t, colour), STONE_EMOJI[colour]
    location = LOCATION_LETTERS.index(token)
    if kind == "location":
        return f"{location_name(location)} · {bonus_name(location, t)}", None
    column = position.columns[location]
    if kind in ("remove", "move-source") and column:
        top = t(COLOUR_NAMES[COLOUR_LETTERS.index(column[-1])])
        return t("{location} · top {colour}", location=location_name(location), colour=top), None
    height = f"{len(column)}/{position.capacities[location]}"
    return f"{location_name(location)} · {height}", None


def why_not(t: Translator, builder: TurnBuilder, kind: str, token: str) -> str:
    """Why the option ``token`` can't be chosen at this step (a short reason)."""
    position = builder.position
    if token in LOCATION_LETTERS:
        location = LOCATION_LETTERS.index(token)
        if len(position.columns[location]) >= position.capacities[location]:
            return t("That column is full.")
        if kind in ("remove", "move-source"):
            return t("That column has no stone to take from it.")
    if kind in ("take-colour", "draw", "take-count"):
        return t("The quarry or your workshop doesn't allow it.")
    if kind in ("stone", "extra-stone"):
        return t("You have no such stone in your workshop.")
    if kind == "steal":
        return t("Your rival has no such stone.")
    return t("The rules don't allow it here.")
