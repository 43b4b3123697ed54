"""The live page's own words (the board's come with its frames): one place for each, in the
bot's catalogues, sent to the page in the member's language."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from engine.vocabulary import N_
from rendering.translator import Translator

AI_ELSEWHERE: Final = N_(
    "On this page, a game against the AI starts only in a server that added Tholos. Here, "
    "start one from the chat with the AI command: it is played there."
)
"""Why a lobby where the bot is not (a DM, a group DM, a server without it) offers no AI."""

PAGE: Final = {
    "confirm": N_("Play this turn"),
    "back": N_("Back"),
    "start_over": N_("Start over"),
    "ready": N_("Your turn is ready: play it, or go back."),
    "watching": N_("You are watching: only the players move."),
    "reconnecting": N_("Connection lost — reconnecting…"),
    "no_game": N_("No game is being played here."),
    "your_games": N_("Your games"),
    "no_games": N_("You have no game going on."),
    "workshop": N_("WORKSHOP"),
    "quarry": N_("QUARRY"),
    "ended": N_("This live board has ended: open it again from Discord."),
    "games_here": N_("Games in this channel's threads"),
    "watch": N_("Watch"),
    "your_game": N_("Your game"),
    "all_games": N_("All games here"),
    "leave": N_("Back to the games"),
    "invite": N_("Invite a friend"),
    "invite_message": N_("Come and play Tholos with me!"),
    "participants": N_("Here: {names}"),
    "presence_playing": N_("Turn {turn} against {name}"),
    "presence_watching": N_("Watching {white} vs {black}"),
    "ai_elsewhere": AI_ELSEWHERE,
    "seats": N_("Empty seats here"),
    "play_the_ai": N_("Play the AI, at the level you choose:"),
}
"""The page's own labels and notices, by key (each feature's part adds its own:
:attr:`bot.web.pages.PagePart.words`)."""

ERRORS: Final = {
    "malformed": N_("That message could not be read, so nothing was changed."),
    "too_big": N_("That message is too long, so nothing was changed."),
    "spectator": N_("Only the players of this game can move."),
    "slow_down": N_("Too many messages at once — slow down a little."),
    "session": N_("This live board's session is not valid any more: open it again from Discord."),
    "incomplete": N_("That turn is not complete yet."),
    "no_game": N_("There is no game to play here."),
    "not_here": N_("That game is not played in this channel or its threads."),
    "too_many_pages": N_(
        "This live board is open too many times at once: close the others, then open it again "
        "from Discord."
    ),
    "full": N_("The live board is full right now: it tries again by itself in a moment."),
    "ai_elsewhere": AI_ELSEWHERE,
}
"""What the page is told when the server refuses a message, by code (a refusal of the game's
rules, such as an old version or another player's turn, comes in the bot's usual words)."""


def page_words(t: Translator, added: Mapping[str, str]) -> dict[str, str]:
    """The page's words, and those the features' parts ``added``, in ``t``'s language."""
    return {key: t(text) for key, text in {**PAGE, **added}.items()}


SESSION_ERRORS: Final = {
    "bad_request": N_("The live board could not start: open it again from Discord."),
    "not_vouched": N_(
        "Discord did not confirm who you are: open the live board again from Discord."
    ),
    "not_in_activity": N_("You are not in this Activity: join it from Discord first."),
    "busy": N_(
        "Too many live boards are starting at once: open it again from Discord in a minute."
    ),
}
"""Why a page was given no session, by code."""

STARTING: Final = {
    "not_ready": N_("Discord did not start the live board in time: close it and open it again."),
    "offline": N_("The live board's server did not answer: close it and open it again."),
    "retrying": N_("Many live boards are starting at once — trying again in {seconds} s…"),
    "failed": SESSION_ERRORS["bad_request"],
}
"""What the page may have to say before it has a session, in the browser's language (sent with
``/api/config``; English in the page itself if even that fails)."""


def starting_words(t: Translator) -> dict[str, str]:
    """The page's start-up words in ``t``'s language."""
    return {key: t(text) for key, text in STARTING.items()}
