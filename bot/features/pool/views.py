"""What the pool says on Discord: the opt-in, the waiting message (the pace, how many wait, since
when; Refresh and Leave; the AI at the member's level once nobody came), and its buttons."""

from __future__ import annotations

import discord

from bot.base.paces import CORRESPONDENCE
from bot.discord.controls import Button, CustomId, view_of
from bot.features.pool.service import PoolState
from bot.features.pool.words import CONSENT
from bot.words.names import escaped_name
from bot.words.phrases import LEVEL_NAMES, command, level_name, pace_name
from rendering.translator import Translator

PACE = r"correspondence|\d{1,2}\+\d{1,2}"
"""A pace in a button's ``custom_id``."""
JOIN = CustomId("pj", (("pace", PACE, str),))
"""Join the pool (the opt-in's consent) and wait for ``pace``."""
CANCEL = CustomId("pc", ())
"""Not now: the opt-in declined."""
REFRESH = CustomId("pr", ())
"""Show the queue as it is now."""
LEAVE = CustomId("pl", ())
"""Leave the queue."""
PLAY_AI = CustomId(
    "pa", (("level", "|".join(LEVEL_NAMES), str), ("pace", PACE, str), ("rated", "[01]", int))
)
"""Leave the queue and play the AI at the member's level, rated (1) or not (0)."""


def opt_in_text(t: Translator, name: str, pace: str) -> str:
    """What the pool is and what others see, before a member joins it."""
    return t(
        CONSENT,
        pace=pace_name(t, pace),
        name=escaped_name(name),
        leave=command("tholos pool leave"),
    )


def opt_in_view(t: Translator, pace: str) -> discord.ui.View:
    """Join / Not now."""
    return view_of(
        [
            Button.of(JOIN, pace=pace, label=t("Join the pool"), emphasis="success"),
            Button.of(CANCEL, label=t("Not now")),
        ]
    )


def waiting_text(t: Translator, state: PoolState, in_dm: bool) -> str:
    """The waiting message: the pace, how many wait for it, since when; the AI offered once
    nobody came (``in_dm``: the game will be in the member's DM with the bot)."""
    if state.pace is None or state.since is None:
        return t(
            "You're not waiting in the pool now. {play} puts you back in; {games} lists your "
            "games.",
            play=command("tholos play"),
            games=command("tholos games"),
        )
    lines = [
        t(
            "⏳ Looking for an opponent at {pace}, since {since}.",
            pace=pace_name(t, state.pace),
            since=f"<t:{int(state.since)}:R>",
        ),
        t.plural(
            "{count} member waits for this pace (you included).",
            "{count} members wait for this pace (you included).",
            state.waiting,
        ),
    ]
    if in_dm:
        lines.append(t("Your game will be in our direct messages."))
    if state.ai_offer is not None:
        lines.append(
            t(
                "Nobody else is waiting right now. Play me, the AI, at your level meanwhile: "
                "{level}.",
                level=level_name(t, state.ai_offer.level),
            )
        )
    return "\n".join(lines)


def waiting_view(t: Translator, state: PoolState, rated_ai: bool) -> discord.ui.View:
    """Refresh and Leave while waiting, and Play the AI once it is offered — rated too where
    it may be (``rated_ai``: where the bot is) — (none once not waiting)."""
    if state.pace is None:
        return view_of([])
    buttons = [
        Button.of(REFRESH, label=t("Refresh"), emoji="🔄"),
        Button.of(LEAVE, label=t("Leave"), emphasis="danger"),
    ]
    offer = state.ai_offer
    if offer is not None:
        level = level_name(t, offer.level)
        offered = [(1, t("Play the AI, rated: {level}", level=level))] if rated_ai else []
        offered.append((0, t("Play the AI, unrated: {level}", level=level)))
        buttons += [
            Button.of(PLAY_AI, level=offer.level, pace=state.pace, rated=rated, label=label)
            for rated, label in offered
        ]
    return view_of(buttons)


def paired_text(t: Translator, game_id: int, opponent: str, channel: int | None) -> str:
    """Said once the member is paired: against whom, and where their game is."""
    where = f"<#{channel}>" if channel else t("our direct messages")
    return t(
        "🎯 Paired with **{opponent}**! Your game #{id} is in {where}.",
        opponent=escaped_name(opponent),
        id=game_id,
        where=where,
    )


def left_text(t: Translator) -> str:
    """Said once the member left the queue."""
    return t("You left the pool's queue. {play} puts you back in.", play=command("tholos play"))


def pace_of(clock: object | None) -> str:
    """A chosen clock as the pool's pace (``None``: correspondence)."""
    return CORRESPONDENCE if clock is None else str(clock)
