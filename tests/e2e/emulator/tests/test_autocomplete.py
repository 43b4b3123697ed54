"""Self-tests of application-command autocomplete: the tiny bot suggests choices as a member
types (``/tiny pick``), answers wrongly on purpose (``/tiny badpick case:<name>``), and a
registration with both ``choices`` and ``autocomplete`` is refused."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest

from tests.e2e.emulator import BotProcess, Emulator, Violation
from tests.e2e.table import Table

pytestmark = pytest.mark.asyncio(loop_scope="module")

FORM = (400, 50035)


@pytest.fixture
def emu(shared_emulator: Emulator, shared_tinybot: BotProcess) -> Iterator[Emulator]:
    """The shared emulator, with the tiny bot running; no interaction may be left unanswered."""
    before = len(shared_emulator.violations)
    _marks[id(shared_emulator)] = before
    yield shared_emulator
    assert all(ix.acknowledged or ix.expired for ix in shared_emulator.interactions)


_marks: dict[int, int] = {}


def new_violations(emu: Emulator) -> list[tuple[str, int, int]]:
    """The violations recorded since the test began, as ``(rule, status, code)``."""
    found: list[Violation] = emu.violations[_marks[id(emu)] :]
    return [(v.rule, v.status, v.code) for v in found]


def fruit(name: str) -> dict[str, str]:
    return {"name": name.title(), "value": name}


async def test_choices_arrive_filtered_by_the_typed_prefix(emu: Emulator) -> None:
    alice = emu.member("alice")
    ix = await emu.autocomplete(alice, "tiny pick", focused="fruit", value="ap")
    assert ix.type == 4 and ix.ack_type == 8 and ix.acknowledged and not ix.failed
    assert ix.latency is not None and ix.latency < ix.deadline
    assert ix.data["options"] == [
        {
            "name": "pick",
            "type": 1,
            "options": [{"name": "fruit", "type": 3, "value": "ap", "focused": True}],
        }
    ]
    assert ix.choices == [fruit("apple"), fruit("apricot")]
    assert ix.messages == [] and ix.callbacks == [(8, 200)]
    everything = await emu.autocomplete(alice, "tiny pick", focused="fruit")
    assert everything.choices is not None and len(everything.choices) == 9
    none = await emu.autocomplete(alice, "tiny pick", focused="fruit", value="zz")
    assert none.choices == [] and none.acknowledged
    assert new_violations(emu) == []


async def test_integer_option_is_sent_as_a_partial_string(emu: Emulator) -> None:
    """The focused integer arrives as the text typed; the options typed before it are sent too
    (the bot names the choices after the fruit), and the choices' values are integers."""
    ix = await emu.autocomplete(
        emu.member("bob"), "tiny pick", focused="amount", value=1, fruit="mango"
    )
    (sub,) = ix.data["options"]
    assert sub["options"] == [
        {"name": "fruit", "type": 3, "value": "mango"},
        {"name": "amount", "type": 4, "value": "1", "focused": True},
    ]
    assert ix.choices == [{"name": "1 mango", "value": 1}, {"name": "12 mango", "value": 12}]
    done = await emu.slash(emu.member("bob"), "tiny pick", fruit="mango", amount=12)
    assert done.messages[0].content == "picked 12 mango"
    assert new_violations(emu) == []


async def test_what_the_client_would_not_send_is_refused(emu: Emulator) -> None:
    alice = emu.member("alice")
    with pytest.raises(ValueError, match="has no autocomplete"):
        await emu.autocomplete(alice, "tiny echo", focused="text", value="hi")
    with pytest.raises(ValueError, match="cannot focus"):
        await emu.autocomplete(alice, "tiny pick", focused="colour")
    with pytest.raises(ValueError, match="cannot focus"):
        await emu.autocomplete(alice, "tiny pick", focused="fruit", fruit="apple")
    with pytest.raises(TypeError):
        await emu.autocomplete(alice, "tiny pick", focused="amount", fruit=3)
    with pytest.raises(ValueError, match="not available to bob"):
        await emu.autocomplete(emu.member("bob"), "tiny-reset", focused="x")
    assert new_violations(emu) == []


async def test_table_wrapper(emu: Emulator) -> None:
    table = Table(emu, "games")
    ix = await table.autocomplete(emu.member("carol"), "tiny pick", "fruit", "b")
    assert ix.channel is emu.channel("games") and ix in table.made
    assert ix.choices == [fruit("banana"), fruit("blueberry")]
    table.assert_clean()


@pytest.mark.parametrize(
    ("case", "rule", "answer", "choices"),
    [
        ("message", "interaction.response-type", FORM, []),
        ("defer", "interaction.response-type", FORM, []),
        ("many", "autocomplete.choices", FORM, []),
        ("long-name", "autocomplete.choice-name", FORM, []),
        ("wrong-type", "autocomplete.choice-value", FORM, []),
        ("followup", "interaction.autocomplete-followup", (404, 10015), [fruit("apple")]),
    ],
)
async def test_a_wrong_answer_is_refused_and_recorded(
    emu: Emulator,
    shared_tinybot: BotProcess,
    case: str,
    rule: str,
    answer: tuple[int, int],
    choices: list[dict[str, Any]],
) -> None:
    """Each wrong answer is refused like Discord; the bot then answers with no choices (which
    works: the refused answer did not acknowledge the interaction), or had answered first."""
    ix = await emu.autocomplete(
        emu.member("alice"), "tiny badpick", focused="fruit", value="a", case=case
    )
    await shared_tinybot.settle()
    assert new_violations(emu) == [(rule, *answer)]
    assert [v.interaction_id for v in ix.violations] == [ix.id]
    assert ix.ack_type == 8 and not ix.failed and ix.choices == choices


async def test_a_late_answer_fails(emu: Emulator, shared_tinybot: BotProcess) -> None:
    emu.config.ack_deadline = 1.0
    try:
        ix = await emu.autocomplete(
            emu.member("alice"), "tiny badpick", focused="fruit", case="late"
        )
    finally:
        emu.config.ack_deadline = 3.0
    await emu.wait_for(lambda: ix.callbacks, what="the late answer")
    await shared_tinybot.settle()
    assert new_violations(emu) == [
        ("interaction.not-acknowledged", 0, 0),
        ("interaction.deadline", 404, 10062),
    ]
    assert ix.failed and not ix.acknowledged and ix.choices is None


async def test_choices_with_autocomplete_are_refused_at_registration(emu: Emulator) -> None:
    def option(kind: int, **extra: Any) -> dict[str, Any]:
        return {"type": kind, "name": "fruit", "description": "Fruit", **extra}

    good = option(3, autocomplete=True)
    both = option(3, autocomplete=True, choices=[{"name": "Apple", "value": "apple"}])
    boolean = option(5, autocomplete=True)
    path = f"{emu.api_base}/applications/{emu.bot_user.id}/commands"
    headers = {"Authorization": f"Bot {emu.token}"}
    answers = []
    async with aiohttp.ClientSession(headers=headers) as session:
        for options in ([both], [boolean], [good]):
            body = [{"name": "fruity", "description": "Fruit", "options": options}]
            async with session.put(path, json=body) as response:
                answers.append((response.status, await response.json()))
    (status, refused), (status2, refused2), (status3, accepted) = answers
    assert (status, refused["code"]) == FORM and (status2, refused2["code"]) == FORM
    error = refused["errors"]["0"]["options"]["0"]["autocomplete"]["_errors"][0]
    assert error["code"] == "APPLICATION_COMMAND_AUTOCOMPLETE_CHOICES"
    assert "autocomplete" in refused2["errors"]["0"]["options"]["0"]
    assert status3 == 200 and accepted[0]["options"][0]["autocomplete"] is True
    assert new_violations(emu) == [("commands.autocomplete", *FORM)] * 2
    assert [c["name"] for c in emu.commands(guild=False)] == ["fruity"]
