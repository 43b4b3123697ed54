"""Messages and attachments: what the bot posted, edited or deleted, and who can see it."""

from __future__ import annotations

import contextlib
import io
import mimetypes
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from .model import JSON, Channel, User, iso_now, snowflake
from .rules import EPHEMERAL, IS_COMPONENTS_V2, Rejection, check_message, walk_components

SUPPRESS_EMBEDS = 1 << 2
HAS_THREAD = 1 << 5
LOADING = 1 << 7
SUPPRESS_NOTIFICATIONS = 1 << 12
MAX_REQUEST = 25 * 1024 * 1024
_SETTABLE_FLAGS = SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | IS_COMPONENTS_V2


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
        if self.content_type.startswith("image/"):
            with contextlib.suppress(OSError):  # the header alone gives the size: no decoding
                data["width"], data["height"] = Image.open(io.BytesIO(self.data)).size
        return data


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
                a.to_json(
                    f"{base_url}/attachments/{self.channel_id}/{a.id}/{a.filename}",
                    ephemeral=self.ephemeral,
                )
                for a in self.attachments
            ],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "flags": self.flags,
        }
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
    requested = payload.get("flags") if isinstance(payload.get("flags"), int) else 0
    flags = message.flags | (requested & _SETTABLE_FLAGS)
    errors = check_message(payload, attachment_count=len(attachments), flags=flags)
    if errors:
        raise Rejection.form(errors)
    content = payload.get("content", message.content) or ""
    embeds = payload.get("embeds", message.embeds) or []
    components = payload.get("components", message.components) or []
    has_text_display = any(c.get("type") == 10 for _, c in walk_components(components))
    if not (
        content.strip() or embeds or attachments or has_text_display or _has_action(components)
    ):
        raise Rejection(400, 50006, "Cannot send an empty message", "message.empty")
    message.flags = flags
    message.content = content
    message.embeds = [{"type": "rich", **e} for e in embeds]
    message.components = _with_ids(components)
    message.attachments = attachments
    if not creating:
        message.edited_timestamp = iso_now()
        message.edits += 1


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
