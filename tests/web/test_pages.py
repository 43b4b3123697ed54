"""What the features plug into the live page: every message the page sends has one part to
answer it, and no two parts claim the same."""

from __future__ import annotations

import re
from types import MappingProxyType

import pytest

from bot.features.live.feature import LiveBoard
from bot.storage.db import Database
from bot.web.pages import PagePart, PageParts
from bot.web.server import STATIC
from bot.web.words import PAGE
from tests.discord_fakes import Wired, fake_app

SERVERS_OWN = {"hello", "open", "lobby", "home"}
"""The messages the web server answers itself (the hello, and where the page is)."""


def sent_by_the_page() -> set[str]:
    """The ``type`` of every message the page's script sends."""
    script = (STATIC / "app.js").read_text(encoding="utf-8")
    return set(re.findall(r"\{ type: \"([a-z_]+)\"", script))


async def test_every_message_the_page_sends_has_one_part_to_answer_it(database: Database):
    """Each message of the page's script is the server's own or one feature's, as the
    composition root wires them; no part answers a message the page never sends."""
    app = fake_app(database)
    parts = PageParts(Wired(app)[LiveBoard].parts)
    answered = {kind for part in parts.parts for kind in part.types}
    assert sent_by_the_page() - SERVERS_OWN == answered
    assert not answered & SERVERS_OWN
    app.renderer.close()


def read_by_the_page() -> set[str]:
    """The key of every word the page's script reads (``state.words.<key>``, and its buttons'
    labels)."""
    script = (STATIC / "app.js").read_text(encoding="utf-8")
    labels = re.search(r"const LABELS = \{(.*?)\};", script, re.S)
    assert labels is not None
    return set(re.findall(r"state\.words\.([a-z_]+)", script)) | set(
        re.findall(r": \"([a-z_]+)\"", labels[1])
    )


async def test_every_word_the_page_reads_is_the_pages_own_or_one_parts(database: Database):
    """The page's words are its own (:data:`PAGE`) and those its parts add, as the composition
    root wires them: each one the script reads is sent, and none is sent unread."""
    app = fake_app(database)
    parts = PageParts(Wired(app)[LiveBoard].parts)
    assert read_by_the_page() == set(PAGE) | set(parts.words)
    app.renderer.close()


def test_two_parts_may_not_answer_the_same_message():
    """A message type is one part's: a second part claiming it is a wiring mistake."""

    class Turns(PagePart):
        types = frozenset({"turn"})

    with pytest.raises(ValueError, match="two parts answer 'turn'"):
        PageParts([Turns(), Turns()])


def test_two_parts_may_not_name_the_same_word():
    """A page word is the page's or one part's: a part naming one already taken is refused."""

    class Leaving(PagePart):
        words = MappingProxyType({"leave": "Leave"})

    with pytest.raises(ValueError, match="two page words are called 'leave'"):
        PageParts([Leaving()])
