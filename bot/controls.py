"""The buttons: persistent ``DynamicItem``s rebuilt from their ``custom_id`` after a restart.

Each control's ``custom_id`` format is defined once in :mod:`bot.custom_ids`; its handler lives
in the feature that owns it, which registers it with the client's :class:`Router`. Every
button of a message is dynamic (disabled ones too), so discord.py keeps no per-message view in
memory.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import discord

from engine.builder import SKIP, Step, TurnBuilder
from engine.vocabulary import N_
from rendering.words import Words

from . import custom_ids
from .custom_ids import CustomId
from .domain import Answer
from .presenter import option_label
from .storage import Challenge, Game
from .storage.ratings import Mark

NEXT, BACK, CANCEL = "n", "b", "c"
LABEL = "label"
Interaction = discord.Interaction[Any]
C = TypeVar("C", bound="Control")


class Control(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"(?!)"):
    """A button whose ``custom_id`` (of format :attr:`format`) carries what it acts on.

    Subclasses name their format (``class X(Control, custom_id=FORMAT)``) and take its fields
    as keyword arguments of the same names, plus the button's look.
    """

    format: ClassVar[CustomId]
    look: ClassVar[dict[str, Any]] = {}
    """The button's default label, style and emoji."""

    def __init_subclass__(cls, *, custom_id: CustomId) -> None:
        super().__init_subclass__(template=custom_id.template)
        cls.format = custom_id

    def __init__(self, **values: Any) -> None:
        names = [name for name, _, _ in self.format.fields]
        fields = {name: values.pop(name) for name in names}
        button = discord.ui.Button[Any](
            custom_id=self.format.build(**fields), **(self.look | values)
        )
        super().__init__(button)

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Control:
        look: dict[str, Any] = {}
        if isinstance(item, discord.ui.Button):  # rebuilt as it arrived
            look = {"label": item.label, "style": item.style, "emoji": item.emoji,
                    "disabled": item.disabled}  # fmt: skip
        return cls(**cls.format.parse(match), **look)

    async def callback(self, interaction: Interaction) -> None:
        """Hand the press to the handler its feature registered."""
        router = getattr(interaction.client, "router", None)
        assert isinstance(router, Router), "the client has no router"
        await router.route(interaction, self)


class Router:
    """Which handler answers a press on each kind of control."""

    def __init__(self) -> None:
        self._handlers: dict[type[Control], Callable[[Interaction, Any], Awaitable[None]]] = {}

    def add(self, control: type[C], handler: Callable[[Interaction, C], Awaitable[None]]) -> None:
        """Send presses on ``control`` to ``handler(interaction, control)``."""
        self._handlers[control] = handler

    @property
    def controls(self) -> tuple[type[Control], ...]:
        """Every control a feature handles."""
        return tuple(self._handlers)

    async def route(self, interaction: Interaction, control: Control) -> None:
        """Call the handler of ``control``."""
        await self._handlers[type(control)](interaction, control)

    async def control_for(self, interaction: Interaction, custom_id: str) -> Control | None:
        """The control that handles ``custom_id``, rebuilt from it; ``None`` for unknown ids."""
        for control in self._handlers:
            match = control.format.pattern.fullmatch(custom_id)
            if match is not None:
                return await control.from_custom_id(
                    interaction, discord.ui.Button(custom_id=custom_id), match
                )
        return None


class StepButton(Control, custom_id=custom_ids.STEP):
    """One option of a turn step, or Back / Cancel."""

    def __init__(self, *, game: int, version: int, path: str, kind: str, **look: Any) -> None:
        super().__init__(game=game, version=version, path=path, kind=kind, **look)
        self.game_id, self.version, self.path = game, version, path


class ClaimButton(Control, custom_id=custom_ids.CLAIM):
    """Claim the win when the opponent has been inactive too long."""

    look: ClassVar[dict[str, Any]] = {
        "label": N_("Claim win (opponent idle)"),
        "style": discord.ButtonStyle.secondary,
        "emoji": "⏰",
    }

    def __init__(self, *, game: int, **look: Any) -> None:
        super().__init__(game=game, **look)
        self.game_id = game


_CHALLENGE_LOOK: dict[Answer, dict[str, Any]] = {
    "accept": {"label": N_("Accept"), "style": discord.ButtonStyle.success},
    "decline": {"label": N_("Decline"), "style": discord.ButtonStyle.danger},
    "withdraw": {"label": N_("Withdraw"), "style": discord.ButtonStyle.secondary},
}


class ChallengeButton(Control, custom_id=custom_ids.CHALLENGE):
    """Accept, Decline (the opponent) or Withdraw (the challenger) a challenge."""

    def __init__(self, *, challenge: int, answer: Answer, **look: Any) -> None:
        super().__init__(challenge=challenge, answer=answer, **(_CHALLENGE_LOOK[answer] | look))
        self.challenge_id, self.answer = challenge, answer


class RematchButton(Control, custom_id=custom_ids.REMATCH):
    """Challenge the other player again with colours swapped."""

    look: ClassVar[dict[str, Any]] = {
        "label": N_("Rematch"),
        "emoji": "🔁",
        "style": discord.ButtonStyle.primary,
    }

    def __init__(self, *, game: int, **look: Any) -> None:
        super().__init__(game=game, **look)
        self.game_id = game


class ResignButton(Control, custom_id=custom_ids.RESIGN):
    """Confirm a resignation (sent ephemerally by ``/tholos resign``)."""

    look: ClassVar[dict[str, Any]] = {
        "label": N_("Yes, resign"),
        "style": discord.ButtonStyle.danger,
    }

    def __init__(self, *, game: int, version: int, **look: Any) -> None:
        super().__init__(game=game, version=version, **look)
        self.game_id, self.version = game, version


def _pager_look(way: str) -> dict[str, Any]:
    """The look of Previous (``p``) or Next (``n``)."""
    previous = way == "p"
    return {
        "label": N_("Previous") if previous else N_("Next"),
        "emoji": "◀️" if previous else "▶️",
        "style": discord.ButtonStyle.secondary,
    }


class LeaderboardButton(Control, custom_id=custom_ids.LEADERBOARD):
    """Previous / Next on the leaderboard: the page to show is in the custom_id."""

    def __init__(self, *, page: int, way: str, **look: Any) -> None:
        super().__init__(page=page, way=way, **(_pager_look(way) | look))
        self.page = page


class LeaderboardSeekButton(Control, custom_id=custom_ids.LEADERBOARD_SEEK):
    """Previous / Next on the leaderboard: the page to show and the row to seek from."""

    def __init__(self, *, page: int, way: str, rating: float, user: int, **look: Any) -> None:
        super().__init__(page=page, way=way, rating=rating, user=user,
                         **(_pager_look(way) | look))  # fmt: skip
        self.page = page
        self.way = way
        self.rating = rating
        self.user = user


class GamesButton(Control, custom_id=custom_ids.GAMES):
    """Previous / Next on the list of the server's games."""

    def __init__(self, *, page: int, way: str, **look: Any) -> None:
        super().__init__(page=page, way=way, **(_pager_look(way) | look))
        self.page = page


class RulesButton(Control, custom_id=custom_ids.RULES):
    """How to play, with the game's ornaments (only the presser sees it)."""

    look: ClassVar[dict[str, Any]] = {
        "label": N_("How to play"),
        "emoji": "📖",
        "style": discord.ButtonStyle.secondary,
    }

    def __init__(self, *, game: int, **look: Any) -> None:
        super().__init__(game=game, **look)
        self.game_id = game


class GiveUpButton(Control, custom_id=custom_ids.GIVE_UP):
    """Resign a game against the AI: asks to confirm (only the presser sees it)."""

    look: ClassVar[dict[str, Any]] = {
        "label": N_("Resign"),
        "emoji": "🏳️",
        "style": discord.ButtonStyle.secondary,
    }

    def __init__(self, *, game: int, **look: Any) -> None:
        super().__init__(game=game, **look)
        self.game_id = game


# -- the views built from them -------------------------------------------------------------------


class HistoryButton(Control, custom_id=custom_ids.HISTORY):
    """Previous / Next on a member's finished games."""

    def __init__(self, *, member: int, page: int, way: str, **look: Any) -> None:
        super().__init__(member=member, page=page, way=way, **(_pager_look(way) | look))
        self.member_id, self.page = member, page


class ReplayButton(Control, custom_id=custom_ids.REPLAY):
    """The animated replay of a finished game (only the presser sees it)."""

    look: ClassVar[dict[str, Any]] = {
        "label": N_("Replay"),
        "emoji": "🎞️",
        "style": discord.ButtonStyle.secondary,
    }

    def __init__(self, *, game: int, **look: Any) -> None:
        super().__init__(game=game, **look)
        self.game_id = game


class RecordButton(Control, custom_id=custom_ids.RECORD):
    """The record file of a finished game (only the presser gets it)."""

    look: ClassVar[dict[str, Any]] = {
        "label": N_("Record"),
        "emoji": "📜",
        "style": discord.ButtonStyle.secondary,
    }

    def __init__(self, *, game: int, **look: Any) -> None:
        super().__init__(game=game, **look)
        self.game_id = game


class ReviewButton(Control, custom_id=custom_ids.REVIEW):
    """The AI's review of a finished game (asked once, shown to everyone)."""

    look: ClassVar[dict[str, Any]] = {
        "label": N_("Review"),
        "emoji": "🔍",
        "style": discord.ButtonStyle.secondary,
    }

    def __init__(self, *, game: int, **look: Any) -> None:
        super().__init__(game=game, **look)
        self.game_id = game


def _view(items: Iterable[discord.ui.Item[Any]]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


Row = list[discord.ui.Item[Any]]
"""The buttons of one action row."""


def rows_view(rows: Iterable[Row]) -> discord.ui.View:
    """``rows`` as a message's action rows, outside any layout (for a board posted before
    boards were layouts)."""
    view = discord.ui.View(timeout=None)
    for number, row in enumerate(rows):
        for item in row:
            item.row = number
            view.add_item(item)
    return view


class BoardPart(enum.IntEnum):
    """The ``id``s of a board layout's components, so that an edit can find and keep them."""

    CONTAINER = 1
    HEADER = 2
    IMAGE = 3
    STATUS = 4
    FOOTER = 5


@dataclass(frozen=True, slots=True)
class BoardLook:
    """What a board layout shows, its controls aside: the container's accent colour, the
    texts above and below the image, the image (an attachment's file name) and its alt text,
    and the small print at the bottom."""

    accent: int
    header: str
    image: str
    alt: str
    status: str
    footer: str

    @classmethod
    def of(cls, message: discord.Message) -> BoardLook | None:
        """The look of a board message as posted (``None``: not a V2 board)."""
        container = next(iter(message.components), None)
        if not isinstance(container, discord.components.Container):
            return None
        texts: dict[int | None, str] = {}
        alt = image = None
        for child in container.children:
            if isinstance(child, discord.components.TextDisplay):
                texts[child.id] = child.content
            elif isinstance(child, discord.components.MediaGalleryComponent) and child.items:
                alt = child.items[0].description or ""
                image = message.attachments[0].filename if message.attachments else None
        if image is None or alt is None:
            return None
        colour = container.accent_colour
        return cls(
            accent=colour.value if colour is not None else 0,
            header=texts.get(BoardPart.HEADER, ""),
            image=image,
            alt=alt,
            status=texts.get(BoardPart.STATUS, ""),
            footer=texts.get(BoardPart.FOOTER, ""),
        )

    def layout(
        self, rows: Iterable[Row] = (), *, status: str | None = None
    ) -> discord.ui.LayoutView:
        """The board as one container: header, image (at message width), status, the controls
        in ``rows``, the small print; ``status`` replaces the status text."""
        container = discord.ui.Container[Any](accent_colour=self.accent, id=BoardPart.CONTAINER)
        container.add_item(discord.ui.TextDisplay(self.header, id=BoardPart.HEADER))
        image = discord.MediaGalleryItem(f"attachment://{self.image}", description=self.alt)
        container.add_item(discord.ui.MediaGallery(image, id=BoardPart.IMAGE))
        container.add_item(discord.ui.TextDisplay(status or self.status, id=BoardPart.STATUS))
        for row in rows:
            container.add_item(discord.ui.ActionRow(*row))
        container.add_item(discord.ui.TextDisplay(self.footer, id=BoardPart.FOOTER))
        view = discord.ui.LayoutView(timeout=None)
        view.add_item(container)
        return view


def has_controls(message: discord.Message) -> bool:
    """Whether ``message`` has buttons or selects, at its top level or nested in a layout."""
    return any(
        isinstance(component, discord.components.Button | discord.components.SelectMenu)
        for component in walk_components(message.components)
    )


def walk_components(components: Iterable[Any]) -> Iterator[Any]:
    """Every component of a message: action rows, containers and sections, and what they hold
    (a section's accessory too)."""
    for component in components:
        yield component
        yield from walk_components(getattr(component, "children", ()))
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            yield accessory


def board_rows(t: Words, game: Game, builder: TurnBuilder, step: Step) -> list[Row]:
    """The controls of a live board at ``step``: choices 4 to a row, then Skip, Back, Cancel,
    Claim (or, against the AI, Resign) and How to play in the last row (5 buttons at most)."""
    path = "".join(builder.path)
    at = {"game": game.id, "version": game.version}
    choices: Row = []
    last_row: Row = []
    for option in step.options:
        label, emoji = option_label(t, builder, step.kind, option.token)
        skip = option.token == SKIP
        style = discord.ButtonStyle.primary if option.enabled else discord.ButtonStyle.secondary
        button = StepButton(
            **at, path=path + option.token, kind=NEXT, label=label, emoji=emoji,
            style=discord.ButtonStyle.success if skip else style, disabled=not option.enabled,
        )  # fmt: skip
        (last_row if skip else choices).append(button)
    if builder.path:
        last_row.append(StepButton(**at, path=path[:-1], kind=BACK, label=t("Back"),
                                   emoji="↩️", style=discord.ButtonStyle.secondary))  # fmt: skip
        last_row.append(StepButton(**at, path="", kind=CANCEL, label=t("Cancel"), emoji="✖️",
                                   style=discord.ButtonStyle.secondary))  # fmt: skip
    if game.ai_level is None:  # the AI never idles: nothing to claim
        last_row.append(ClaimButton(game=game.id, label=t(ClaimButton.look[LABEL])))
    else:  # no /tholos resign where the game may be played (a DM): a button asks instead
        last_row.append(GiveUpButton(game=game.id, label=t(GiveUpButton.look[LABEL])))
    last_row.append(RulesButton(game=game.id, label=t(RulesButton.look[LABEL])))
    rows = [choices[start : start + 4] for start in range(0, len(choices), 4)]
    return [*rows, last_row]


def final_rows(t: Words, game: Game) -> list[Row]:
    """The controls of a finished game's board: Rematch, Replay, Record, Review (no review of
    a game without turns)."""
    buttons: Row = [
        RematchButton(game=game.id, label=t(RematchButton.look[LABEL])),
        ReplayButton(game=game.id, label=t(ReplayButton.look[LABEL])),
        RecordButton(game=game.id, label=t(RecordButton.look[LABEL])),
    ]
    if game.plies:
        buttons.append(ReviewButton(game=game.id, label=t(ReviewButton.look[LABEL])))
    return [buttons]


def challenge_view(t: Words, challenge: Challenge) -> discord.ui.View:
    """Accept / Decline / Withdraw, disabled once the challenge is answered."""
    closed = challenge.status != "pending"
    return _view(
        ChallengeButton(
            challenge=challenge.id, answer=answer, disabled=closed, label=t(look[LABEL])
        )
        for answer, look in _CHALLENGE_LOOK.items()
    )


def resign_view(t: Words, game: Game) -> discord.ui.View:
    """The confirmation button of ``/tholos resign``."""
    label = t(ResignButton.look[LABEL])
    return _view([ResignButton(game=game.id, version=game.version, label=label)])


def leaderboard_view(t: Words, page: int, pages: int, first: Mark, last: Mark) -> discord.ui.View:
    """Previous / Next around ``page`` of the leaderboard, disabled at the ends; Previous seeks
    back from the page's ``first`` row, Next on from its ``last``."""
    return _view(
        [
            LeaderboardSeekButton(page=max(page - 1, 0), way="p", rating=first.rating,
                                  user=first.user_id, disabled=page == 0, label=t("Previous")),
            LeaderboardSeekButton(page=page + 1, way="n", rating=last.rating, user=last.user_id,
                                  disabled=page + 1 >= pages, label=t("Next")),
        ]
    )  # fmt: skip


def pager_view(
    t: Words,
    button: type[GamesButton | HistoryButton],
    page: int,
    pages: int,
    **ids: int,
) -> discord.ui.View:
    """Previous / Next buttons of kind ``button`` (with ``ids``, such as the member's) around
    ``page``, disabled at the ends."""
    return _view(
        [
            button(**ids, page=max(page - 1, 0), way="p", disabled=page == 0,
                   label=t("Previous")),
            button(**ids, page=page + 1, way="n", disabled=page + 1 >= pages, label=t("Next")),
        ]
    )  # fmt: skip
