"""A tiny discord.py bot for the emulator's self-tests:
``python -m tests.e2e.emulator.tests.tinybot``.

It reads the real bot's environment (DISCORD_TOKEN, DISCORD_API_BASE, THOLOS_DB,
THOLOS_GUILD_ID, LOG_LEVEL, THOLOS_METRICS_PORT, where it serves ``tholos_work_in_flight`` as
the real bot does; and TINYBOT_MEMBERS_INTENT=1 to ask for the members intent), calls
``bot.discord.api.use_api_base`` like the real bot, and has commands that do things right, and
``/tiny wrong case:<name>`` that breaks one rule on purpose; ``/tiny pick`` autocompletes its
options, ``/tiny badpick case:<name>`` answers its autocomplete wrongly on purpose;
``/tiny locale`` (registered with Spanish and German localizations through a discord.py
``Translator``) tells the locales of its interaction; ``/tiny gallery`` posts a components-v2
message with files, a media gallery, a thumbnail and DynamicItem buttons in a container;
``/tiny dmbutton`` DMs a button; ``/tiny activity`` launches the app's Activity
(``launch_activity``) and logs the instance it got; ``/tiny-where`` (guild and user install,
every context) and ``/tiny-here`` (guild only) tell where they run: both only with
TINYBOT_USER_INSTALL=1, which also declares guild and user install (``PATCH /applications/@me``)
before registering.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import re
import signal
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import discord
from aiohttp import web
from discord import app_commands
from discord.http import Route
from PIL import Image

from bot.discord.api import use_api_base

log = logging.getLogger("tinybot")
Interaction = discord.Interaction[Any]

IMAGE_COLOR = (200, 30, 30)
PICKS = ["north", "east", "south", "west"]
FRUITS = ["apple", "apricot", "banana", "blueberry", "cherry", "grape", "lemon", "lime", "mango"]


class RawView(discord.ui.View):
    """Sends ``components`` exactly as given, bypassing discord.py's own layout checks."""

    def __init__(self, components: list[dict[str, Any]]) -> None:
        super().__init__(timeout=None)
        self.raw = components

    def to_components(self) -> list[dict[str, Any]]:
        return self.raw


def button(custom_id: str | None, label: str = "b") -> dict[str, Any]:
    data: dict[str, Any] = {"type": 2, "style": 1, "label": label}
    if custom_id is not None:
        data["custom_id"] = custom_id
    return data


def row(*components: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(components)}


def string_select(custom_id: str, count: int) -> dict[str, Any]:
    options = [{"label": f"o{i}", "value": f"o{i}"} for i in range(count)]
    return {"type": 3, "custom_id": custom_id, "options": options}


def png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), IMAGE_COLOR).save(buffer, "PNG")
    return buffer.getvalue()


class Store:
    """Board counters, kept in SQLite so that they survive restarts."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path)
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS counters (message INTEGER PRIMARY KEY, n INTEGER)"
        )

    def bump(self, message_id: int) -> int:
        with self.db:
            self.db.execute(
                "INSERT INTO counters VALUES (?, 1) ON CONFLICT(message) DO UPDATE SET n = n + 1",
                (message_id,),
            )
        return self.db.execute(
            "SELECT n FROM counters WHERE message = ?", (message_id,)
        ).fetchone()[0]


class NameModal(discord.ui.Modal, title="Who are you?"):
    name = discord.ui.TextInput(label="Name", custom_id="tiny:name", max_length=20)

    async def on_submit(self, interaction: Interaction) -> None:
        await interaction.response.send_message(f"Nice to meet you, {self.name.value}")


class Board(discord.ui.View):
    """A persistent view: its custom_ids are fixed, so clicks work after a restart."""

    def __init__(self, store: Store) -> None:
        super().__init__(timeout=None)
        self.store = store

    @discord.ui.button(label="+1", custom_id="tiny:inc", style=discord.ButtonStyle.primary)
    async def inc(self, interaction: Interaction, _: discord.ui.Button[Board]) -> None:
        assert interaction.message is not None
        count = self.store.bump(interaction.message.id)
        await interaction.response.edit_message(content=f"count {count}")

    @discord.ui.button(label="off", custom_id="tiny:off", disabled=True)
    async def off(self, interaction: Interaction, _: discord.ui.Button[Board]) -> None:
        await interaction.response.send_message("the disabled button was clicked", ephemeral=True)

    @discord.ui.button(label="later", custom_id="tiny:later")
    async def later(self, interaction: Interaction, _: discord.ui.Button[Board]) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content="edited after a deferred update")

    @discord.ui.button(label="form", custom_id="tiny:form")
    async def form(self, interaction: Interaction, _: discord.ui.Button[Board]) -> None:
        await interaction.response.send_modal(NameModal())

    @discord.ui.button(label="whisper", custom_id="tiny:whisper")
    async def whisper(self, interaction: Interaction, _: discord.ui.Button[Board]) -> None:
        await interaction.response.send_message("just for you", ephemeral=True)

    @discord.ui.select(
        custom_id="tiny:pick",
        options=[discord.SelectOption(label=p.title(), value=p) for p in PICKS],
        max_values=2,
    )
    async def pick(self, interaction: Interaction, select: discord.ui.Select[Board]) -> None:
        await interaction.response.edit_message(content=f"picked {', '.join(select.values)}")

    @discord.ui.select(cls=discord.ui.UserSelect, custom_id="tiny:who")
    async def who(self, interaction: Interaction, select: discord.ui.UserSelect[Board]) -> None:
        chosen = select.values[0]
        kind = type(chosen).__name__
        await interaction.response.send_message(f"chose {chosen.display_name} ({kind})")


class Layout(discord.ui.LayoutView):
    """A components-v2 message: a container with a text display and a button."""

    def __init__(self) -> None:
        super().__init__(timeout=None)
        button: discord.ui.Button[Layout] = discord.ui.Button(label="ok", custom_id="tiny:v2ok")
        button.callback = self.ok
        text = discord.ui.TextDisplay("# Board")
        self.add_item(discord.ui.Container(text, discord.ui.ActionRow(button)))

    async def ok(self, interaction: Interaction) -> None:
        await interaction.response.send_message("v2 ok", ephemeral=True)


class Counter(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tiny:dyn:(?P<where>row|sec):(?P<count>[0-9]+)",
):
    """A button whose state is in its custom_id, in a container (an action row, or a section's
    accessory): a click rebuilds the message's view (``LayoutView.from_message``, done by
    discord.py), counts one more and edits the message with that view (type 7)."""

    def __init__(self, where: str, count: int) -> None:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=f"+1 {where}", custom_id=f"tiny:dyn:{where}:{count}"
        )
        super().__init__(button)
        self.where, self.count = where, count

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Counter:
        return cls(match["where"], int(match["count"]))

    async def callback(self, interaction: Interaction) -> None:
        view = self.view
        assert view is not None
        self.count += 1
        self.custom_id = f"tiny:dyn:{self.where}:{self.count}"
        for child in view.walk_children():
            if isinstance(child, discord.ui.TextDisplay) and child.content.startswith("count"):
                child.content = f"count {self.count} ({self.where})"
        await interaction.response.edit_message(view=view)


GALLERY_FILES = {"board.png": (48, 24), "thumb.png": (8, 8)}


def gallery(count: int = 0) -> tuple[discord.ui.LayoutView, list[discord.File]]:
    """A components-v2 message and its files: a container with a text, a media gallery
    (``attachment://board.png``), a section with a thumbnail, a section with a Counter as its
    accessory and an action row with another Counter; then a file component (``notes.txt``)."""
    view = discord.ui.LayoutView(timeout=None)
    item = discord.MediaGalleryItem("attachment://board.png", description="The board")
    thumb = discord.ui.Thumbnail("attachment://thumb.png", description="A thumbnail")
    view.add_item(
        discord.ui.Container(
            discord.ui.TextDisplay("# Gallery"),
            discord.ui.MediaGallery(item),
            discord.ui.Section(discord.ui.TextDisplay("a thumbnail"), accessory=thumb),
            discord.ui.Section(
                discord.ui.TextDisplay(f"count {count}"), accessory=Counter("sec", count)
            ),
            discord.ui.ActionRow(Counter("row", count)),
        )
    )
    view.add_item(discord.ui.File("attachment://notes.txt"))
    files = [discord.File(io.BytesIO(png(*size)), filename=n) for n, size in GALLERY_FILES.items()]
    files.append(discord.File(io.BytesIO(b"some notes"), filename="notes.txt"))
    return view, files


class RawLayout(discord.ui.LayoutView):
    """Sends components-v2 ``components`` exactly as given (with the IS_COMPONENTS_V2 flag)."""

    def __init__(self, components: list[dict[str, Any]]) -> None:
        super().__init__(timeout=None)
        self.raw = components

    def to_components(self) -> list[dict[str, Any]]:
        return self.raw

    def has_components_v2(self) -> bool:
        return True


class DmButton(discord.ui.View):
    """A persistent button sent in a DM; a click tells what discord.py saw."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="ok", custom_id="tiny:dmok")
    async def ok(self, interaction: Interaction, _: discord.ui.Button[DmButton]) -> None:
        await interaction.response.send_message(where(interaction))


def where(interaction: Interaction) -> str:
    """Where an interaction runs, as discord.py parsed it."""
    context = interaction.context
    return (
        f"guild={context.guild} dm={context.dm_channel} guild_id={interaction.guild_id} "
        f"user={type(interaction.user).__name__} "
        f"guild_integration={interaction.is_guild_integration()} "
        f"user_integration={interaction.is_user_integration()}"
    )


async def raw_callback(interaction: Interaction, body: dict[str, Any]) -> None:
    """An interaction callback sent with discord.py's HTTP client, past its local checks."""
    route = Route(
        "POST", "/interactions/{iid}/{token}/callback", iid=interaction.id, token=interaction.token
    )
    await interaction.client.http.request(route, json=body)


def _long(n: int) -> str:
    return "x" * n


def _embed(**fields: Any) -> discord.Embed:
    return discord.Embed.from_dict({"title": "t", **fields})


async def _respond(interaction: Interaction, **kwargs: Any) -> None:
    await interaction.response.send_message("wrong on purpose", **kwargs)


async def _respond_v2(interaction: Interaction, view: discord.ui.LayoutView) -> None:
    await interaction.response.send_message(view=view)


async def _twice(interaction: Interaction) -> None:
    await interaction.response.send_message("one")
    await raw_callback(interaction, {"type": 4, "data": {"content": "two"}})


async def _late(interaction: Interaction) -> None:
    await asyncio.sleep(1.5)
    await interaction.response.send_message("late")


async def _silent(interaction: Interaction) -> None:
    return None


async def _followup_first(interaction: Interaction) -> None:
    await interaction.followup.send("too early")


async def _files(interaction: Interaction, count: int, size: int) -> None:
    files = [discord.File(io.BytesIO(b"\0" * size), f"f{i}.bin") for i in range(count)]
    await interaction.response.send_message("files", files=files)


async def _followup_bad(interaction: Interaction) -> None:
    await interaction.response.defer(thinking=True)
    await interaction.followup.send(_long(2001))


async def _edit_bad(interaction: Interaction) -> None:
    await interaction.response.send_message("fine so far")
    await interaction.edit_original_response(embed=_embed(title=_long(257)))


async def _v2_then(interaction: Interaction, **edit: Any) -> None:
    """Post a components-v2 message, then edit it with ``edit`` (wrong on purpose)."""
    await interaction.response.send_message(view=Layout())
    await interaction.edit_original_response(**edit)


async def _v2_unflag(interaction: Interaction) -> None:
    await interaction.response.send_message(view=Layout())
    route = Route(
        "PATCH",
        "/webhooks/{app}/{token}/messages/@original",
        app=interaction.application_id,
        token=interaction.token,
    )
    text = {"type": 10, "content": "no longer v2?"}
    await interaction.client.http.request(route, json={"flags": 0, "components": [text]})


def _gallery_items(*items: dict[str, Any]) -> RawLayout:
    return RawLayout([{"type": 12, "items": list(items)}])


def _modal_long_title() -> discord.ui.Modal:
    modal = discord.ui.Modal(title=_long(46), custom_id="tiny:long-modal")
    modal.add_item(discord.ui.TextInput(label="x", custom_id="tiny:x"))
    return modal


WRONG: dict[str, Callable[[Interaction], Awaitable[None]]] = {
    "twice": _twice,
    "late": _late,
    "silent": _silent,
    "followup-first": _followup_first,
    "rows": lambda i: _respond(i, view=RawView([row(button(f"r{n}")) for n in range(6)])),
    "row-width": lambda i: _respond(i, view=RawView([row(*(button(f"w{n}") for n in range(6)))])),
    "select-row": lambda i: _respond(i, view=RawView([row(string_select("s", 2), button("b"))])),
    "options": lambda i: _respond(i, view=RawView([row(string_select("s", 26))])),
    "no-custom-id": lambda i: _respond(i, view=RawView([row(button(None))])),
    "long-custom-id": lambda i: _respond(i, view=RawView([row(button(_long(101)))])),
    "dup-custom-id": lambda i: _respond(i, view=RawView([row(button("d"), button("d"))])),
    "long-label": lambda i: _respond(i, view=RawView([row(button("l", _long(81)))])),
    "content": lambda i: i.response.send_message(_long(2001)),
    "empty": lambda i: i.response.send_message(),
    "embed-title": lambda i: _respond(i, embed=_embed(title=_long(257))),
    "embed-description": lambda i: _respond(i, embed=_embed(description=_long(4097))),
    "embed-fields": lambda i: _respond(i, embed=_embed(fields=[{"name": "n", "value": "v"}] * 26)),
    "embed-field-name": lambda i: _respond(
        i, embed=_embed(fields=[{"name": _long(257), "value": "v"}])
    ),
    "embed-field-value": lambda i: _respond(
        i, embed=_embed(fields=[{"name": "n", "value": _long(1025)}])
    ),
    "embed-footer": lambda i: _respond(i, embed=_embed(footer={"text": _long(2049)})),
    "embed-author": lambda i: _respond(i, embed=_embed(author={"name": _long(257)})),
    "embed-color": lambda i: _respond(i, embed=_embed(color=0x1000000)),
    "embed-url": lambda i: _respond(i, embed=_embed(image={"url": "board.png"})),
    "mentions": lambda i: raw_callback(
        i,
        {
            "type": 4,
            "data": {"content": "hi", "allowed_mentions": {"parse": ["users"], "users": ["1"]}},
        },
    ),
    "embed-total": lambda i: _respond(
        i, embeds=[_embed(description=_long(3500)), _embed(description=_long(3500))]
    ),
    "embeds-count": lambda i: raw_callback(
        i, {"type": 4, "data": {"embeds": [{"title": str(n)} for n in range(11)]}}
    ),
    "files-count": lambda i: _files(i, 11, 10),
    "file-size": lambda i: _files(i, 1, 10 * 1024 * 1024 + 1),
    "pong": lambda i: raw_callback(i, {"type": 1}),
    "defer-flags": lambda i: raw_callback(i, {"type": 5, "data": {"flags": 4}}),
    "update-command": lambda i: raw_callback(i, {"type": 7, "data": {"content": "x"}}),
    "modal-title": lambda i: i.response.send_modal(_modal_long_title()),
    "followup-bad": _followup_bad,
    "edit-bad": _edit_bad,
    "v2-content": lambda i: _v2_then(i, content="legacy text"),
    "v2-embed": lambda i: _v2_then(i, embed=_embed(title="legacy embed")),
    "v2-unflag": _v2_unflag,
    "v2-attachment": lambda i: _respond_v2(
        i, _gallery_items({"media": {"url": "attachment://missing.png"}})
    ),
    "v2-gallery-items": lambda i: _respond_v2(
        i, _gallery_items(*[{"media": {"url": f"https://example.org/{n}.png"}} for n in range(11)])
    ),
    "v2-description": lambda i: _respond_v2(
        i,
        _gallery_items({"media": {"url": "https://example.org/a.png"}, "description": _long(1025)}),
    ),
}
NO_RECOVERY = {"twice", "late", "silent"}


tiny = app_commands.Group(name="tiny", description="Emulator self-test commands")
admin = app_commands.Group(name="admin", description="Board administration", parent=tiny)


@tiny.command(description="Answer pong")
async def ping(interaction: Interaction) -> None:
    await interaction.response.send_message("pong")


@tiny.command(description="Repeat a text")
@app_commands.describe(text="What to say", times="How often", private="Only for you")
async def echo(
    interaction: Interaction,
    text: str,
    times: app_commands.Range[int, 1, 3] = 1,
    private: bool = False,
    style: Literal["plain", "bold"] = "plain",
) -> None:
    line = f"**{text}**" if style == "bold" else text
    await interaction.response.send_message("\n".join([line] * times), ephemeral=private)


@tiny.command(description="Greet a member")
async def greet(interaction: Interaction, who: discord.Member) -> None:
    kind = type(who).__name__
    await interaction.response.send_message(f"Hello {who.display_name} ({kind})")


@tiny.command(description="Post a board with buttons and selects")
async def board(interaction: Interaction) -> None:
    client: TinyBot = interaction.client  # type: ignore[assignment]
    await interaction.response.send_message("count 0", view=Board(client.store))


@tiny.command(description="Post a components-v2 layout")
async def layout(interaction: Interaction) -> None:
    await interaction.response.send_message(view=Layout())


@tiny.command(description="Send a generated PNG")
async def image(interaction: Interaction, width: int = 64, height: int = 32) -> None:
    file = discord.File(io.BytesIO(png(width, height)), filename="board.png")
    await interaction.response.send_message("an image", file=file)


@tiny.command(description="Read an uploaded file")
async def upload(interaction: Interaction, file: discord.Attachment) -> None:
    data = await file.read()
    await interaction.response.send_message(f"{file.filename}: {len(data)} bytes, {data[:5]!r}")


@tiny.command(description="Think, then answer")
async def think(interaction: Interaction, private: bool = False) -> None:
    await interaction.response.defer(thinking=True, ephemeral=private)
    await interaction.followup.send("done thinking", ephemeral=private)


@tiny.command(description="Launch the app's Activity here")
async def activity(interaction: Interaction) -> None:
    answer = await interaction.response.launch_activity()
    resource = answer.resource
    assert isinstance(resource, discord.InteractionCallbackActivityInstance)
    log.info("launched activity instance %s (resource %s)", answer.activity_id, resource.id)


@tiny.command(description="Answer, edit, follow up, edit the follow-up")
async def edits(interaction: Interaction) -> None:
    await interaction.response.send_message("v1")
    await interaction.edit_original_response(content="v2")
    followup = await interaction.followup.send("f1", wait=True)
    await followup.edit(content="f1 edited")
    original = await interaction.original_response()
    await interaction.followup.send(f"original says {original.content}", ephemeral=True)


@tiny.command(description="Report the bot's permissions here and try to post an embed")
async def perms(interaction: Interaction) -> None:
    assert interaction.guild is not None and isinstance(interaction.channel, discord.TextChannel)
    app = interaction.app_permissions
    cached = interaction.channel.permissions_for(interaction.guild.me)
    try:
        await interaction.channel.send(embed=discord.Embed(title="probe"))
        posted = "posted"
    except discord.Forbidden as error:
        posted = f"refused {error.code}"
    await interaction.response.send_message(
        f"app embed_links={app.embed_links} attach_files={app.attach_files}; "
        f"cache embed_links={cached.embed_links} attach_files={cached.attach_files}; {posted}",
        ephemeral=True,
    )


@tiny.command(description="Count the members in the bot's cache")
async def members(interaction: Interaction) -> None:
    assert interaction.guild is not None
    count = len(interaction.guild.members)
    await interaction.response.send_message(f"{count} cached, chunked={interaction.guild.chunked}")


@tiny.command(description="Send a DM to a member")
async def dm(interaction: Interaction, who: discord.Member) -> None:
    try:
        await who.send(f"psst, {who.display_name}")
    except discord.Forbidden as error:  # they closed their DMs: Discord's normal answer
        await interaction.response.send_message(f"refused {error.code}", ephemeral=True)
        return
    await interaction.response.send_message("sent", ephemeral=True)


@tiny.command(description="Send a button to a member in a DM")
async def dmbutton(interaction: Interaction, who: discord.Member) -> None:
    await who.send("press it", view=DmButton())
    await interaction.response.send_message("sent", ephemeral=True)


@tiny.command(name="gallery", description="Post a components-v2 gallery with dynamic buttons")
async def gallery_command(interaction: Interaction) -> None:
    view, files = gallery()
    await interaction.response.send_message(view=view, files=files)


@tiny.command(description="Break one rule on purpose")
async def wrong(interaction: Interaction, case: str) -> None:
    if case not in WRONG:
        await interaction.response.send_message(f"cases: {', '.join(WRONG)}", ephemeral=True)
        return
    try:
        await WRONG[case](interaction)
    except discord.HTTPException as error:
        log.warning("wrong %s: HTTP %s code %s", case, error.status, error.code)
        if case in NO_RECOVERY:
            return
        if interaction.response.is_done():
            await interaction.followup.send("recovered", ephemeral=True)
        else:
            await interaction.response.send_message("recovered", ephemeral=True)


@tiny.command(description="Pick a fruit, with suggestions as you type")
async def pick(interaction: Interaction, fruit: str, amount: int = 1) -> None:
    await interaction.response.send_message(f"picked {amount} {fruit}")


@pick.autocomplete("fruit")
async def pick_fruit(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    typed = current.lower()
    return [app_commands.Choice(name=f.title(), value=f) for f in FRUITS if f.startswith(typed)]


@pick.autocomplete("amount")
async def pick_amount(interaction: Interaction, current: str) -> list[app_commands.Choice[int]]:
    fruit = getattr(interaction.namespace, "fruit", None) or "fruit"
    return [
        app_commands.Choice(name=f"{n} {fruit}", value=n)
        for n in (1, 2, 3, 12)
        if str(n).startswith(str(current))
    ]


async def _autocomplete_late(interaction: Interaction) -> None:
    await asyncio.sleep(1.5)
    await interaction.response.autocomplete([app_commands.Choice(name="Late", value="late")])


async def _autocomplete_followup(interaction: Interaction) -> None:
    await interaction.response.autocomplete([app_commands.Choice(name="Apple", value="apple")])
    await interaction.followup.send("an autocomplete has no follow-ups")


BAD_AUTOCOMPLETE: dict[str, Callable[[Interaction], Awaitable[None]]] = {
    "message": lambda i: raw_callback(i, {"type": 4, "data": {"content": "not a choice"}}),
    "defer": lambda i: raw_callback(i, {"type": 5}),
    "many": lambda i: i.response.autocomplete(
        [app_commands.Choice(name=f"f{n}", value=f"f{n}") for n in range(26)]
    ),
    "long-name": lambda i: i.response.autocomplete(
        [app_commands.Choice(name=_long(101), value="x")]
    ),
    "wrong-type": lambda i: raw_callback(
        i, {"type": 8, "data": {"choices": [{"name": "one", "value": 1}]}}
    ),
    "late": _autocomplete_late,
    "followup": _autocomplete_followup,
}


@tiny.command(description="Answer the autocomplete of fruit wrongly on purpose")
async def badpick(interaction: Interaction, case: str, fruit: str) -> None:
    await interaction.response.send_message(f"{case}: {fruit}", ephemeral=True)


@badpick.autocomplete("fruit")
async def badpick_fruit(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    case = getattr(interaction.namespace, "case", None)
    if case not in BAD_AUTOCOMPLETE:
        return [app_commands.Choice(name=c, value=c) for c in BAD_AUTOCOMPLETE]
    try:
        await BAD_AUTOCOMPLETE[case](interaction)
    except discord.HTTPException as error:
        log.warning("badpick %s: HTTP %s code %s", case, error.status, error.code)
        if case == "late":  # too late for any answer: give up, as discord.py would not know
            interaction.response._response_type = (
                discord.InteractionResponseType.autocomplete_result
            )
    return []  # after a refused answer, discord.py answers these (no choices), which works


@admin.command(name="set", description="Set the counter of a board")
async def admin_set(
    interaction: Interaction, message_id: str, value: app_commands.Range[int, 0]
) -> None:
    await interaction.response.send_message(f"board {message_id} set to {value}", ephemeral=True)


@app_commands.command(name="tiny-where", description="Tell where this command runs")
@app_commands.allowed_installs(guilds=True, users=True)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
async def tiny_where(interaction: Interaction) -> None:
    await interaction.response.send_message(where(interaction))


@app_commands.command(name="tiny-here", description="A command for servers only")
@app_commands.guild_only()
async def tiny_here(interaction: Interaction) -> None:
    await interaction.response.send_message(where(interaction))


@app_commands.command(name="tiny-reset", description="Forget every board (managers only)")
@app_commands.default_permissions(manage_guild=True)
async def tiny_reset(interaction: Interaction) -> None:
    await interaction.response.send_message("reset", ephemeral=True)


LOCALIZED: dict[str, dict[str, str]] = {
    "locale": {"es-ES": "idioma", "de": "sprache"},
    "Tell the locales of this interaction": {
        "es-ES": "Dice los idiomas de esta interacción",
        "de": "Nennt die Sprachen dieser Interaktion",
    },
    "detail": {"es-ES": "detalle", "de": "detail"},
    "How much to tell": {"es-ES": "Cuánto contar", "de": "Wie viel erzählen"},
    "Short": {"es-ES": "Breve", "de": "Kurz"},
    "With the guild's preferred locale": {
        "es-ES": "Con el idioma preferido del servidor",
        "de": "Mit der bevorzugten Sprache des Servers",
    },
}
"""The Spanish and German of ``/tiny locale``; every other string stays English."""


class TinyTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        return LOCALIZED.get(string.message, {}).get(locale.value)


@tiny.command(name="locale", description="Tell the locales of this interaction")
@app_commands.describe(detail="How much to tell")
@app_commands.choices(
    detail=[
        app_commands.Choice(name="Short", value="short"),
        app_commands.Choice(name="With the guild's preferred locale", value="full"),
    ]
)
async def tell_locale(interaction: Interaction, detail: str = "short") -> None:
    guild_locale = interaction.guild_locale.value if interaction.guild_locale else None
    text = f"locale={interaction.locale.value} guild_locale={guild_locale}"
    if detail == "full" and isinstance(interaction.guild, discord.Guild):
        text += f" preferred={interaction.guild.preferred_locale.value}"
    await interaction.response.send_message(text)


class TinyBot(discord.Client):
    def __init__(
        self, store: Store, guild_id: int | None, *, members: bool, user_install: bool = False
    ) -> None:
        intents = discord.Intents.default()
        intents.members = members
        super().__init__(intents=intents)
        self.store = store
        self.guild_id = guild_id
        self.user_install = user_install
        self.tree = app_commands.CommandTree(self)
        self.tree.add_command(tiny)
        self.tree.add_command(tiny_reset)
        if user_install:
            self.tree.add_command(tiny_where)
            self.tree.add_command(tiny_here)

    async def setup_hook(self) -> None:
        await self.tree.set_translator(TinyTranslator())
        self.add_view(Board(self.store))
        self.add_view(DmButton())
        self.add_dynamic_items(Counter)
        if self.user_install:
            app = await self.application_info()
            await app.edit(
                guild_install_scopes=["applications.commands", "bot"],
                guild_install_permissions=discord.Permissions(send_messages=True),
                user_install_scopes=["applications.commands"],
            )
        if self.guild_id is None:
            await self.tree.sync()
        else:
            guild = discord.Object(self.guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)


HANDLERS = (
    "CommandTree-invoker",
    "discord-ui-view-dispatch",
    "discord-ui-dynamic-item",
    "discord-ui-modal-dispatch",
)
"""The names discord.py gives the task it runs each command, autocomplete, component or modal
handler in."""


def work_in_flight() -> int:
    """The interactions being handled (their tasks still running)."""
    return sum(task.get_name().startswith(HANDLERS) for task in asyncio.all_tasks())


async def serve_work(port: int) -> web.AppRunner:
    """``tholos_work_in_flight`` at ``/metrics`` on ``port`` (0: any), as the real bot's
    metrics server says it, for ``BotProcess.settle``; the log line names the address."""

    async def metrics(request: web.Request) -> web.Response:
        return web.Response(text=f"tholos_work_in_flight {work_in_flight()}\n")

    app = web.Application()
    app.router.add_get("/metrics", metrics)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    log.info("metrics and health on http://127.0.0.1:%d/metrics", runner.addresses[0][1])
    return runner


async def run(bot: TinyBot, token: str) -> None:
    """Run until SIGTERM, then close the connection cleanly (exit code 0)."""
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    metrics = await serve_work(int(os.environ.get("THOLOS_METRICS_PORT") or 0))
    async with bot:
        runner = asyncio.create_task(bot.start(token))
        stopper = asyncio.create_task(stop.wait())
        done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if runner in done:
            runner.result()
        stopper.cancel()
        await bot.close()
        await runner
    await metrics.cleanup()
    log.info("stopped")


def main() -> None:
    discord.utils.setup_logging(level=os.environ.get("LOG_LEVEL", "INFO"))
    base = os.environ.get("DISCORD_API_BASE")
    if base:
        use_api_base(base)
    guild = os.environ.get("THOLOS_GUILD_ID")
    members = os.environ.get("TINYBOT_MEMBERS_INTENT") == "1"
    user_install = os.environ.get("TINYBOT_USER_INSTALL") == "1"
    bot = TinyBot(
        Store(os.environ["THOLOS_DB"]),
        int(guild) if guild else None,
        members=members,
        user_install=user_install,
    )
    asyncio.run(run(bot, os.environ["DISCORD_TOKEN"]))


if __name__ == "__main__":
    main()
