"""Members' names made safe to show: members choose them (a nickname, a global name, a
username), so a name may read ``<@123>``, ``@everyone``, ``[x](https://evil)``, ``**bold**``,
``# heading``, ``||spoiler||`` or hold a newline. Two functions, one per kind of place:

- :func:`plain_name` for text no one renders as markdown (a thread's name, an image's alt
  text, a choice's label, the live page): one line of visible characters, bounded;
- :func:`escaped_name` for Discord's message text (content, embeds, text displays): the plain
  name with every markdown character escaped and every ``@`` broken, so it can neither ping,
  nor link, nor format — Discord shows it exactly as the plain name.

And :func:`mention`, the markup that names (and pings) a member in Discord's message text.

Pure text: no Discord import (the words layer has none)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Final

from bot.base.game import Game

NAME_LIMIT: Final = 100
"""The most characters of a name shown (Discord's names have at most 32)."""
ZERO_WIDTH_SPACE: Final = "\u200b"
"""Put after every ``@`` of an escaped name, so that no ``@everyone`` or ``<@id>`` is ever
parsed, even where escapes are not honoured."""
_BIDI_CONTROLS: Final = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e") | frozenset(
    "\u2066\u2067\u2068\u2069"
)
"""Marks and overrides that reorder the text around a name (it could make ``A vs B`` read
backwards): dropped."""
_BLANK: Final = frozenset({"Cc", "Zl", "Zp", "Zs"})
"""Unicode categories that become one space: control characters (newlines, tabs), line and
paragraph separators, and every kind of space."""
_DROPPED: Final = frozenset({"Cs", "Co"})
"""Unicode categories dropped: lone surrogates and private-use characters."""
_MARKDOWN: Final = re.compile(r"([!-/:-@\[-`{-~])")
"""Every ASCII punctuation character: Discord's markdown escapes any of them with a
backslash (``\\*`` shows ``*``), and its syntax (``*_~`|>#-[]()<@:``, lists ``1.``, links,
emoji ``:x:``, mentions, timestamps) is made of nothing else."""


def plain_name(name: str, limit: int = NAME_LIMIT) -> str:
    """``name`` as one line of visible text: control characters, line breaks and spaces of
    every kind become one space, bidirectional overrides are dropped, the ends trimmed; at
    most ``limit`` characters (cut with an ellipsis); ``?`` for a name left empty.

    >>> plain_name("  Ariadne\\n# of\\tCrete ")
    'Ariadne # of Crete'
    >>> plain_name("\\u202eenihsoT")
    'enihsoT'
    >>> plain_name("A" * 120, 10)
    'AAAAAAAAA…'
    >>> plain_name("\\n")
    '?'
    """
    kept = []
    for character in name:
        if character in _BIDI_CONTROLS:
            continue
        category = unicodedata.category(character)
        if category in _BLANK:
            kept.append(" ")
        elif category not in _DROPPED:
            kept.append(character)
    text = re.sub(" +", " ", "".join(kept)).strip() or "?"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def escaped_name(name: str, limit: int = NAME_LIMIT) -> str:
    """``name`` (made plain by :func:`plain_name`) for Discord's markdown: every ASCII
    punctuation character escaped with a backslash, a zero-width space after every ``@`` —
    no mention, masked link, URL, emoji, heading, quote, list or emphasis survives, and
    Discord shows exactly the plain name.

    >>> escaped_name("[x](https://evil) **hi**")
    '\\\\[x\\\\]\\\\(https\\\\:\\\\/\\\\/evil\\\\) \\\\*\\\\*hi\\\\*\\\\*'
    >>> escaped_name("<@123>") == "\\\\<\\\\@" + ZERO_WIDTH_SPACE + "123\\\\>"
    True
    >>> escaped_name("Ariadne")
    'Ariadne'
    """
    escaped = _MARKDOWN.sub(r"\\\1", plain_name(name, limit))
    return escaped.replace("@", "@" + ZERO_WIDTH_SPACE)


def mention(user_id: int) -> str:
    """Discord's mention markup for a user."""
    return f"<@{user_id}>"


def called_here(game: Game) -> Callable[[int], str]:
    """How the messages in a game's channel name its players: by a mention (it pings them, and
    shows them as their server knows them) — but, in a game the pool paired across places, the
    player who asked elsewhere by the global display name they were paired under, escaped (they
    may not be in this server, where their mention would read as an unknown user)."""
    if not game.pool:
        return mention
    here = game.white_id if game.away is None else game.away  # (the home is White's place)
    names = {game.white_id: game.white_name, game.black_id: game.black_name}

    def called(user_id: int) -> str:
        if user_id == here or user_id not in names:
            return mention(user_id)
        return f"**{escaped_name(names[user_id])}**"

    return called
