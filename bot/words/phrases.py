"""Phrases more than one feature says, each defined once: stone emoji, colour, mode and level
names, a turn and a result in words, durations, links to a game's board, and command mentions.
No I/O, no Discord objects (a mention is text).

Every function takes the :class:`~rendering.translator.Translator` of the language to speak."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from bot.base.game import Game
from bot.base.game_options import Level
from bot.base.paces import CORRESPONDENCE
from bot.words.names import mention, plain_name
from engine import COLOUR_NAMES, Colour, Position
from engine.ai import LEVEL_RATINGS
from engine.vocabulary import (
    N_,
    ORNAMENT_EFFECTS,
    ORNAMENT_NAMES,
    RESULT_REASONS,
    location_name,
    score_pair,
    signed,
)
from rendering.translator import Translator

STONE_EMOJI: Final = ("⚪", "⚫", "🔘")
"""Stone colours as emoji (white, black, gray): told apart by lightness, not hue."""
SANDSTONE: Final = 0xC8A464
"""The colour of the bot's embeds, and of a finished board."""
MODE_NAMES: Final = {"basic": N_("basic"), "advanced": N_("advanced")}
LEVEL_NAMES: Final[dict[Level, str]] = {
    "easy": N_("easy"),
    "medium": N_("medium"),
    "challenging": N_("challenging"),
    "hard": N_("hard"),
    "expert": N_("expert"),
    "master": N_("master"),
}
WIN_LOSS_DRAW_MARK: Final = {"win": N_("✅ W"), "loss": N_("❌ L"), "draw": N_("➖ D")}
LIVE_BOARD_OFF: Final = N_(
    "The live board isn't switched on for this bot, so there is nothing to launch. Games are "
    "played with the buttons on their boards: start one with {challenge}."
)
"""Said where this bot does not serve the live board (``{challenge}``: the command)."""
LIVE_UNAVAILABLE: Final = N_(
    "Discord didn't launch the live board here. Either Activities are off for this bot — its "
    "host turns them on in the Discord Developer Portal, under the app's **Activities → "
    "Settings** — or this channel doesn't let you **Use Activities**, which a server admin can "
    "allow. The buttons work as always."
)
"""Said where Discord refuses to launch the live board (the Activity), with how to enable it."""

Who = Callable[[int], str]
"""How a face names a player from their user id: a Discord mention, or a plain name."""


def colour_name(t: Translator, colour: Colour) -> str:
    """``White``, ``Black`` or ``Gray``."""
    return t(COLOUR_NAMES[colour]).capitalize()


def level_name(t: Translator, level: Level) -> str:
    """A level as members see it: its name and its rating on their scale, ``medium · 1500``."""
    return f"{t(LEVEL_NAMES[level])} · {LEVEL_RATINGS[level]}"


def ai_opponent(t: Translator, level: Level, rated: bool) -> str:
    """The AI as the opponent of a game in a list: ``the AI (medium · 1500, unrated)``."""
    words = N_("the AI ({level}, rated)") if rated else N_("the AI ({level}, unrated)")
    return t(words, level=level_name(t, level))


def ornaments_text(t: Translator, position: Position) -> str:
    """The ornaments of a game, one per line (or ``none``)."""
    lines = [
        f"{location_name(location)}: **{t(ORNAMENT_NAMES[ornament])}** — "
        f"{t(ORNAMENT_EFFECTS[ornament])}"
        for location, ornament in enumerate(position.ornaments)
        if ornament
    ]
    return "\n".join(lines) or t("none")


def result_text(t: Translator, game: Game, who: Who = mention) -> str:
    """The result in a sentence, e.g. ``<@1> wins 25–19 on points`` (``19–−1``: a negative
    score has a minus sign)."""
    if game.ended_by is not None:
        return t("Ended by {admin} (an admin): no result, not rated.", admin=who(game.ended_by))
    outcome = game.outcome
    assert outcome is not None
    pair = score_pair(*outcome.points)
    if outcome.result == "draw":
        return t("Draw, {points} with as many columns each.", points=pair)
    winner = game.white_id if outcome.result == "white" else game.black_id
    return t(
        "{winner} wins {points} {reason}.",
        winner=who(winner),
        points=pair,
        reason=reason_text(t, outcome.reason, game.time_control),
    )


CLOCK_RAN_OUT = N_("on time — the clock ran out")


def rating_change(before: float, after: float) -> str:
    """A rating's move as players read it, from the ratings as shown (rounded): ``1662 →
    1674 (+12)``, ``1662 → 1650 (−12)``, ``1662 → 1662 (±0)`` — never ``(-0)``.

    >>> rating_change(1662.4, 1662.1)
    '1662 → 1662 (±0)'
    >>> rating_change(1500.0, 1487.6)
    '1500 → 1488 (−12)'
    """
    shown_before, shown_after = round(before), round(after)
    change = shown_after - shown_before
    return f"{shown_before} → {shown_after} ({signed(change) if change else '±0'})"


def reason_text(t: Translator, reason: str, time_control: str | None) -> str:
    """How a game ended, in words (``on points``…); a live game (``time_control``) that
    ended on time did so because a clock ran out."""
    if reason == "timeout" and time_control is not None:
        return t(CLOCK_RAN_OUT)
    return t(RESULT_REASONS[reason])


def minutes_text(t: Translator, seconds: float) -> str:
    """A duration in minutes, e.g. ``5 minutes``."""
    minutes = seconds / 60
    return t.plural(
        "{minutes} minute",
        "{minutes} minutes",
        round(minutes) if minutes >= 1 else 2,
        minutes=f"{minutes:g}",
    )


def pace_name(t: Translator, pace: str | None) -> str:
    """A game's pace in words: correspondence (``None``), or a live clock such as ``5+5``."""
    if pace is None or pace == CORRESPONDENCE:
        return t("correspondence")
    return t("live clock {clock}", clock=pace)


def game_label(t: Translator, game: Game) -> str:
    """A game in a list of choices (≤ 100 characters, plain: a choice renders no markdown),
    e.g. ``#7 Ariadne vs Theseus · ply 12``."""
    return t(
        "#{id} {white} vs {black} · ply {ply}",
        id=game.id,
        white=plain_name(game.white_name, 40),
        black=plain_name(game.black_name, 40),
        ply=game.plies,
    )[:100]


# -- links ----------------------------------------------------------------------------------------


def channel_url(guild_id: int, channel_id: int, message_id: int | None = None) -> str:
    """A jump link to a channel, or to a message in it (a direct message, server id 0, links
    into ``@me``)."""
    url = f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}"
    return url if message_id is None else f"{url}/{message_id}"


def board_url(game: Game) -> str:
    """A jump link to the game's newest board (to its thread or channel while it has none)."""
    return channel_url(game.guild_id, game.channel_id, game.board_message_id)


# -- commands -------------------------------------------------------------------------------------

_COMMAND_IDS: dict[str, int] = {}
"""Each top-level command's id, once known (registered or fetched at start)."""


def know_commands(ids: dict[str, int]) -> None:
    """Remember the top-level commands' ids (by English name), for :func:`command`."""
    _COMMAND_IDS.update(ids)


def command(name: str, *, mention: bool = True) -> str:
    """A command mention, e.g. ``</tholos challenge:123>``: Discord shows it in each reader's
    language and makes it clickable; ``/tholos challenge`` in code style until the ids are
    known. Without ``mention`` (where Discord does not draw mentions: the live page), plainly
    ``/tholos challenge``."""
    if not mention:
        return f"/{name}"
    top = name.split()[0]
    known = _COMMAND_IDS.get(top)
    return f"</{name}:{known}>" if known is not None else f"`/{name}`"
