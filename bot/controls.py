"""The buttons: ``DynamicItem``s routed by ``custom_id``, so they work across restarts.

Every ``custom_id`` starts with ``tholos:`` and carries ids, never game state:

Ids are at most 18 digits (SQLite row ids; more would not fit in 64 bits).

- ``tholos:s:<game>:<version>:<path>:<n|b|c>`` a step of the turn being built (the path is the
  choices so far, one character each; ``b``/``c`` tell Back and Cancel apart from options);
- ``tholos:claim:<game>`` claim the win from an inactive opponent;
- ``tholos:ch:<challenge>:<accept|decline|withdraw>`` answer a challenge;
- ``tholos:rematch:<game>`` challenge the other player again, colours swapped;
- ``tholos:resign:<game>:<version>`` confirm a resignation;
- ``tholos:lb:<page>:<p|n>`` show that page of the server's leaderboard (Previous / Next).

Every button of a message is dynamic (disabled ones too), so discord.py keeps no per-message
view in memory. Callbacks hand over to :class:`bot.flows.Flows`, which answers every
interaction, errors included.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord

from engine.builder import SKIP, Step, TurnBuilder

from .presenter import option_label
from .service import Answer
from .storage import Challenge, Game

if TYPE_CHECKING:
    from .client import TholosBot
    from .flows import Flows

PREFIX = "tholos:"
NEXT, BACK, CANCEL = "n", "b", "c"


def flows_of(interaction: discord.Interaction[Any]) -> Flows:
    """The bot's flows, which answer every interaction."""
    bot: TholosBot = interaction.client  # type: ignore[assignment]
    return bot.flows


def _copy(item: discord.ui.Button[Any]) -> dict[str, Any]:
    """The look of a button as it arrived, to rebuild it."""
    return {
        "label": item.label,
        "style": item.style,
        "emoji": item.emoji,
        "disabled": item.disabled,
    }


class StepButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tholos:s:(?P<game>\d{1,18}):(?P<version>\d{1,9}):(?P<path>[A-Za-z0-9-]{0,8}):(?P<kind>[nbc])",
):
    """One option of a turn step, or Back / Cancel."""

    def __init__(self, game_id: int, version: int, path: str, kind: str, **look: Any) -> None:
        super().__init__(
            discord.ui.Button(custom_id=f"tholos:s:{game_id}:{version}:{path}:{kind}", **look)
        )
        self.game_id, self.version, self.path = game_id, version, path

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> StepButton:
        return cls(
            int(match["game"]),
            int(match["version"]),
            match["path"],
            match["kind"],
            **_copy(item),  # type: ignore[arg-type]
        )

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows_of(interaction).step(interaction, self.game_id, self.version, self.path)


class ClaimButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"tholos:claim:(?P<game>\d{1,18})"
):
    """Claim the win when the opponent has been inactive too long."""

    def __init__(self, game_id: int, **look: Any) -> None:
        look = {
            "label": "Claim win (opponent idle)",
            "style": discord.ButtonStyle.secondary,
            "emoji": "⏰",
        } | look
        super().__init__(discord.ui.Button(custom_id=f"tholos:claim:{game_id}", **look))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ClaimButton:
        return cls(int(match["game"]), **_copy(item))  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows_of(interaction).claim(interaction, self.game_id)


_CHALLENGE_LOOK: dict[str, dict[str, Any]] = {
    "accept": {"label": "Accept", "style": discord.ButtonStyle.success},
    "decline": {"label": "Decline", "style": discord.ButtonStyle.danger},
    "withdraw": {"label": "Withdraw", "style": discord.ButtonStyle.secondary},
}


class ChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tholos:ch:(?P<challenge>\d{1,18}):(?P<answer>accept|decline|withdraw)",
):
    """Accept, Decline (the opponent) or Withdraw (the challenger) a challenge."""

    def __init__(self, challenge_id: int, answer: Answer, *, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                custom_id=f"tholos:ch:{challenge_id}:{answer}",
                disabled=disabled,
                **_CHALLENGE_LOOK[answer],
            )
        )
        self.challenge_id, self.answer = challenge_id, answer

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ChallengeButton:
        return cls(int(match["challenge"]), match["answer"], disabled=bool(item.disabled))  # type: ignore[arg-type,attr-defined]

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows_of(interaction).answer_challenge(interaction, self.challenge_id, self.answer)


class RematchButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"tholos:rematch:(?P<game>\d{1,18})"
):
    """Challenge the other player again with colours swapped."""

    def __init__(self, game_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                custom_id=f"tholos:rematch:{game_id}",
                label="Rematch",
                emoji="🔁",
                style=discord.ButtonStyle.primary,
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RematchButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows_of(interaction).rematch(interaction, self.game_id)


class ResignButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tholos:resign:(?P<game>\d{1,18}):(?P<version>\d{1,9})",
):
    """Confirm a resignation (sent ephemerally by ``/tholos resign``)."""

    def __init__(self, game_id: int, version: int) -> None:
        super().__init__(
            discord.ui.Button(
                custom_id=f"tholos:resign:{game_id}:{version}",
                label="Yes, resign",
                style=discord.ButtonStyle.danger,
            )
        )
        self.game_id, self.version = game_id, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ResignButton:
        return cls(int(match["game"]), int(match["version"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows_of(interaction).resign(interaction, self.game_id, self.version)


class LeaderboardButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tholos:lb:(?P<page>\d{1,6}):(?P<way>[pn])",
):
    """Previous / Next on the leaderboard: the page to show is in the custom_id."""

    def __init__(self, page: int, way: str, *, disabled: bool = False) -> None:
        label = "Previous" if way == "p" else "Next"
        super().__init__(
            discord.ui.Button(
                custom_id=f"tholos:lb:{page}:{way}",
                label=label,
                disabled=disabled,
                style=discord.ButtonStyle.secondary,
                emoji="◀️" if way == "p" else "▶️",
            )
        )
        self.page = page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LeaderboardButton:
        return cls(int(match["page"]), match["way"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows_of(interaction).leaderboard(interaction, self.page, edit=True)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    StepButton,
    ClaimButton,
    ChallengeButton,
    RematchButton,
    ResignButton,
    LeaderboardButton,
)


async def control_for(
    interaction: discord.Interaction[Any], custom_id: str
) -> discord.ui.DynamicItem[Any] | None:
    """The control that handles ``custom_id``, rebuilt from it; ``None`` for unknown ids."""
    for control in DYNAMIC_ITEMS:
        match = control.__discord_ui_compiled_template__.fullmatch(custom_id)
        if match is not None:
            return await control.from_custom_id(
                interaction, discord.ui.Button(custom_id=custom_id), match
            )
    return None


def _view(items: list[discord.ui.Item[Any]]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


def board_view(game: Game, builder: TurnBuilder, step: Step) -> discord.ui.View:
    """The controls of a live board at ``step``: choices 4 to a row, then Skip, Back, Cancel
    and Claim in the last row (at most 4 rows, 5 buttons each)."""
    path = "".join(builder.path)
    choices: list[discord.ui.Item[Any]] = []
    last_row: list[discord.ui.Item[Any]] = []
    for option in step.options:
        label, emoji = option_label(builder, step.kind, option.token)
        skip = option.token == SKIP
        style = discord.ButtonStyle.primary if option.enabled else discord.ButtonStyle.secondary
        button = StepButton(
            game.id, game.version, path + option.token, NEXT, label=label, emoji=emoji,
            style=discord.ButtonStyle.success if skip else style, disabled=not option.enabled,
        )  # fmt: skip
        (last_row if skip else choices).append(button)
    if builder.path:
        last_row.append(StepButton(game.id, game.version, path[:-1], BACK, label="Back",
                                   emoji="↩️", style=discord.ButtonStyle.secondary))  # fmt: skip
        last_row.append(StepButton(game.id, game.version, "", CANCEL, label="Cancel",
                                   emoji="✖️", style=discord.ButtonStyle.secondary))  # fmt: skip
    if game.ai_level is None:  # the AI never idles: nothing to claim
        last_row.append(ClaimButton(game.id))
    for number, item in enumerate(choices):
        item.row = number // 4
    for item in last_row:
        item.row = (len(choices) + 3) // 4
    return _view(choices + last_row)


def final_view(game: Game) -> discord.ui.View:
    """The controls of a finished game's board."""
    return _view([RematchButton(game.id)])


def challenge_view(challenge: Challenge) -> discord.ui.View:
    """Accept / Decline / Withdraw, disabled once the challenge is answered."""
    closed = challenge.status != "pending"
    return _view(
        [ChallengeButton(challenge.id, answer, disabled=closed) for answer in _CHALLENGE_LOOK]  # type: ignore[arg-type]
    )


def resign_view(game: Game) -> discord.ui.View:
    """The confirmation button of ``/tholos resign``."""
    return _view([ResignButton(game.id, game.version)])


def leaderboard_view(page: int, pages: int) -> discord.ui.View:
    """Previous / Next, disabled at the ends."""
    return _view(
        [
            LeaderboardButton(max(page - 1, 0), "p", disabled=page == 0),
            LeaderboardButton(page + 1, "n", disabled=page + 1 >= pages),
        ]
    )
