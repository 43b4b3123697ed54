"""What a hint says: the turn in words, and one sentence why — what it gains at once and what the
search expects from there, or, in an endgame searched to its end, the result it keeps. Pure."""

from __future__ import annotations

from bot.words.phrases import colour_name
from engine import Colour, Turn
from engine.hints import Hint
from rendering.describe import turn_text
from rendering.translator import Translator


def hint_text(t: Translator, colour: Colour, hint: Hint) -> str:
    """The hint for ``colour``'s player: the turn, and why."""
    return t("💡 **Hint:** {turn}.", turn=named(t, colour, hint.turn)) + "\n" + why(t, hint)


def named(t: Translator, colour: Colour, turn: Turn) -> str:
    """``colour``'s turn in words, with its notation."""
    return f"{turn_text(turn, colour_name(t, colour), t)} (`{turn}`)"


def why(t: Translator, hint: Hint) -> str:
    """One sentence: why this turn."""
    if hint.exact:
        if hint.expected == 1:
            return t("Searched to the end of the game: with best play it wins.")
        if hint.expected == 0.5:
            return t("Searched to the end of the game: with best play it holds the draw.")
        return t(
            "Searched to the end of the game: every turn now loses against best play; "
            "this one is the best try."
        )
    chance = round(100 * hint.expected)
    if hint.gain > 0:
        return t.plural(
            "It adds {count} point to your lead at once; from there the search expects you to "
            "score about {chance} %.",
            "It adds {count} points to your lead at once; from there the search expects you to "
            "score about {chance} %.",
            hint.gain,
            chance=chance,
        )
    if hint.gain < 0:
        return t.plural(
            "It costs {count} point now, but from there the search expects you to score about "
            "{chance} %.",
            "It costs {count} points now, but from there the search expects you to score about "
            "{chance} %.",
            -hint.gain,
            chance=chance,
        )
    return t(
        "It scores nothing at once; from there the search expects you to score about {chance} %.",
        chance=chance,
    )
