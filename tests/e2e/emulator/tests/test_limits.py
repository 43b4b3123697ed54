"""Self-tests: every rule the emulator enforces is caught, answered like Discord, and recorded."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.emulator import Emulator, Interaction, Message

pytestmark = pytest.mark.asyncio(loop_scope="module")

FORM = (400, 50035)

# /tiny wrong case:<name> -> the violations it must cause: (rule, HTTP status, Discord code).
CASES: dict[str, set[tuple[str, int, int]]] = {
    "twice": {("interaction.double-ack", 400, 40060)},
    "followup-first": {("interaction.followup-before-ack", 404, 10015)},
    "pong": {("interaction.response-type", *FORM)},
    "update-command": {("interaction.response-type", *FORM)},
    "defer-flags": {("interaction.defer-flags", *FORM)},
    "rows": {("components.rows", *FORM)},
    "row-width": {("components.row-width", *FORM)},
    "select-row": {("components.select-alone", *FORM)},
    "options": {("select.options", *FORM)},
    "no-custom-id": {("components.custom-id-missing", *FORM)},
    "long-custom-id": {("components.custom-id-length", *FORM)},
    "dup-custom-id": {("components.custom-id-unique", *FORM)},
    "long-label": {("components.label-length", *FORM)},
    "content": {("content.length", *FORM)},
    "empty": {("message.empty", 400, 50006)},
    "embed-title": {("embed.title", *FORM)},
    "embed-description": {("embed.description", *FORM)},
    "embed-fields": {("embed.fields", *FORM)},
    "embed-field-name": {("embed.field-name", *FORM)},
    "embed-field-value": {("embed.field-value", *FORM)},
    "embed-footer": {("embed.footer", *FORM)},
    "embed-author": {("embed.author-name", *FORM)},
    "embed-total": {("embed.total", *FORM)},
    "embed-color": {("embed.color", *FORM)},
    "embed-url": {("embed.url", *FORM)},
    "mentions": {("allowed-mentions", *FORM)},
    "embeds-count": {("embeds.count", *FORM)},
    "files-count": {("attachments.count", *FORM)},
    "file-size": {("attachments.size", 413, 40005)},
    "modal-title": {("modal.title", *FORM)},
    "followup-bad": {("content.length", *FORM)},
    "edit-bad": {("embed.title", *FORM)},
}


@pytest.fixture
def emu(shared_emulator: Emulator, shared_tinybot: object) -> Iterator[Emulator]:
    deadline = shared_emulator.config.ack_deadline
    yield shared_emulator
    shared_emulator.config.ack_deadline = deadline


def found(ix: Interaction) -> set[tuple[str, int, int]]:
    return {(v.rule, v.status, v.code) for v in ix.violations}


@pytest.mark.parametrize("case", sorted(CASES))
async def test_rule_is_caught(emu: Emulator, case: str) -> None:
    before = len(emu.violations)
    ix = await emu.slash(emu.member("alice"), "tiny wrong", case=case)
    expected = CASES[case]
    await emu.wait_for(lambda: found(ix) >= expected, what=f"{expected}")
    assert found(ix) == expected
    assert emu.violations[before:] == ix.violations
    assert ix.acknowledged and not ix.failed, "the bot recovers with a correct answer"
    assert all(str(ix) in v.message for v in ix.violations)


async def test_every_callback_attempt_is_recorded(emu: Emulator) -> None:
    ix = await emu.slash(emu.member("alice"), "tiny wrong", case="pong")
    await emu.wait_for(lambda: len(ix.callbacks) == 2, what="the recovery")
    assert ix.callbacks == [(1, 400), (4, 200)] and ix.ack_type == 4


async def test_unacknowledged_interaction_fails(emu: Emulator) -> None:
    emu.config.ack_deadline = 0.3
    ix = await emu.slash(emu.member("bob"), "tiny wrong", case="silent")
    assert ix.failed and not ix.acknowledged and ix.messages == []
    assert found(ix) == {("interaction.not-acknowledged", 0, 0)}
    assert "This interaction failed" in ix.violations[0].message


async def test_late_acknowledgement_is_refused(emu: Emulator) -> None:
    emu.config.ack_deadline = 0.5
    ix = await emu.slash(emu.member("bob"), "tiny wrong", case="late")
    assert ix.failed
    expected = {("interaction.not-acknowledged", 0, 0), ("interaction.deadline", 404, 10062)}
    await emu.wait_for(lambda: found(ix) == expected, what="the late answer")
    assert ix.messages == [] and ix.latency is None


async def board(emu: Emulator) -> Message:
    ix = await emu.slash(emu.member("alice"), "tiny board")
    assert ix.original is not None
    return ix.original


async def test_stale_client_can_click_a_disabled_button(emu: Emulator) -> None:
    message = await board(emu)
    ix = await emu.click(emu.member("carol"), message, "tiny:off", stale=True)
    assert ix.messages[0].content == "the disabled button was clicked"
    assert ix.violations == []


async def test_click_on_a_component_nobody_handles_fails(emu: Emulator) -> None:
    message = await board(emu)
    emu.config.ack_deadline = 0.3
    ix = await emu.click(emu.member("carol"), message, "tiny:gone", stale=True)
    assert ix.failed and found(ix) == {("interaction.not-acknowledged", 0, 0)}


async def test_missing_permissions_are_visible_and_enforced(emu: Emulator) -> None:
    before = len(emu.violations)
    channel = emu.channel("no-embeds")
    ix = await emu.slash(emu.member("alice"), "tiny perms", channel=channel)
    assert ix.messages[0].content == (
        "app embed_links=False attach_files=False; "
        "cache embed_links=False attach_files=False; refused 50013"
    )
    (violation,) = emu.violations[before:]
    assert (violation.rule, violation.status, violation.code) == ("permissions.missing", 403, 50013)
    assert "Embed Links" in violation.message and channel.name in violation.message


async def test_read_only_channel(emu: Emulator) -> None:
    before = len(emu.violations)
    ix = await emu.slash(emu.member("bob"), "tiny perms", channel=emu.channel("read-only"))
    assert ix.messages[0].content.endswith("refused 50013")
    assert "Send Messages" in emu.violations[before].message
