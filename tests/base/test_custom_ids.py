"""Each control's custom_id: one definition builds and parses it, and buttons already posted
by earlier versions still match (their templates are unchanged)."""

from __future__ import annotations

import pytest

from bot.base import custom_ids
from bot.discord.controls import Button, Router

POSTED_BEFORE = {
    custom_ids.STEP: r"tholos:s:(?P<game>\d{1,18}):(?P<version>\d{1,9}):"
    r"(?P<path>[A-Za-z0-9-]{0,8}):(?P<kind>[nbc])",
    custom_ids.CLAIM: r"tholos:claim:(?P<game>\d{1,18})",
    custom_ids.CHALLENGE: r"tholos:ch:(?P<challenge>\d{1,18}):(?P<answer>accept|decline|withdraw)",
    custom_ids.REMATCH: r"tholos:rematch:(?P<game>\d{1,18})",
    custom_ids.RESIGN: r"tholos:resign:(?P<game>\d{1,18}):(?P<version>\d{1,9})",
    custom_ids.LEADERBOARD: r"tholos:lb:(?P<page>\d{1,6}):(?P<way>[pn])",
}


@pytest.mark.parametrize("format", list(POSTED_BEFORE), ids=lambda f: f.kind)
def test_templates_match_the_buttons_already_posted(format):
    """The templates are those of the buttons on messages posted before the restructure."""
    assert format.template == POSTED_BEFORE[format]


@pytest.mark.parametrize(
    ("format", "fields"),
    [
        (custom_ids.STEP, {"game": 12, "version": 3, "path": "PwB-", "kind": "n"}),
        (custom_ids.CLAIM, {"game": 99}),
        (custom_ids.CHALLENGE, {"challenge": 7, "answer": "withdraw"}),
        (custom_ids.REMATCH, {"game": 5}),
        (custom_ids.ANALYSE, {"game": 5}),
        (custom_ids.RESIGN, {"game": 5, "version": 41}),
        (custom_ids.LEADERBOARD, {"page": 2, "way": "p"}),
        (custom_ids.LEADERBOARD_SEEK, {"page": 19_999, "way": "n", "rating": 0.1 + 0.2, "user": 7}),
        (
            custom_ids.LEADERBOARD_SEEK,
            {"page": 999_999, "way": "p", "rating": -1.2345678901234567e-300, "user": 10**20 - 1},
        ),
        (custom_ids.LEADERBOARD_SEEK, {"page": 0, "way": "n", "rating": 1500.0, "user": 1}),
    ],
)
async def test_a_control_routes_the_id_it_builds(format, fields):
    """A button built from fields carries a ``tholos:`` custom_id (and nothing discord.py would
    keep) that the router hands back, parsed, to the handler of its format — and only to it."""
    item = Button.of(format, label="x", **fields)
    custom_id = item.custom_id
    assert custom_id is not None and len(custom_id) <= 100
    assert custom_id.startswith(custom_ids.PREFIX) and not item.is_dispatchable()
    router, received = Router(), []

    async def handler(interaction, **parsed):
        received.append(parsed)

    async def other(interaction, **parsed):
        raise AssertionError(f"routed to the wrong format: {parsed}")

    router.add(format, handler)
    for kind in (custom_ids.REVIEW, custom_ids.GAMES):
        if kind is not format:
            router.add(kind, other)
    assert router.knows(custom_id)
    await router.route(None, custom_id)
    assert received == [fields]


def test_a_field_that_breaks_its_pattern_is_refused():
    """Building an id from a value its pattern refuses (a 19-digit id) raises, so a control
    never carries an id that would not route back to it."""
    with pytest.raises(ValueError, match="not a valid"):
        custom_ids.CLAIM.build(game=10**18)
    with pytest.raises(ValueError, match="not a 'claim' custom_id"):
        custom_ids.CLAIM.parse(custom_ids.CLAIM.pattern.fullmatch("tholos:claim:x"))
