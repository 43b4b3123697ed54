"""Each control's custom_id: one definition builds and parses it, the router hands it back to
its handler, and buttons already posted by earlier versions still match (their templates are
unchanged)."""

from __future__ import annotations

import pytest

from bot.discord import layout
from bot.discord.controls import PREFIX, Button, Router
from bot.features.challenges.feature import CHALLENGE
from bot.features.games.feature import GAMES
from bot.features.play.feature import RESIGN
from bot.features.ratings.feature import LEADERBOARD, LEADERBOARD_SEEK

POSTED_BEFORE = {
    layout.STEP: r"tholos:s:(?P<game>\d{1,18}):(?P<version>\d{1,9}):"
    r"(?P<path>[A-Za-z0-9-]{0,8}):(?P<kind>[nbc])",
    layout.CLAIM: r"tholos:claim:(?P<game>\d{1,18})",
    CHALLENGE: r"tholos:ch:(?P<challenge>\d{1,18}):(?P<answer>accept|decline|withdraw)",
    layout.REMATCH: r"tholos:rematch:(?P<game>\d{1,18})",
    RESIGN: r"tholos:resign:(?P<game>\d{1,18}):(?P<version>\d{1,9})",
    LEADERBOARD: r"tholos:lb:(?P<page>\d{1,6}):(?P<way>[pn])",
}


@pytest.mark.parametrize("format", list(POSTED_BEFORE), ids=lambda f: f.kind)
def test_templates_match_the_buttons_already_posted(format):
    """The templates are those of the buttons on messages posted before the restructure."""
    assert format.template == POSTED_BEFORE[format]


@pytest.mark.parametrize(
    ("format", "fields"),
    [
        (layout.STEP, {"game": 12, "version": 3, "path": "PwB-", "kind": "n"}),
        (layout.CLAIM, {"game": 99}),
        (CHALLENGE, {"challenge": 7, "answer": "withdraw"}),
        (layout.REMATCH, {"game": 5}),
        (layout.ANALYSE, {"game": 5}),
        (RESIGN, {"game": 5, "version": 41}),
        (LEADERBOARD, {"page": 2, "way": "p"}),
        (LEADERBOARD_SEEK, {"page": 19_999, "way": "n", "rating": 0.1 + 0.2, "user": 7}),
        (
            LEADERBOARD_SEEK,
            {"page": 999_999, "way": "p", "rating": -1.2345678901234567e-300, "user": 10**20 - 1},
        ),
        (LEADERBOARD_SEEK, {"page": 0, "way": "n", "rating": 1500.0, "user": 1}),
    ],
)
async def test_a_control_routes_the_id_it_builds(format, fields):
    """A button built from fields carries a ``tholos:`` custom_id (and nothing discord.py would
    keep) that the router hands back, parsed, to the handler of its format — and only to it."""
    item = Button.of(format, label="x", **fields)
    custom_id = item.custom_id
    assert custom_id is not None and len(custom_id) <= 100
    assert custom_id.startswith(PREFIX) and not item.is_dispatchable()
    router, received = Router(), []

    async def handler(interaction, **parsed):
        received.append(parsed)

    async def other(interaction, **parsed):
        raise AssertionError(f"routed to the wrong format: {parsed}")

    router.add(format, handler)
    for kind in (layout.REVIEW, GAMES):
        if kind is not format:
            router.add(kind, other)
    assert router.knows(custom_id)
    await router.route(None, custom_id)
    assert received == [fields]


def test_a_field_that_breaks_its_pattern_is_refused():
    """Building an id from a value its pattern refuses (a 19-digit id) raises, so a control
    never carries an id that would not route back to it."""
    with pytest.raises(ValueError, match="not a valid"):
        layout.CLAIM.build(game=10**18)
    with pytest.raises(ValueError, match="not a 'claim' custom_id"):
        layout.CLAIM.parse(layout.CLAIM.pattern.fullmatch("tholos:claim:x"))
