"""What a challenge asks a game to be played with: the mode, the ornaments, the colours, who
moves first, the AI's level, the language, the clock, hints and whether a game against the AI
is rated. No I/O."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from bot.base.languages import Language
from bot.base.paces import TimeControl
from bot.base.refusals import Refusal
from engine.core import Mode
from engine.newgame import DEFAULT_ORNAMENTS

ColourChoice = Literal["white", "black", "random"]
"""The colour a challenger asks for."""
FirstChoice = Literal["me", "opponent", "random"]
"""Who moves first, from the challenger's point of view."""
Level = Literal["easy", "medium", "challenging", "hard", "expert", "master"]
"""The AI opponent's levels, weakest first (``engine.ai.LEVELS``)."""
RATED_AI_VENUES = frozenset({"server", "bot_dm"})
"""Where a game against the AI may be rated: where the bot is (a server that added it, the DM
with it). A game between members is rated in such a server alone."""


@dataclass(frozen=True, slots=True)
class GameOptions:
    """What a challenge asks for: the mode (``None``: advanced when ornaments are asked for,
    else basic), how many ornaments (``None``: the mode's default), the challenger's colour and
    who moves first."""

    mode: Mode | None = None
    ornaments: int | None = None
    colour: ColourChoice = "random"
    first: FirstChoice = "random"
    language: Language = "en"
    """The language of the game's public messages and images (the server's)."""
    clock: TimeControl | None = None
    """A live clock; ``None``: correspondence."""
    hints: bool = False
    """The player may ask for hints (an unrated game against the AI only)."""
    rated: bool = False
    """A game against the AI counts for the member's rating (where the bot is; never with
    hints). A game between members is rated by where it is played, not by this."""

    @property
    def game_mode(self) -> Mode:
        """The mode the game is played in: asking for ornaments means the advanced mode."""
        return self.mode or ("advanced" if self.ornaments else "basic")

    def ornament_count(self) -> int:
        """How many ornaments the game gets; raises :class:`Refusal` for ornaments asked for
        together with ``mode: basic``."""
        if self.mode == "basic" and self.ornaments:
            raise Refusal(
                "Ornaments belong to the advanced mode: leave out `mode: basic` (ornaments "
                "choose the advanced mode by themselves)."
            )
        return (self.ornaments or DEFAULT_ORNAMENTS) if self.game_mode == "advanced" else 0

    def settled(self) -> GameOptions:
        """These options with the mode and the number of ornaments the game gets; raises
        :class:`Refusal` as :meth:`ornament_count` does."""
        return replace(self, mode=self.game_mode, ornaments=self.ornament_count())
