"""Buttons: one kind of button for every ``tholos:`` control, the format of a control's
``custom_id``, and the router that hands a press to the handler its feature registered for the
format.

Each control's format is defined once, next to its handler, in the feature that owns it (the
board's controls, which every game shows, with the board's layout in :mod:`bot.discord.layout`).
A ``custom_id`` starts with ``tholos:`` and carries ids, never game state. It is input: each
field is bounded by its pattern (ids at most 18 digits: SQLite row ids, 64 bits).

>>> CLAIM = CustomId("claim", (("game", ROW_ID, int),))
>>> CLAIM.build(game=12)
'tholos:claim:12'
>>> CLAIM.parse(CLAIM.pattern.fullmatch("tholos:claim:12"))
{'game': 12}

discord.py keeps nothing of these buttons (they are not dispatchable: no view per message in
memory, none rebuilt from the message at a press); the client routes each press from its
``custom_id`` alone (``Client.on_interaction``), so a press after a restart, or on an old
message, is routed the same way.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import discord

PREFIX = "tholos:"
ROW_ID = r"\d{1,18}"
"""A field holding a row's id (a game's, a challenge's …)."""
VERSION = r"\d{1,9}"
"""A field holding a game's version."""
SNOWFLAKE = r"\d{1,20}"
"""A field holding a Discord id (a member's): up to 20 digits."""
FLOAT = r"-?\d{1,17}(?:\.\d{1,17})?(?:e[+-]\d{1,3})?"
"""A field holding a finite float as ``repr`` writes it (``1500.0``, ``1e-05``): it parses back
exactly."""
PAGE = r"\d{1,6}"
"""A field holding a page's number (Previous / Next)."""
WAY = "[pn]"
"""A field holding the way of a Previous (``p``) / Next (``n``) button."""


@dataclass(frozen=True)
class CustomId:
    """The format of one control's ``custom_id``: ``tholos:<kind>:<field>:<field>…``."""

    kind: str
    fields: tuple[tuple[str, str, Callable[[str], Any]], ...]
    """Each field's name, pattern and type (``int`` or ``str``)."""
    pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = "".join(f":(?P<{name}>{pattern})" for name, pattern, _ in self.fields)
        object.__setattr__(self, "pattern", re.compile(f"{PREFIX}{self.kind}{parts}"))

    @property
    def template(self) -> str:
        """The regular expression discord.py matches incoming ids with."""
        return self.pattern.pattern

    def build(self, **values: object) -> str:
        """The ``custom_id`` for ``values``; raises ``ValueError`` if one breaks its pattern."""
        text = PREFIX + self.kind + "".join(f":{values[name]}" for name, _, _ in self.fields)
        if self.pattern.fullmatch(text) is None:
            raise ValueError(f"not a valid {self.kind!r} custom_id: {text!r}")
        return text

    def parse(self, match: re.Match[str] | None) -> dict[str, Any]:
        """The typed fields of a matched ``custom_id``; raises ``ValueError`` on no match."""
        if match is None:
            raise ValueError(f"not a {self.kind!r} custom_id")
        return {name: kind(match[name]) for name, _, kind in self.fields}


Interaction = discord.Interaction[Any]
Handler = Callable[..., Awaitable[None]]
"""``handler(interaction, **fields)``: the fields parsed from the pressed ``custom_id``."""
STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}
"""The emphasis of a control as Discord's button style."""


class Button(discord.ui.Button[Any]):
    """A control: a button whose ``custom_id`` carries what it acts on."""

    def is_dispatchable(self) -> bool:
        """Never kept by discord.py's view store: the client routes its presses."""
        return False

    @classmethod
    def of(
        cls,
        format: CustomId,
        *,
        label: str,
        emoji: str | None = None,
        emphasis: str = "secondary",
        enabled: bool = True,
        **fields: object,
    ) -> Button:
        """The button of ``format`` for ``fields``, with its look."""
        return cls(
            custom_id=format.build(**fields),
            label=label,
            emoji=emoji,
            style=STYLES[emphasis],
            disabled=not enabled,
        )


class Router:
    """Which handler answers a press on each ``custom_id`` format."""

    def __init__(self) -> None:
        self._handlers: dict[CustomId, Handler] = {}

    def add(self, format: CustomId, handler: Handler) -> None:
        """Send presses on controls of ``format`` to ``handler(interaction, **fields)``."""
        self._handlers[format] = handler

    def knows(self, custom_id: str) -> bool:
        """Whether a feature handles ``custom_id``."""
        return self._match(custom_id) is not None

    async def route(self, interaction: Interaction, custom_id: str) -> None:
        """Call the handler of ``custom_id`` with its fields (an unknown id is ignored: the
        client answers those)."""
        found = self._match(custom_id)
        if found is not None:
            format, match = found
            await self._handlers[format](interaction, **format.parse(match))

    def _match(self, custom_id: str) -> tuple[CustomId, re.Match[str]] | None:
        for format in self._handlers:
            match = format.pattern.fullmatch(custom_id)
            if match is not None:
                return format, match
        return None


Row = list[discord.ui.Item[Any]]
"""The buttons of one action row."""


def view_of(buttons: Iterable[discord.ui.Item[Any]]) -> discord.ui.View:
    """``buttons`` in one row of a message (outside any layout)."""
    view = discord.ui.View(timeout=None)
    for item in buttons:
        view.add_item(item)
    return view


def rows_view(rows: Iterable[Row]) -> discord.ui.View:
    """``rows`` as a message's action rows, outside any layout (for a board posted before
    boards were layouts)."""
    view = discord.ui.View(timeout=None)
    for number, row in enumerate(rows):
        for item in row:
            item.row = number
            view.add_item(item)
    return view


def pager(t: Any, format: CustomId, page: int, pages: int, **fields: object) -> discord.ui.View:
    """Previous / Next of kind ``format`` (with ``fields``, such as the member's) around
    ``page``, disabled at the ends; ``fields`` may be a callable of the way (``p``/``n``)
    giving the fields of that button."""

    def button(way: str, to: int, enabled: bool) -> Button:
        extra: dict[str, Any] = {
            name: value(way) if callable(value) else value for name, value in fields.items()
        }
        previous = way == "p"
        return Button.of(
            format,
            **extra,
            page=to,
            way=way,
            enabled=enabled,
            label=t("Previous") if previous else t("Next"),
            emoji="◀️" if previous else "▶️",
        )

    return view_of(
        [button("p", max(page - 1, 0), page > 0), button("n", page + 1, page + 1 < pages)]
    )


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
