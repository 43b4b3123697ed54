"""Messages and attachments: what the bot posted, edited or deleted, and who can see it."""

from __future__ import annotations

import contextlib
import copy
import io
import mimetypes
import re
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from . import openapi
from .model import JSON, Channel, User, iso_now, snowflake
from .rules import (
    ATTACHMENT_URL,
    EPHEMERAL,
    IS_COMPONENTS_V2,
    FormError,
    Rejection,
    check_message,
    legacy_field,
    media_urls,
    v2_flag_removed,
    walk_components,
)

SUPPRESS_EMBEDS = 1 << 2
HAS_THREAD = 1 << 5
LOADING = 1 << 7
SUPPRESS_NOTIFICATIONS = 1 << 12
MAX_REQUEST = 25 * 1024 * 1024
_SETTABLE_FLAGS = SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | IS_COMPONENTS_V2
_EDITABLE_FLAGS = SUPPRESS_EMBEDS | IS_COMPONENTS_V2  # an edit sets or clears these


@dataclass(frozen=True)
class Upload:
    """A file part (``files[n]``) of a multipart request."""

    index: int
    filename: str
    data: bytes


@dataclass(eq=False)
class Attachment:
    """A file attached to a message; ``data`` holds its bytes."""

    id: int
    filename: str
    data: bytes
    description: str | None = None

    @property
    def content_type(self) -> str:
        return mimetypes.guess_type(self.filename)[0] or "application/octet-stream"

    def image(self) -> Image.Image:
        """The attachment opened with Pillow (fully loaded)."""
        image = Image.open(io.BytesIO(self.data))
        image.load()
        return image

    def size(self) -> tuple[int, int] | None:
        """Width and height of an image (read from its header), None for other files."""
        if not self.content_type.startswith("image/"):
            return None
        with contextlib.suppress(OSError):
            return Image.open(io.BytesIO(self.data)).size
        return None

    def to_json(self, url: str, *, ephemeral: bool) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": url,
            "proxy_url": url,
            "content_type": self.content_type,
            "description": self.description,
            "ephemeral": ephemeral,
            "flags": 0,
        }
        size = self.size()
        if size is not None:
            data["width"], data["height"] = size
        return data


@dataclass(frozen=True)
class MediaItem:
    """An item of a components-v2 media gallery as a reader sees it: its URL (an
    ``attachment://`` reference resolved to the stored attachment's URL), description and
    spoiler; ``attachment`` is the attachment it shows (None for an external URL)."""

    url: str
    description: str | None
    spoiler: bool
    attachment: Attachment | None

    @property
    def data(self) -> bytes:
        """The bytes of the attachment shown (ValueError for an external URL)."""
        if self.attachment is None:
            raise ValueError(f"{self.url} is not an attachment of the message")
        return self.attachment.data

    def image(self) -> Image.Image:
        """The attachment shown, opened with Pillow."""
        if self.attachment is None:
            raise ValueError(f"{self.url} is not an attachment of the message")
        return self.attachment.image()


@dataclass(eq=False)
class Message:
    """A message as Discord stores it; ``visible_to`` is set for ephemeral messages, ``thread``
    for the starter message of a thread (with the HAS_THREAD flag), ``reference`` for a
    message that points at another one (a THREAD_CREATED notice points at its thread)."""

    id: int
    channel_id: int
    author: User
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    visible_to: int | None = None
    webhook_id: int | None = None
    interaction_metadata: JSON | None = None
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None
    deleted: bool = False
    edits: int = 0
    thread: Channel | None = None
    reference: JSON | None = None
    nonce: int | str | None = None
    mentions: list[int] = field(default_factory=list)
    """The users the message mentions and may ping, as its ``allowed_mentions`` let it: from
    its content and (v2) text displays, not its embeds; updated by edits."""
    pinged: list[int] = field(default_factory=list)
    """The users notified: ``mentions`` when it was posted (an edit notifies nobody, except the
    first one of a deferred response, which is when its text appears)."""
    allowed_mentions: list[JSON | None] = field(default_factory=list)
    """The ``allowed_mentions`` of its post and of each edit, in order (``None``: absent, and
    Discord parses every mention)."""
    base_url: str = ""
    """The emulator's address, for the attachment URLs of ``media_items`` (set when posted)."""

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while a deferred response still shows "<bot> is thinking..."."""
        return bool(self.flags & LOADING)

    def visible(self, viewer_id: int | None) -> bool:
        return not self.deleted and (self.visible_to is None or self.visible_to == viewer_id)

    def all_components(self) -> list[JSON]:
        """Every component, nested ones (v2 containers, sections) included."""
        return [c for _, c in walk_components(self.components)]

    def component(self, custom_id: str) -> JSON | None:
        """The component with this ``custom_id``, if the message has one."""
        return next((c for c in self.all_components() if c.get("custom_id") == custom_id), None)

    @property
    def buttons(self) -> list[JSON]:
        return [c for c in self.all_components() if c.get("type") == 2]

    @property
    def selects(self) -> list[JSON]:
        return [c for c in self.all_components() if c.get("type") in (3, 5, 6, 7, 8)]

    @property
    def is_v2(self) -> bool:
        """Whether the message has the IS_COMPONENTS_V2 flag (for good, once set)."""
        return bool(self.flags & IS_COMPONENTS_V2)

    @property
    def media_items(self) -> list[MediaItem]:
        """The items of every media gallery of the message (nested ones included), in order."""
        found: list[MediaItem] = []
        for component in self.all_components():
            if component.get("type") != 12:
                continue
            for item in component.get("items") or []:
                url = (item.get("media") or {}).get("url", "")
                attachment = self.attachment_named(url)
                if attachment is not None:
                    url = self.attachment_url(attachment)
                found.append(
                    MediaItem(url, item.get("description"), bool(item.get("spoiler")), attachment)
                )
        return found

    def attachment_named(self, url: object) -> Attachment | None:
        """The attachment of the message a media URL shows: ``attachment://NAME``, or the URL
        the emulator answered for it (what a library rebuilding the message sends back)."""
        if not isinstance(url, str):
            return None
        if url.startswith(ATTACHMENT_URL):
            name = url[len(ATTACHMENT_URL) :]
            return next((a for a in self.attachments if a.filename == name), None)
        return next((a for a in self.attachments if url == self.attachment_url(a)), None)

    def attachment_url(self, attachment: Attachment, base_url: str | None = None) -> str:
        """Where the emulator serves an attachment of the message (``base_url``: the
        emulator's address, by default the one the message was posted through)."""
        base = self.base_url if base_url is None else base_url
        return f"{base}/attachments/{self.channel_id}/{attachment.id}/{attachment.filename}"

    @property
    def text(self) -> str:
        """Content, embed texts and v2 text displays joined: what a reader sees as text."""
        parts = [self.content]
        for embed in self.embeds:
            parts += [embed.get("title") or "", embed.get("description") or ""]
            parts += [f"{f.get('name')}: {f.get('value')}" for f in embed.get("fields") or []]
            parts.append((embed.get("footer") or {}).get("text") or "")
        parts += [c.get("content") or "" for c in self.all_components() if c.get("type") == 10]
        return "\n".join(p for p in parts if p)

    def to_json(self, base_url: str) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "type": self.type,
            "author": self.author.to_json(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [
                a.to_json(self.attachment_url(a, base_url), ephemeral=self.ephemeral)
                for a in self.attachments
            ],
            "embeds": self.embeds,
            "components": self._rendered_components(base_url),
            "pinned": False,
            "flags": self.flags,
        }
        if self.nonce is not None:
            data["nonce"] = self.nonce
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
            data["application_id"] = str(self.webhook_id)
        if self.interaction_metadata is not None:
            data["interaction_metadata"] = self.interaction_metadata
        if self.thread is not None:
            data["thread"] = self.thread.to_json()
        if self.reference is not None:
            data["message_reference"] = self.reference
        return data

    def _rendered_components(self, base_url: str) -> list[JSON]:
        """The components as Discord answers them: unfurled media items that reference an
        attachment carry its URL, proxy URL, size, content type and id."""
        if not self.is_v2:
            return self.components
        components = copy.deepcopy(self.components)
        for _, component in walk_components(components):
            if component.get("type") == 13:  # a file component also names its file
                shown = self.attachment_named((component.get("file") or {}).get("url"))
                if shown is not None:
                    component.update(name=shown.filename, size=len(shown.data))
        for _, media in media_urls(components):
            attachment = self.attachment_named(media.get("url"))
            if attachment is None:
                media.setdefault("proxy_url", media.get("url"))
                continue
            url = self.attachment_url(attachment, base_url)
            media.update(
                url=url,
                proxy_url=url,
                content_type=attachment.content_type,
                attachment_id=str(attachment.id),
                loading_state=2,
                flags=0,
            )
            size = attachment.size()
            if size is not None:
                media["width"], media["height"] = size
        return components


def _attachments_after(
    existing: list[Attachment], payload: JSON, uploads: list[Upload]
) -> list[Attachment]:
    """The attachments a message has after a create/edit with ``payload`` and ``uploads``."""
    listed = payload.get("attachments")
    if not isinstance(listed, list):
        kept = list(existing)
        described: dict[int, JSON] = {}
    else:
        ids = {str(entry.get("id")) for entry in listed}
        kept = [a for a in existing if str(a.id) in ids]
        described = {int(e["id"]): e for e in listed if str(e.get("id", "")).isdigit()}
    new = []
    for upload in uploads:
        entry = described.get(upload.index, {})
        new.append(
            Attachment(
                id=snowflake(),
                filename=entry.get("filename") or upload.filename,
                data=upload.data,
                description=entry.get("description"),
            )
        )
    return kept + new


def compose(
    message: Message, payload: JSON, uploads: list[Upload], *, size_limit: int, creating: bool
) -> None:
    """Validate ``payload`` (and files) against Discord's limits, then apply it to ``message``.

    Raises Rejection, leaving ``message`` untouched, when Discord would refuse the request.
    """
    for upload in uploads:
        if len(upload.data) > size_limit:
            detail = f"{upload.filename} has {len(upload.data)} bytes, more than {size_limit}"
            raise Rejection(
                413, 40005, "Request entity too large", "attachments.size", detail=detail
            )
    if sum(len(u.data) for u in uploads) > MAX_REQUEST:
        detail = f"the files add up to more than {MAX_REQUEST} bytes"
        raise Rejection(413, 40005, "Request entity too large", "attachments.size", detail=detail)
    attachments = _attachments_after(message.attachments, payload, uploads)
    flags, errors = _flags_after(message, payload, creating=creating)
    errors += check_message(
        payload,
        attachment_count=len(attachments),
        flags=flags,
        attachment_names={a.filename for a in attachments},
        kept_urls={message.attachment_url(a) for a in attachments},
    )
    content = payload.get("content", message.content) or ""
    embeds = payload.get("embeds", message.embeds) or []
    if flags & IS_COMPONENTS_V2 and not errors:  # what the message keeps must be v2 too
        kept = {"content": content, "embeds": embeds}
        errors += [legacy_field(key) for key, value in kept.items() if value]
    if errors:
        raise Rejection.form(errors)
    components = payload.get("components", message.components) or []
    has_text_display = any(c.get("type") == 10 for _, c in walk_components(components))
    if not (
        content.strip() or embeds or attachments or has_text_display or _has_action(components)
    ):
        raise Rejection(400, 50006, "Cannot send an empty message", "message.empty")
    openapi.enforce()  # the published schema, after the emulator's own rules
    appearing = creating or message.loading
    message.flags = flags
    message.content = content
    message.embeds = [{"type": "rich", **e} for e in embeds]
    message.components = _with_ids(components)
    message.attachments = attachments
    message.mentions = mentioned(content, components, payload.get("allowed_mentions"))
    message.allowed_mentions.append(payload.get("allowed_mentions"))
    if appearing:
        message.pinged = list(message.mentions)
    if not creating:
        message.edited_timestamp = iso_now()
        message.edits += 1


def _flags_after(message: Message, payload: JSON, *, creating: bool) -> tuple[int, list[FormError]]:
    """The message's flags after a create/edit with ``payload``: a new message takes the
    settable flags it asks for; an edit that sends ``flags`` sets or clears SUPPRESS_EMBEDS and
    may set IS_COMPONENTS_V2, never clear it (``components.v2-flag-removed``); an edit without
    ``flags`` keeps them."""
    requested = payload.get("flags")
    if not isinstance(requested, int) or isinstance(requested, bool):
        return message.flags, []
    if creating:
        return message.flags | (requested & _SETTABLE_FLAGS), []
    if message.flags & IS_COMPONENTS_V2 and not requested & IS_COMPONENTS_V2:
        return message.flags, [v2_flag_removed()]
    return (message.flags & ~_EDITABLE_FLAGS) | (requested & _EDITABLE_FLAGS), []


_USER_MENTION = re.compile(r"<@!?(\d{1,20})>")


def mentioned(content: str, components: list[Any], allowed: object) -> list[int]:
    """The users a message's text mentions (content and v2 text displays; embeds never ping),
    in order, as ``allowed`` (its ``allowed_mentions``; absent: Discord parses every mention)
    lets them be."""
    texts = [content] + [
        c.get("content") or "" for _, c in walk_components(components) if c.get("type") == 10
    ]
    found = list(dict.fromkeys(int(i) for text in texts for i in _USER_MENTION.findall(text)))
    if not isinstance(allowed, dict):
        return found
    if "users" in (allowed.get("parse") or []):
        return found
    users = {int(user) for user in allowed.get("users") or []}
    return [user for user in found if user in users]


def _has_action(components: list[Any]) -> bool:
    return any(c.get("type") in (2, 3, 5, 6, 7, 8) for _, c in walk_components(components))


def _with_ids(components: list[JSON]) -> list[JSON]:
    """Number components without an ``id`` as Discord does (1, 2, ... in tree order)."""
    used = {c["id"] for _, c in walk_components(components) if isinstance(c.get("id"), int)}
    next_id = 1
    for _, component in walk_components(components):
        if not isinstance(component.get("id"), int):
            while next_id in used:
                next_id += 1
            component["id"] = next_id
            used.add(next_id)
    return components
