"""The board's Discord face: a :class:`~bot.words.board.Board` as one Components V2 container —
header, the image (its alt text as the description), status, the controls, the small print —
and the same layout read back from a posted message, so that an edit keeps it. The board's
controls are shared, every game's board shows them: their ``custom_id`` formats are here, each
answered by the feature its docstring names."""

from __future__ import annotations

import enum
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.base.refusals import Refusal
from bot.discord.answers import USERS_ONLY
from bot.discord.controls import ROW_ID, VERSION, Button, CustomId, Row
from bot.words.board import Board
from bot.words.choices import Choice

IMAGE_NAME = "board.png"
"""The image's name where no game version is shown (a puzzle's board)."""


def image_name(game_id: int, version: int) -> str:
    """A game board's image name: the game and version it shows, so that a board posted by a
    process killed before recording it can be told from the others (and a saved image says
    which game it is).

    >>> image_name(12, 5)
    'tholos-12-5.png'
    """
    return f"tholos-{game_id}-{version}.png"


CHOICES_PER_ROW = 4
"""A step's options in rows of four; the commands (at most five) share the last row."""
ROW_LENGTH = 5
"""The most buttons a row holds (Discord's limit)."""
STEP_PATH = r"[A-Za-z0-9-]{0,8}"
"""A field holding the choices of a turn being built so far, one character each."""
STEP_KIND = "[nbc]"
"""A field holding the kind of a step: ``n`` an option, ``b`` Back, ``c`` Cancel."""

# The board's controls, which every game's board shows; each is answered by the feature named.
STEP = CustomId(
    "s",
    (
        ("game", ROW_ID, int),
        ("version", VERSION, int),
        ("path", STEP_PATH, str),
        ("kind", STEP_KIND, str),
    ),
)
"""A step of the turn being built (play)."""
CLAIM = CustomId("claim", (("game", ROW_ID, int),))
"""Claim the win from an inactive opponent (play)."""
GIVE_UP = CustomId("giveup", (("game", ROW_ID, int),))
"""Ask to resign a game (against the AI) from its board (play)."""
RULES = CustomId("rules", (("game", ROW_ID, int),))
"""How to play, with a game's ornaments (play)."""
LIVE = CustomId("live", (("game", ROW_ID, int),))
"""Open the live board (the Activity) where the game is played (play)."""
REMATCH = CustomId("rematch", (("game", ROW_ID, int),))
"""Challenge the other player again, colours swapped (challenges)."""
REPLAY = CustomId("replay", (("game", ROW_ID, int),))
"""The animated replay of a finished game (history)."""
RECORD = CustomId("record", (("game", ROW_ID, int),))
"""The record file of a finished game (history)."""
ANALYSE = CustomId("an", (("game", ROW_ID, int),))
"""Open a finished game on the live board's analysis board (history)."""
REVIEW = CustomId("review", (("game", ROW_ID, int),))
"""The AI's review of a finished game (reviews)."""
HINT = CustomId("hint", (("game", ROW_ID, int), ("version", VERSION, int)))
"""A hint for the player to move, in a game against the AI that allows them (hints)."""
FORMATS = {
    "choose": STEP,
    "back": STEP,
    "cancel": STEP,
    "claim": CLAIM,
    "resign": GIVE_UP,
    "rules": RULES,
    "rematch": REMATCH,
    "replay": REPLAY,
    "record": RECORD,
    "review": REVIEW,
    "analyse": ANALYSE,
    "live": LIVE,
    "hint": HINT,
}
"""The ``custom_id`` format of each action."""
STEP_KINDS = {"choose": "n", "back": "b", "cancel": "c"}


class BoardPart(enum.IntEnum):
    """The ``id``s of a board layout's components, so that an edit can find and keep them."""

    CONTAINER = 1
    HEADER = 2
    IMAGE = 3
    STATUS = 4
    FOOTER = 5


def header_text(board: Board) -> str:
    """The text above the image: title, players, ornaments, last turn."""
    white, black = board.sides
    lines = [
        f"### {board.title}",
        f"{white.stone} {white.colour_name}: {white.called} · "
        f"{black.stone} {black.colour_name}: {black.called}",
    ]
    if board.ornaments is not None:
        lines.append(board.ornaments)
    if board.last_turn:
        lines.append(f"**{board.headings['last_turn']}:** {board.last_turn}")
    return "\n".join(lines)


def status_text(board: Board) -> str:
    """The text below the image: whose turn and the points if it ended now, or the result and
    the scoring."""
    status = board.status
    if board.clocks is not None:
        status += "\n" + board.clocks.line
    if board.projection is not None:
        return f"{status}\n**{board.headings['projection']}:** {board.projection}"
    if board.scoring is not None:
        return f"{status}\n**{board.headings['scoring']}**\n{board.scoring}"
    return status


def button(board: Board, choice: Choice) -> Button:
    """One control of ``board`` as a button."""
    format = FORMATS[choice.action]
    fields: dict[str, object] = {"game": board.game_id}
    if format is STEP:
        fields |= {"version": board.version, "path": choice.path, "kind": STEP_KINDS[choice.action]}
    elif format is HINT:
        fields |= {"version": board.version}
    return Button.of(
        format,
        label=choice.label,
        emoji=choice.emoji,
        emphasis=choice.emphasis,
        enabled=choice.enabled,
        **fields,
    )


def rows(board: Board) -> list[Row]:
    """The controls: the press's options (see :func:`choice_rows`), then the commands in one
    row, then the live board's on its own (a row holds five)."""
    return choice_rows(board.options, board.commands, lambda choice: button(board, choice))


def choice_rows(
    options: Sequence[Choice], commands: Sequence[Choice], button: Callable[[Choice], Button]
) -> list[Row]:
    """``options`` four to a row (five, when there are more than two rows of four: a press of
    several steps offers up to 15), then ``commands`` in one row, then the live board's on its
    own, each choice made a button by ``button``."""
    buttons: Row = [button(choice) for choice in options]
    per_row = CHOICES_PER_ROW if len(buttons) <= 2 * CHOICES_PER_ROW else ROW_LENGTH
    grouped = [buttons[at : at + per_row] for at in range(0, len(buttons), per_row)]
    rest: Row = [button(c) for c in commands if c.action != "live"]
    live: Row = [button(c) for c in commands if c.action == "live"]
    return [row for row in (*grouped, rest, live) if row]


def mentions(board: Board, bot_id: int | None) -> discord.AllowedMentions:
    """Ping the players the board is for, never the bot itself."""
    users = [discord.Object(user) for user in board.pings if user != bot_id]
    return discord.AllowedMentions(everyone=False, roles=False, users=users)


def message(board: Board, png: bytes, alt: str, bot_id: int | None) -> dict[str, Any]:
    """The keyword arguments of a new board message: the layout and its image."""
    name = image_name(board.game_id, board.version)
    file = discord.File(io.BytesIO(png), filename=name, description=alt)
    look = BoardLook(
        board.accent, header_text(board), name, alt, status_text(board), "-# " + board.small_print
    )
    return {
        "view": look.layout(rows(board)),
        "file": file,
        "allowed_mentions": mentions(board, bot_id),
    }


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
        self, rows: list[Row] | tuple[()] = (), *, status: str | None = None
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


async def send_private_board(
    interaction: discord.Interaction[Any], look: BoardLook, rows: list[Row], png: bytes
) -> None:
    """Send the member alone a board-like layout (a puzzle, a lesson) with its image (the
    interaction is deferred)."""
    file = discord.File(io.BytesIO(png), filename=IMAGE_NAME, description=look.alt)
    await interaction.followup.send(
        view=look.layout(rows), file=file, ephemeral=True, allowed_mentions=USERS_ONLY
    )


async def edit_private_board(
    interaction: discord.Interaction[Any], status: str, rows: list[Row], stale: Refusal
) -> None:
    """Answer a press by showing ``status`` and ``rows`` on the pressed message's layout;
    ``stale`` where the message is not one (an old one)."""
    assert interaction.message is not None  # a press comes from a message
    look = BoardLook.of(interaction.message)
    if look is None:
        raise stale
    await interaction.response.edit_message(
        view=look.layout(rows, status=status), allowed_mentions=USERS_ONLY
    )
