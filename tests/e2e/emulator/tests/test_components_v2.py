"""Self-tests of components-v2 messages as Discord keeps them: once v2, always v2 (edits by
REST, webhook and UPDATE_MESSAGE), ``attachment://`` references resolved to the stored files,
media gallery limits, and the test API (``is_v2``, ``media_items``, nested buttons and texts);
raw REST calls and gateway sessions, and the tiny bot (discord.py) with a LayoutView carrying
DynamicItem buttons in a container."""

from __future__ import annotations

import io
import json
from typing import Any

import aiohttp
import pytest
from PIL import Image

from tests.e2e.bots import TINYBOT, SpawnBot
from tests.e2e.emulator import Emulator, Interaction
from tests.e2e.emulator.rules import IS_COMPONENTS_V2
from tests.e2e.emulator.tests.raw import RawApi, rules
from tests.e2e.emulator.tests.tinybot import GALLERY_FILES, IMAGE_COLOR, png

JSON = dict[str, Any]
V2 = IS_COMPONENTS_V2
SUPPRESS_EMBEDS = 1 << 2
GO = {"type": 2, "style": 1, "label": "Go", "custom_id": "go"}
FORM = (400, 50035)


def layout(*inside: JSON, text: str = "# Board") -> list[JSON]:
    """A container with a text display and ``inside``, then an action row with Go."""
    container = {"type": 17, "components": [{"type": 10, "content": text}, *inside]}
    return [container, {"type": 1, "components": [GO]}]


def gallery(*urls: str, description: str | None = None) -> JSON:
    items = [{"media": {"url": url}, "description": description} for url in urls]
    return {"type": 12, "items": items}


def section(text: str, accessory: JSON) -> JSON:
    return {"type": 9, "components": [{"type": 10, "content": text}], "accessory": accessory}


def thumbnail(url: str, description: str | None = None) -> JSON:
    return {"type": 11, "media": {"url": url}, "description": description}


def form(payload: JSON, files: dict[str, bytes]) -> aiohttp.FormData:
    """A multipart body: ``payload_json`` and ``files[n]``."""
    data = aiohttp.FormData(quote_fields=False)
    data.add_field("payload_json", json.dumps(payload))
    for n, (name, content) in enumerate(files.items()):
        data.add_field(f"files[{n}]", content, filename=name)
    return data


def status(answer: tuple[int, Any]) -> tuple[int, int] | int:
    code, body = answer
    return (code, body["code"]) if code >= 400 else code


# Once v2, always v2 ----------------------------------------------------------------------------


async def test_a_v2_message_stays_v2(emulator: Emulator, raw_api: RawApi) -> None:
    """An edit may not add content or embeds to a v2 message nor clear its flag; an edit
    without ``flags`` keeps it, one with the flag may change SUPPRESS_EMBEDS."""
    general = emulator.channel("general")
    created = await raw_api.call(
        "POST", f"/channels/{general.id}/messages", json={"flags": V2, "components": layout()}
    )
    assert status(created) == 200 and created[1]["flags"] == V2
    path = f"/channels/{general.id}/messages/{created[1]['id']}"
    message = emulator.last_message(general)
    assert message.is_v2 and message.text == "# Board"
    refused = [
        ({"content": "legacy"}, "components.v2-legacy-fields"),
        ({"embeds": [{"title": "legacy"}]}, "components.v2-legacy-fields"),
        ({"flags": 0, "components": layout()}, "components.v2-flag-removed"),
        ({"flags": SUPPRESS_EMBEDS}, "components.v2-flag-removed"),
    ]
    for body, rule in refused:
        assert status(await raw_api.call("PATCH", path, json=body)) == FORM
        assert rules(emulator)[-1] == rule
    assert message.edits == 0 and message.text == "# Board"
    edits = [
        {"components": layout(text="# Edited")},
        {"content": "", "embeds": [], "components": layout(text="# Again")},
        {"flags": V2 | SUPPRESS_EMBEDS},
    ]
    for body in edits:
        assert status(await raw_api.call("PATCH", path, json=body)) == 200
    assert message.is_v2 and message.flags == V2 | SUPPRESS_EMBEDS and message.text == "# Again"
    assert len(emulator.violations) == len(refused)


async def test_converting_a_message_to_v2_clears_its_legacy_fields(
    emulator: Emulator, raw_api: RawApi
) -> None:
    """Discord: setting IS_COMPONENTS_V2 on an edit needs content and embeds reset."""
    general = emulator.channel("general")
    body = {"content": "classic", "embeds": [{"title": "an embed"}]}
    created = (await raw_api.call("POST", f"/channels/{general.id}/messages", json=body))[1]
    path = f"/channels/{general.id}/messages/{created['id']}"
    convert = {"flags": V2, "components": layout()}
    answer = await raw_api.call("PATCH", path, json=convert)
    assert status(answer) == FORM and set(answer[1]["errors"]) == {"content", "embeds"}
    assert rules(emulator) == ["components.v2-legacy-fields"] * 2
    answer = await raw_api.call("PATCH", path, json={**convert, "content": None, "embeds": []})
    assert status(answer) == 200 and answer[1]["flags"] == V2 and answer[1]["content"] == ""
    assert emulator.last_message(general).is_v2


async def test_interaction_edits_of_a_v2_message(emulator: Emulator, raw_api: RawApi) -> None:
    """UPDATE_MESSAGE (type 7) and the webhook edit of ``@original`` follow the same rules."""
    await raw_api.register([{"name": "board", "description": "Board"}])
    alice = emulator.member("alice")
    ix = await emulator.slash(alice, "board", wait=False)
    answer = {"type": 4, "data": {"flags": V2, "components": layout()}}
    assert status(await raw_api.answer(ix, answer)) == 204
    board = ix.original
    assert board is not None and board.is_v2
    click = await emulator.click(alice, board, "go", wait=False)
    update = {"type": 7, "data": {"content": "legacy", "components": layout()}}
    assert status(await raw_api.answer(click, update)) == FORM
    assert [v.rule for v in click.violations] == ["components.v2-legacy-fields"]
    update = {"type": 7, "data": {"components": layout(text="# Clicked")}}
    assert status(await raw_api.answer(click, update)) == 204
    assert board.is_v2 and board.text == "# Clicked"
    original = f"/webhooks/{emulator.bot_user.id}/{ix.token}/messages/@original"
    answer = await raw_api.call("PATCH", original, json={"flags": 0})
    assert status(answer) == FORM and rules(emulator)[-1] == "components.v2-flag-removed"
    answer = await raw_api.call("PATCH", original, json={"components": layout(text="# Hooked")})
    assert status(answer) == 200 and board.text == "# Hooked" and board.is_v2


# Attachments ------------------------------------------------------------------------------------


async def test_attachment_references_are_resolved(emulator: Emulator, raw_api: RawApi) -> None:
    """``attachment://NAME`` in a media gallery, a thumbnail and a file component names a file
    of the same request; Discord answers (and dispatches) the stored file's URL, size and
    type in the component's ``media``."""
    raw = await raw_api.connect()
    general = emulator.channel("general")
    image = png(40, 20)
    files = {"board.png": image, "notes.txt": b"some notes"}
    components = layout(
        gallery("attachment://board.png", "https://example.org/x.png", description="The board"),
        section("with a thumbnail", thumbnail("attachment://board.png", "small")),
        {"type": 13, "file": {"url": "attachment://notes.txt"}},
    )
    payload = {"flags": V2, "components": components}
    code, created = await raw_api.call(
        "POST", f"/channels/{general.id}/messages", data=form(payload, files)
    )
    assert code == 200, created
    board, notes = created["attachments"]
    media = created["components"][0]["components"][1]["items"][0]["media"]
    assert media["url"] == board["url"] == media["proxy_url"]
    assert media["attachment_id"] == board["id"] and media["content_type"] == "image/png"
    assert (media["width"], media["height"]) == (40, 20)
    external = created["components"][0]["components"][1]["items"][1]["media"]
    assert external["url"] == "https://example.org/x.png" and "attachment_id" not in external
    accessory = created["components"][0]["components"][2]["accessory"]
    assert accessory["media"]["attachment_id"] == board["id"]
    file_component = created["components"][0]["components"][3]
    assert file_component["file"]["url"] == notes["url"]
    assert file_component["file"]["attachment_id"] == notes["id"]
    assert (file_component["name"], file_component["size"]) == ("notes.txt", len(b"some notes"))
    await emulator.wait_for(lambda: raw.got("MESSAGE_CREATE", id=created["id"]))
    assert raw.got("MESSAGE_CREATE", id=created["id"])[0]["components"] == created["components"]
    async with raw_api.http.get(media["url"]) as response:
        assert await response.read() == image

    message = emulator.last_message(general)
    first, second = message.media_items
    assert first.url == board["url"] and first.description == "The board"
    assert first.data == image and first.image().size == (40, 20)
    assert first.image().getpixel((1, 1)) == IMAGE_COLOR
    assert second.url == "https://example.org/x.png" and second.attachment is None
    with pytest.raises(ValueError, match="not an attachment"):
        second.image()
    assert message.text == "# Board\nwith a thumbnail"
    assert [c["type"] for c in message.components[0]["components"]] == [10, 12, 9, 13]
    assert message.components[0]["components"][1]["items"][0]["media"]["url"] == (
        "attachment://board.png"
    ), "the stored message keeps the reference; answers resolve it"
    assert emulator.violations == []


async def test_an_attachment_reference_names_a_file(emulator: Emulator, raw_api: RawApi) -> None:
    """On a create, a file of the request; on an edit, also one the message keeps; a file
    component takes attachment references only."""
    general = emulator.channel("general")
    path = f"/channels/{general.id}/messages"
    missing = {"flags": V2, "components": layout(gallery("attachment://board.png"))}
    answer = await raw_api.call("POST", path, json=missing)
    assert status(answer) == FORM and rules(emulator) == ["components.v2-attachment"]
    items = answer[1]["errors"]["components"]["0"]["components"]["1"]["items"]
    assert items["0"]["media"]["url"]["_errors"][0]["code"] == "MEDIA_ATTACHMENT_NOT_FOUND"
    external_file = {"type": 13, "file": {"url": "https://example.org/notes.txt"}}
    answer = await raw_api.call(
        "POST", path, json={"flags": V2, "components": layout(external_file)}
    )
    assert status(answer) == FORM and rules(emulator)[-1] == "components.v2-attachment"

    files = {"board.png": png(8, 8)}
    code, created = await raw_api.call("POST", path, data=form(missing, files))
    assert code == 200
    edit = f"{path}/{created['id']}"
    kept = {"components": layout(gallery("attachment://board.png"), text="# Kept")}
    assert status(await raw_api.call("PATCH", edit, json=kept)) == 200
    dropped = {**kept, "attachments": []}
    assert status(await raw_api.call("PATCH", edit, json=dropped)) == FORM
    assert rules(emulator)[-1] == "components.v2-attachment"
    replaced = {
        "components": layout(gallery("attachment://new.png")),
        "attachments": [{"id": 0, "filename": "new.png"}],
    }
    code, edited = await raw_api.call("PATCH", edit, data=form(replaced, {"upload.png": png(6, 3)}))
    assert code == 200 and [a["filename"] for a in edited["attachments"]] == ["new.png"]
    (item,) = emulator.last_message(general).media_items
    assert item.image().size == (6, 3)
    assert len(emulator.violations) == 3


async def test_media_gallery_limits(emulator: Emulator, raw_api: RawApi) -> None:
    """1 to 10 items a gallery; descriptions of gallery items and thumbnails 1024 at most;
    4000 characters of text displays in all."""
    path = f"/channels/{emulator.channel('general').id}/messages"
    url = "https://example.org/a.png"
    cases = [
        (gallery(), "components.v2-gallery-items"),
        (gallery(*[url] * 11), "components.v2-gallery-items"),
        (gallery(url, description="x" * 1025), "components.v2-description"),
        (section("t", thumbnail(url, "x" * 1025)), "components.v2-description"),
        ({"type": 10, "content": "x" * 3994}, "components.v2-text"),
    ]
    for component, rule in cases:
        answer = await raw_api.call(
            "POST", path, json={"flags": V2, "components": layout(component)}
        )
        assert status(answer) == FORM and rules(emulator)[-1] == rule, rule
    fine = layout(gallery(*[url] * 10, description="x" * 1024))
    assert status(await raw_api.call("POST", path, json={"flags": V2, "components": fine})) == 200
    assert len(emulator.violations) == len(cases)


async def test_nested_components_in_the_test_api(emulator: Emulator, raw_api: RawApi) -> None:
    """Buttons in a section's accessory and in an action row inside a container are found and
    clickable; texts of sections inside containers are part of ``text``; ids are numbered."""
    await raw_api.register([{"name": "board", "description": "Board"}])
    alice = emulator.member("alice")
    ix = await emulator.slash(alice, "board", wait=False)
    inner_go = {**GO, "custom_id": "inner"}
    components = layout(
        section("in a section", {**GO, "custom_id": "accessory"}),
        {"type": 1, "components": [inner_go]},
    )
    assert (
        status(
            await raw_api.answer(ix, {"type": 4, "data": {"flags": V2, "components": components}})
        )
        == 204
    )
    message = ix.original
    assert message is not None and message.is_v2 and message.media_items == []
    assert [b["custom_id"] for b in message.buttons] == ["accessory", "inner", "go"]
    assert message.component("accessory") is not None
    assert message.text == "# Board\nin a section"
    ids = [c["id"] for c in message.all_components()]
    assert sorted(ids) == list(range(1, len(ids) + 1))
    click = await emulator.click(alice, message, "accessory", wait=False)
    assert (
        click.data["custom_id"] == "accessory"
        and click.data["id"] == message.component("accessory")["id"]
    )
    assert status(await raw_api.answer(click, {"type": 6})) == 204
    assert emulator.violations == []


# The tiny bot -------------------------------------------------------------------------------------


async def test_discord_py_layout_with_files_and_dynamic_items(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """discord.py's LayoutView with a media gallery, a thumbnail and a file component uploads
    its files and references them; its DynamicItem buttons, one a section's accessory and one
    in an action row inside a container, are matched by discord.py, which rebuilds the view
    from the message (``LayoutView.from_message``) and edits it (type 7): the resolved URLs
    it sends back keep showing the same files."""
    bot = spawn_bot(emulator, TINYBOT)
    await bot.start(sync=True)
    alice = emulator.member("alice")
    ix = await emulator.slash(alice, "tiny gallery")
    message = ix.original
    assert message is not None and message.is_v2 and message.content == ""
    assert [a.filename for a in message.attachments] == [*GALLERY_FILES, "notes.txt"]
    (item,) = message.media_items
    assert item.description == "The board" and item.image().size == GALLERY_FILES["board.png"]
    assert message.text == "# Gallery\na thumbnail\ncount 0"
    assert [b["custom_id"] for b in message.buttons] == ["tiny:dyn:sec:0", "tiny:dyn:row:0"]

    clicked = await emulator.click(alice, message, "tiny:dyn:sec:0")
    assert clicked.ack_type == 7 and not clicked.failed
    assert "count 1 (sec)" in message.text
    assert [b["custom_id"] for b in message.buttons] == ["tiny:dyn:sec:1", "tiny:dyn:row:0"]
    clicked = await emulator.click(emulator.member("bob"), message, "tiny:dyn:row:0")
    assert clicked.ack_type == 7 and "count 1 (row)" in message.text
    assert message.edits == 2 and message.is_v2 and len(message.attachments) == 3
    (item,) = message.media_items
    assert item.url.startswith(emulator.state.base_url) and item.attachment is not None
    assert Image.open(io.BytesIO(item.data)).size == GALLERY_FILES["board.png"]
    shown = message.to_json(emulator.state.base_url)["components"][0]["components"][1]
    assert shown["items"][0]["media"]["attachment_id"] == str(item.attachment.id)
    assert emulator.violations == []
    assert await bot.stop() == 0
    bot.assert_clean_log()


WRONG = {
    "v2-content": "components.v2-legacy-fields",
    "v2-embed": "components.v2-legacy-fields",
    "v2-unflag": "components.v2-flag-removed",
    "v2-attachment": "components.v2-attachment",
    "v2-gallery-items": "components.v2-gallery-items",
    "v2-description": "components.v2-description",
}


async def test_discord_py_breaking_v2_rules(emulator: Emulator, spawn_bot: SpawnBot) -> None:
    bot = spawn_bot(emulator, TINYBOT)
    await bot.start(sync=True)
    made: list[Interaction] = []
    for case in WRONG:
        made.append(await emulator.slash(emulator.member("alice"), "tiny wrong", case=case))
    for ix, (case, rule) in zip(made, WRONG.items(), strict=True):
        await emulator.wait_for(lambda ix=ix: ix.violations, what=case)
        assert {(v.rule, v.status, v.code) for v in ix.violations} == {(rule, *FORM)}, case
        assert ix.acknowledged and not ix.failed
    await bot.settle()
    assert {v.rule for v in emulator.violations} == set(WRONG.values())
    assert await bot.stop() == 0
