"""Self-tests of the emulator's happy paths, played against the tiny bot by the test API."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.emulator import BotProcess, Emulator, Message, RandomPlayer
from tests.e2e.emulator.tests.tinybot import IMAGE_COLOR

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture
def emu(shared_emulator: Emulator, shared_tinybot: object) -> Iterator[Emulator]:
    """The shared emulator, with the tiny bot running; no test here may break a rule."""
    before = len(shared_emulator.violations)
    yield shared_emulator
    assert shared_emulator.violations[before:] == []
    assert [r for r in shared_emulator.requests if r.status == 404] == []
    assert not any(ix.failed for ix in shared_emulator.interactions)


async def board(emu: Emulator) -> Message:
    ix = await emu.slash(emu.member("alice"), "tiny board")
    message = ix.original
    assert message is not None and message.content == "count 0"
    assert [b["label"] for b in message.buttons] == ["+1", "off", "later", "form", "whisper"]
    assert [s["custom_id"] for s in message.selects] == ["tiny:pick", "tiny:who"]
    return message


async def test_commands_are_registered_on_the_guild(emu: Emulator) -> None:
    tiny, reset = emu.commands()
    assert tiny["name"] == "tiny" and tiny["guild_id"] == str(emu.guild.id)
    names = {option["name"]: option["type"] for option in tiny["options"]}
    assert names["ping"] == 1 and names["admin"] == 2
    assert reset["default_member_permissions"] == str(1 << 5)
    assert emu.commands(guild=False) == []


async def test_commands_hidden_by_default_permissions(emu: Emulator) -> None:
    ix = await emu.slash(emu.member("alice"), "tiny-reset")
    assert ix.messages[0].content == "reset"
    with pytest.raises(ValueError, match="not available to bob"):
        await emu.slash(emu.member("bob"), "tiny-reset")


async def test_slash_command_reply_is_public(emu: Emulator) -> None:
    ix = await emu.slash(emu.member("alice"), "tiny ping")
    assert ix.ack_type == 4 and ix.latency is not None and ix.latency < ix.deadline
    (reply,) = ix.messages
    assert reply.content == "pong" and reply.author is emu.bot_user
    assert emu.last_message(emu.channel("general"), viewer=emu.member("bob")) is reply


async def test_options_follow_the_registered_schema(emu: Emulator) -> None:
    alice = emu.member("alice")
    ix = await emu.slash(alice, "tiny echo", text="hi", times=2, style="bold")
    assert ix.messages[0].content == "**hi**\n**hi**"
    with pytest.raises(ValueError, match="must be one of"):
        await emu.slash(alice, "tiny echo", text="hi", style="italic")
    with pytest.raises(ValueError, match="within"):
        await emu.slash(alice, "tiny echo", text="hi", times=4)
    with pytest.raises(ValueError, match="missing required"):
        await emu.slash(alice, "tiny echo")
    with pytest.raises(ValueError, match="unknown options"):
        await emu.slash(alice, "tiny echo", text="hi", loud=True)
    with pytest.raises(TypeError):
        await emu.slash(alice, "tiny echo", text=3)
    with pytest.raises(ValueError, match="needs a subcommand"):
        await emu.slash(alice, "tiny admin")


async def test_ephemeral_reply_is_seen_only_by_its_member(emu: Emulator) -> None:
    alice, bob = emu.member("alice"), emu.member("bob")
    ix = await emu.slash(alice, "tiny echo", text="secret", private=True)
    (reply,) = ix.messages
    assert reply.ephemeral and reply.content == "secret"
    general = emu.channel("general")
    assert reply in emu.messages(general, viewer=alice)
    assert reply not in emu.messages(general, viewer=bob)
    assert reply not in emu.messages(general)


async def test_user_option_arrives_as_a_member(emu: Emulator) -> None:
    ix = await emu.slash(emu.member("alice"), "tiny greet", who=emu.member("bob"))
    assert ix.messages[0].content == "Hello Bob (Member)"
    assert "members" in ix.data["resolved"] and "users" in ix.data["resolved"]


async def test_subcommand_group(emu: Emulator) -> None:
    ix = await emu.slash(emu.member("carol"), "tiny admin set", message_id="1", value=5)
    assert ix.messages[0].content == "board 1 set to 5"


async def test_button_updates_its_message(emu: Emulator) -> None:
    message = await board(emu)
    alice, bob = emu.member("alice"), emu.member("bob")
    first = await emu.click(alice, message, "tiny:inc")
    second = await emu.click(bob, message, "tiny:inc")
    assert (first.ack_type, second.ack_type) == (7, 7)
    assert message.content == "count 2" and message.edits == 2


async def test_client_refuses_disabled_or_absent_components(emu: Emulator) -> None:
    message = await board(emu)
    alice = emu.member("alice")
    with pytest.raises(ValueError, match="disabled"):
        await emu.click(alice, message, "tiny:off")
    with pytest.raises(ValueError, match="no component"):
        await emu.click(alice, message, "tiny:nothing")
    with pytest.raises(ValueError, match="type 3"):
        await emu.click(alice, message, "tiny:pick")


async def test_components_v2_layout(emu: Emulator) -> None:
    ix = await emu.slash(emu.member("alice"), "tiny layout")
    (message,) = ix.messages
    assert message.flags & (1 << 15) and message.content == "" and message.text == "# Board"
    clicked = await emu.click(emu.member("bob"), message, "tiny:v2ok")
    assert clicked.messages[0].content == "v2 ok"


async def test_deferred_update_then_edit_original(emu: Emulator) -> None:
    message = await board(emu)
    ix = await emu.click(emu.member("bob"), message, "tiny:later")
    assert ix.ack_type == 6
    await emu.wait_for(lambda: message.content == "edited after a deferred update")


async def test_string_select(emu: Emulator) -> None:
    message = await board(emu)
    alice = emu.member("alice")
    ix = await emu.select(alice, message, "tiny:pick", ["north", "west"])
    assert ix.ack_type == 7 and message.content == "picked north, west"
    with pytest.raises(ValueError, match="offers"):
        await emu.select(alice, message, "tiny:pick", ["up"])
    with pytest.raises(ValueError, match="1 to 2 values"):
        await emu.select(alice, message, "tiny:pick", ["north", "east", "south"])


async def test_user_select_resolves_a_member(emu: Emulator) -> None:
    message = await board(emu)
    ix = await emu.select(emu.member("alice"), message, "tiny:who", [emu.member("carol")])
    assert ix.messages[0].content == "chose Carol (Member)"


async def test_modal_round_trip(emu: Emulator) -> None:
    message = await board(emu)
    alice = emu.member("alice")
    opened = await emu.click(alice, message, "tiny:form")
    assert opened.ack_type == 9 and opened.modal is not None
    assert opened.modal["title"] == "Who are you?"
    with pytest.raises(ValueError, match="required"):
        await emu.submit_modal(alice, opened, {})
    with pytest.raises(ValueError, match="no fields"):
        await emu.submit_modal(alice, opened, {"tiny:name": "A", "tiny:age": "3"})
    with pytest.raises(ValueError, match="its member only"):
        await emu.submit_modal(emu.member("bob"), opened, {"tiny:name": "Bob"})
    submitted = await emu.submit_modal(alice, opened, {"tiny:name": "Alice"})
    assert submitted.messages[0].content == "Nice to meet you, Alice"


async def test_ephemeral_reply_to_a_button(emu: Emulator) -> None:
    message = await board(emu)
    bob = emu.member("bob")
    ix = await emu.click(bob, message, "tiny:whisper")
    (whisper,) = ix.messages
    assert whisper.visible_to == bob.id and whisper.content == "just for you"
    assert whisper.interaction_metadata is not None
    assert whisper.interaction_metadata["interacted_message_id"] == str(message.id)


async def test_thinking_then_followup_fills_the_original(emu: Emulator) -> None:
    ix = await emu.slash(emu.member("alice"), "tiny think")
    assert ix.ack_type == 5
    original = ix.original
    assert original is not None
    await emu.wait_for(lambda: not original.loading)
    assert original.content == "done thinking" and not original.ephemeral
    assert ix.followups == []


async def test_private_thinking_stays_private(emu: Emulator) -> None:
    alice = emu.member("alice")
    ix = await emu.slash(alice, "tiny think", private=True)
    original = ix.original
    assert original is not None and original.ephemeral and original.visible_to == alice.id
    await emu.wait_for(lambda: original.content == "done thinking")


async def test_edits_and_followups(emu: Emulator) -> None:
    ix = await emu.slash(emu.member("alice"), "tiny edits")
    await emu.wait_for(lambda: len(ix.followups) == 2)
    assert ix.original is not None and ix.original.content == "v2"
    edited, note = ix.followups
    await emu.wait_for(lambda: edited.content == "f1 edited")
    assert note.ephemeral and note.content == "original says v2"


async def test_image_attachment_read_back_with_pillow(emu: Emulator) -> None:
    ix = await emu.slash(emu.member("alice"), "tiny image", width=40, height=20)
    (attachment,) = ix.messages[0].attachments
    assert attachment.filename == "board.png"
    image = attachment.image()
    assert image.size == (40, 20) and image.getpixel((3, 3)) == IMAGE_COLOR


async def test_bot_reads_an_uploaded_attachment(emu: Emulator) -> None:
    upload = ("notes.txt", b"hello world")
    ix = await emu.slash(emu.member("bob"), "tiny upload", file=upload)
    assert ix.messages[0].content == "notes.txt: 11 bytes, b'hello'"


async def test_bot_sees_its_permissions(emu: Emulator) -> None:
    ix = await emu.slash(emu.member("alice"), "tiny perms", channel=emu.channel("games"))
    assert ix.messages[0].content == (
        "app embed_links=True attach_files=True; cache embed_links=True attach_files=True; posted"
    )
    assert emu.last_message(emu.channel("games")).text == "probe"


async def test_direct_message(emu: Emulator) -> None:
    bob = emu.member("bob")
    await emu.slash(emu.member("alice"), "tiny dm", who=bob)
    dm = emu.dm_channel(bob)
    await emu.wait_for(lambda: emu.messages(dm, viewer=bob))
    assert emu.last_message(dm, viewer=bob).content == "psst, Bob"


async def test_random_play_breaks_no_rule(
    emu: Emulator, shared_tinybot: BotProcess, seed: int
) -> None:
    """Random presses, picks and commands (and a form filled in at random, arranged) break no
    rule and fail no interaction."""
    message = await board(emu)
    people = [emu.member(name) for name in ("alice", "bob", "carol")]
    commands = [("tiny board", {}), ("tiny echo", lambda m: {"text": m.user.username})]
    player = RandomPlayer(emu, people, emu.channel("general"), seed=seed, commands=commands)
    made = await player.use(people[1], message, "tiny:form")
    assert [ix.type for ix in made] == [3, 5], "the form opened and was submitted"
    made += await player.play(40)
    assert len(made) >= 42 and not any(ix.failed for ix in made), player.history
    await shared_tinybot.settle()
