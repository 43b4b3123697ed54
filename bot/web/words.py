"""The live page's own words (the board's come with its frames): one place for each, in the
bot's catalogues, sent to the page in the member's language."""

from __future__ import annotations

from typing import Final

from engine.vocabulary import N_
from rendering.words import Words

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
    "puzzle": N_("Solve a puzzle"),
    "next_puzzle": N_("Next puzzle"),
    "reveal": N_("Show the answer"),
}
"""The page's labels and notices, by key."""
PLAY_THE_AI: Final = N_("Play the AI ({level})")

ERRORS: Final = {
    "malformed": N_("That message could not be read, so nothing was changed."),
    "too_big": N_("That message is too long, so nothing was changed."),
    "spectator": N_("Only the players of this game can move."),
    "slow_down": N_("Too many messages at once — slow down a little."),
    "session": N_("This live board's session is not valid any more: open it again from Discord."),
    "incomplete": N_("That turn is not complete yet."),
    "no_game": N_("There is no game to play here."),
}
"""What the page is told when the server refuses a message, by code (a refusal of the game's
rules, such as an old version or another player's turn, comes in the bot's usual words)."""


def page_words(t: Words) -> dict[str, str]:
    """The page's words in the words ``t``."""
    return {key: t(text) for key, text in PAGE.items()}

SESSION_ERRORS: Final = {
    "bad_request": N_("The live board could not start: open it again from Discord."),
    "not_vouched": N_("Discord did not confirm who you are: open the live board again from "
                      "Discord."),
    "not_in_activity": N_("You are not in this Activity: join it from Discord first."),
}
"""Why a page was given no session, by code."""
