"""Unit tests of the emulator's rules and model that no bot needs to run for."""

from __future__ import annotations

from tests.e2e.emulator.messages import Message, Upload, compose
from tests.e2e.emulator.model import (
    ALL_PERMISSIONS,
    EMBED_LINKS,
    SEND_MESSAGES,
    VIEW_CHANNEL,
    Overwrite,
    User,
    default_world,
)
from tests.e2e.emulator.rules import (
    IS_COMPONENTS_V2,
    FormError,
    Rejection,
    check_commands,
    check_message,
    check_modal,
)


def rules(errors: list[FormError]) -> set[str]:
    return {e.rule for e in errors}


def test_invalid_form_body_has_discords_shape() -> None:
    error = FormError(
        ("components", 0, "components"),
        "BASE_TYPE_BAD_LENGTH",
        "Must be between 1 and 5 in length.",
        "components.row-width",
    )
    leaf = {"_errors": [{"code": "BASE_TYPE_BAD_LENGTH", "message": error.message}]}
    assert Rejection.form([error]).body() == {
        "message": "Invalid Form Body",
        "code": 50035,
        "errors": {"components": {"0": {"components": leaf}}},
    }


def test_command_schemas() -> None:
    opponent = {"type": 6, "name": "opponent", "description": "Who", "required": True}
    challenge = {"type": 1, "name": "challenge", "description": "Play", "options": [opponent]}
    assert (
        check_commands([{"name": "tholos", "description": "Tholos", "options": [challenge]}]) == []
    )
    optional = {"type": 3, "name": "x", "description": "d"}
    required = {"type": 3, "name": "y", "description": "d", "required": True}
    many = [{"name": str(i), "value": str(i)} for i in range(26)]
    bad = [
        {"name": "Tholos", "description": "capital letter"},
        {"name": "a", "description": ""},
        {"name": "b", "description": "d", "options": [optional, required]},
        {"name": "c", "description": "d", "options": [{**optional, "choices": many}]},
        {"name": "a", "description": "again"},
    ]
    assert rules(check_commands(bad)) == {
        "commands.name",
        "commands.description",
        "commands.option-order",
        "commands.choices",
        "commands.duplicate",
    }


def test_components_v2() -> None:
    container = {"type": 17, "components": [{"type": 10, "content": "x"}] * 40}
    errors = check_message(
        {"content": "legacy", "components": [container]}, attachment_count=0, flags=IS_COMPONENTS_V2
    )
    assert rules(errors) == {"components.v2-legacy-fields", "components.v2-count"}
    go = {"type": 2, "style": 1, "label": "go", "custom_id": "go"}
    fine = {"components": [{"type": 10, "content": "hi"}, {"type": 1, "components": [go]}]}
    assert check_message(fine, attachment_count=0, flags=IS_COMPONENTS_V2) == []
    text_only = {"components": [{"type": 10, "content": "x"}]}
    assert rules(check_message(text_only, attachment_count=0, flags=0)) == {"components.layout"}


def test_link_buttons_and_select_ranges() -> None:
    link = {"type": 2, "style": 5, "label": "site", "url": "https://example.org"}
    link_with_id = {**link, "custom_id": "x"}
    assert (
        check_message(
            {"components": [{"type": 1, "components": [link]}]}, attachment_count=0, flags=0
        )
        == []
    )
    select = {
        "type": 3,
        "custom_id": "s",
        "options": [{"label": "a", "value": "a"}],
        "max_values": 2,
    }
    rows = [{"type": 1, "components": [c]} for c in (link, link_with_id, select)]
    errors = check_message({"components": rows}, attachment_count=0, flags=0)
    assert rules(errors) == {"components.link-button", "select.values"}


def test_modal_needs_components() -> None:
    assert rules(check_modal({"custom_id": "m", "title": "t", "components": []})) == {
        "modal.components"
    }


def test_edit_keeps_or_replaces_attachments() -> None:
    message = Message(id=1, channel_id=2, author=User(id=3, username="bot", bot=True))
    compose(message, {}, [Upload(0, "a.png", b"a")], size_limit=10, creating=True)
    (kept,) = message.attachments
    compose(message, {"content": "edited"}, [], size_limit=10, creating=False)
    assert message.attachments == [kept] and message.edited_timestamp is not None
    compose(message, {"attachments": []}, [Upload(0, "b.png", b"b")], size_limit=10, creating=False)
    assert [a.filename for a in message.attachments] == ["b.png"]


def test_permissions_follow_discords_algorithm() -> None:
    world = default_world()
    guild, bot, bob = world.guild, world.bot, world.people["bob"]
    general, no_embeds = world.channel_named("general"), world.channel_named("no-embeds")
    assert not guild.permissions_in(no_embeds, bot.id) & EMBED_LINKS
    assert guild.permissions_in(no_embeds, bob.id) & EMBED_LINKS
    read_only = world.channel_named("read-only")
    assert not guild.permissions_in(read_only, bot.id) & (SEND_MESSAGES | EMBED_LINKS)
    assert guild.permissions_in(general, guild.owner_id) == ALL_PERMISSIONS
    general.overwrites.append(Overwrite(id=bob.id, type=1, deny=VIEW_CHANNEL))
    assert guild.permissions_in(general, bob.id) == 0
