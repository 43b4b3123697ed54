"""Buttons: one kind of button for every ``tholos:`` control, and the router that hands a press
to the handler its feature registered for the control's ``custom_id`` format.

A control's ``custom_id`` format is defined once in :mod:`bot.base.custom_ids`; its words and its
handler live in the feature that owns it. discord.py keeps nothing of these buttons (they are
not dispatchable: no view per message in memory, none rebuilt from the message at a press); the
client routes each press from its ``custom_id`` alone (``Client.on_interaction``), so a press
after a restart, or on an old message, is routed the same way.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any

import discord

from bot.base.custom_ids import CustomId

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
