"""Members' names made safe: :func:`plain_name` gives one bounded line of visible text, and
:func:`escaped_name` leaves Discord's markdown nothing to parse — no mention, masked link, URL,
emoji, heading, quote, list, spoiler or emphasis — while showing exactly the plain name."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from bot.base.game import Game
from bot.discord.places import THREAD_NAME_LIMIT, thread_name
from bot.features.reminders.feature import reminder_text
from bot.words.names import NAME_LIMIT, ZERO_WIDTH_SPACE, escaped_name, plain_name
from engine.newgame import new_game
from rendering.translator import ENGLISH

HOSTILE = [
    "<@123456789012345678>",
    "<@!123456789012345678>",
    "<@&123456789012345678>",
    "<#123456789012345678>",
    "@everyone",
    "@here",
    "[x](https://evil.example)",
    "https://evil.example/steal",
    "**bold** __under__ *it* _it_ ~~gone~~",
    "# heading",
    "-# small",
    "> quote",
    ">>> block quote",
    "- item",
    "1. item",
    "`code` ```block```",
    "||spoiler||",
    ":skull: <:custom:123> <t:0:R> </tholos challenge:1>",
    "two\nlines\r\nand\u2028more\u2029",
    "</script><img src=x onerror=alert(1)>",
    "\u202eenihsoT",
    "back\\slash\\*",
]
"""Names a member could choose, each meant to ping, link, format or break a line."""

_ESCAPED_PAIR = re.compile(r"\\[!-/:-@\[-`{-~]")
_LIVE_SYNTAX = [
    re.compile(r"<[@#][!&]?\d+>"),  # mentions of users, roles, channels
    re.compile(r"@(everyone|here)"),
    re.compile(r"\[[^\]]*\]\([^)]*\)"),  # masked link
    re.compile(r"https?://"),  # a bare link
    re.compile(r"\*|_|~~|`|\|\||<|>|:\w+:"),  # emphasis, code, spoiler, tags, emoji
    re.compile(r"^\s*(#|-|>|\d+\.)", re.MULTILINE),  # heading, list, quote at a line's start
    re.compile(r"[\n\r\u2028\u2029]"),
]
"""What a simple reader of Discord's markdown would act on."""


def live_syntax(text: str) -> list[str]:
    """The markdown and mentions Discord would act on in ``text``: what is left once the
    escaped characters (a backslash and an ASCII punctuation character) are set aside."""
    unescaped = _ESCAPED_PAIR.sub("\x00", text)
    return [found.group() for pattern in _LIVE_SYNTAX for found in pattern.finditer(unescaped)]


def shown(text: str) -> str:
    """What Discord shows of an escaped text: the escapes gone, and the zero-width space after
    each ``@`` unseen."""
    text = text.replace("@" + ZERO_WIDTH_SPACE, "@")
    return _ESCAPED_PAIR.sub(lambda found: found.group()[1], text)


def test_the_detector_sees_every_hostile_name_raw():
    """The reader used below is not blind: each hostile name, unescaped, has live syntax."""
    for name in HOSTILE[:-3]:
        assert live_syntax(name), name


def test_hostile_names_escaped_keep_nothing_live_and_show_as_written():
    for name in HOSTILE:
        escaped = escaped_name(name)
        assert live_syntax(escaped) == [], (name, escaped)
        assert shown(escaped) == plain_name(name)
    assert plain_name("[x](https://evil.example)") == "[x](https://evil.example)"
    assert plain_name("two\nlines\r\nand\u2028more\u2029") == "two lines and more"
    assert plain_name("\u202eenihsoT") == "enihsoT", "a bidirectional override is dropped"


@given(st.text(max_size=200))
@example("\\")
@example("@\u200b")
@example("a" * 500)
def test_any_escaped_name_has_nothing_live_and_shows_the_plain_name(name: str):
    escaped = escaped_name(name)
    assert live_syntax(escaped) == [], escaped
    assert "@" not in escaped.replace("@" + ZERO_WIDTH_SPACE, ""), "every @ is broken"
    assert shown(escaped) == plain_name(name)


@given(st.text(max_size=300), st.integers(min_value=2, max_value=NAME_LIMIT))
def test_a_plain_name_is_one_bounded_line_of_the_name(name: str, limit: int):
    plain = plain_name(name, limit)
    assert 0 < len(plain) <= limit
    assert plain == plain.strip() and "  " not in plain
    assert not any(unicodedata.category(c) in ("Cc", "Zl", "Zp", "Cs", "Co") for c in plain)
    assert plain_name(plain, limit) == plain, "idempotent"
    visible = [c for c in name if not unicodedata.category(c).startswith(("C", "Z"))]
    if len(name) <= limit and visible:
        assert [c for c in plain if not unicodedata.category(c).startswith(("C", "Z"))] == (
            visible
        ), "every visible character kept, in order"


@given(st.text(max_size=200), st.text(max_size=200))
@example("<@1>\n# x", "[x](https://evil)\r\n")
def test_a_thread_name_is_one_plain_line_within_discords_limit(white: str, black: str):
    name = thread_name(ENGLISH, white, black)
    assert len(name) <= THREAD_NAME_LIMIT
    assert name.endswith(" · Tholos") and " vs " in name
    assert not any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in name)


def test_a_turn_reminder_names_the_opponent_escaped():
    """The reminder pings the player to move by mention; the opponent's and the server's
    names, members' choices, are escaped."""
    opponent, server = "[x](https://evil.example) <@2> @everyone", "**Delphi** # x"
    start = new_game()
    game = Game(
        white_id=1,
        black_id=2,
        white_name="Ana",
        black_name=opponent,
        mode=start.mode,
        start_position=start,
        position=start,
    )
    text = reminder_text(ENGLISH, game, None, 0.0, direct=True, server=server)
    assert text.startswith("⏰ <@1>,")
    assert escaped_name(opponent) in text and escaped_name(server) in text
    for part in (opponent, "<@2>", "@everyone", "**Delphi**"):
        assert part not in text


def test_the_live_page_puts_text_in_as_text():
    """The page shows names (and every other word of its frames) as text: no HTML parsed from
    a frame, no code made of one — a name ``</script><img onerror=…>`` stays characters."""
    script = (Path(__file__).parents[2] / "bot" / "web" / "static" / "app.js").read_text()
    for sink in (
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "eval(",
        "Function(",
    ):
        assert sink not in script, sink
    assert "textContent" in script
