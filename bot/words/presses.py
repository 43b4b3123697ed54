"""A turn on Discord's buttons in as few presses as the choices allow (:mod:`engine.presses`): the
words of a press that chooses several steps at once — short, the stones as emoji, the columns by
name — and where Back goes (the press before). Pure."""

from __future__ import annotations

from bot.words.phrases import STONE_EMOJI
from engine.builder import GRAY_FROM_QUARRY, SKIP, Path, StepKind, TurnBuilder
from engine.core import COLOUR_LETTERS, LOCATION_LETTERS
from engine.presses import choices, presses
from engine.vocabulary import bonus_name, location_name
from rendering.translator import Translator


def compound_options(t: Translator, builder: TurnBuilder) -> list[tuple[str, str]] | None:
    """The choices of the next press as (path, label), when it chooses more than one step for
    some of them; ``None`` when every choice is a single step (shown as that step's whole
    domain, the impossible disabled with why)."""
    here = builder.path
    offered = choices(builder.position, here)
    if all(len(choice) == len(here) + 1 for choice in offered):
        return None
    return [("".join(choice), press_label(t, builder, choice)) for choice in offered]


def press_label(t: Translator, builder: TurnBuilder, choice: Path) -> str:
    """The words of a press that chooses ``choice`` after ``builder``'s path: one short part a
    step (``Take ⚪ ×2``, ``Place ⚫ δ D +🔘``, ``Place ⚪ β B: C → D``)."""
    parts: list[str] = []
    at = builder
    for token in choice[len(builder.path) :]:
        step = at.step()
        assert step is not None  # a press's path is a turn's prefix
        parts.append(_part(t, at, step.kind, token))
        at = at.choose(token)
    if at.turn is None:  # more choices follow this press
        parts.append("…")
    label = " ".join(parts).replace(" :", ":").replace(" ,", ",").lstrip(":, ")
    return label[:1].upper() + label[1:]


def _part(t: Translator, builder: TurnBuilder, kind: StepKind, token: str) -> str:
    """The words of one step's choice inside a press's label."""
    if token == SKIP:
        return ", " + t("no bonus")
    if kind == "action":
        return t("Take") if token == "T" else t("Place")
    if kind == "take-count":
        return f"×{token}"
    if kind == "bonus-choice":
        if token == GRAY_FROM_QUARRY:
            return ": " + t("gray from the quarry")
        assert builder.location is not None
        return ": " + bonus_name(builder.location, t)
    if token in COLOUR_LETTERS:
        stone = STONE_EMOJI[COLOUR_LETTERS.index(token)]
        return f"+{stone}" if kind in ("draw", "steal", "extra-stone") else stone
    name = location_name(LOCATION_LETTERS.index(token))
    if kind in ("move-target", "extra-location", "quarry-target"):
        return f"→ {name}"
    if kind == "remove":
        return ": " + t("top of {location} out", location=name)
    if kind == "move-source":
        return ": " + t("move from {location}", location=name)
    return name


def back_path(builder: TurnBuilder) -> str:
    """Where Back leads from ``builder``'s path: the press before the last (a path no press
    makes — a board of an older bot — goes back one step)."""
    try:
        made = presses(builder.position, builder.path)
    except ValueError:
        return "".join(builder.path[:-1])
    return "".join(made[-2]) if len(made) > 1 else ""
