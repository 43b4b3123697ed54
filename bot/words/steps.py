"""The turn being composed, step by step: what the player is asked at each step, the step's
choices (a token each, as the live board offers them) or a press's on Discord's buttons (as many
steps at once as fit, :mod:`bot.words.presses`), why an option can't be chosen, and every step
of every legal turn, for a face that composes whole turns itself. Pure: no I/O."""

from __future__ import annotations

from dataclasses import dataclass

from bot.base.game import Game
from bot.words.choices import Choice
from bot.words.phrases import STONE_EMOJI, colour_name
from bot.words.presses import back_path, compound_options
from engine import COLOUR_LETTERS, COLOUR_NAMES, LOCATION_LETTERS
from engine.builder import GRAY_FROM_QUARRY, OWN_BONUS, SKIP, Step, StepKind, TurnBuilder
from engine.core import MOVER_COLOUR
from engine.vocabulary import bonus_name, location_name
from rendering.translator import Translator


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
