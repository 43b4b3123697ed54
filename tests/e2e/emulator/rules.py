"""Discord's documented limits on messages, components, embeds, modals, commands and threads.

The checks return ``FormError``s; a request with any is answered HTTP 400, code 50035
"Invalid Form Body", with Discord's nested ``errors`` object, and each error is recorded as a
violation under its ``rule``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from .model import LOCALES

JSON = dict[str, Any]
Path = tuple[str | int, ...]

IS_COMPONENTS_V2 = 1 << 15
EPHEMERAL = 1 << 6

MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
MAX_ATTACHMENTS = 10
MAX_ROWS = 5
MAX_ROW_WIDTH = 5
MAX_CUSTOM_ID = 100
MAX_LABEL = 80
MAX_OPTIONS = 25
MAX_V2_COMPONENTS = 40
MAX_V2_TEXT = 4000
MAX_GALLERY_ITEMS = 10
MAX_MEDIA_DESCRIPTION = 1024
MAX_NONCE = 25
ATTACHMENT_URL = "attachment://"
MAX_THREAD_NAME = 100
MAX_RATE_LIMIT = 21600
ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)
THREAD_TYPES = (10, 11, 12)
AUTOCOMPLETE_TYPES = (3, 4, 10)  # string, integer, number
MAX_COMMAND_NAME = 32
MAX_DESCRIPTION = 100
MAX_CHOICE_NAME = 100
LOCALIZATION = "commands.localization"
MAX_AUTOCOMPLETE_CHOICES = 25
CONTEXTS = (0, 1, 2)  # GUILD, BOT_DM, PRIVATE_CHANNEL
INTEGRATION_TYPES = (0, 1)  # GUILD_INSTALL, USER_INSTALL

_SELECTS = {3, 5, 6, 7, 8}
_EMBED_URLS = [
    ("url",),
    ("image", "url"),
    ("thumbnail", "url"),
    ("author", "url"),
    ("author", "icon_url"),
    ("footer", "icon_url"),
]
_V2_TOP = {1, 9, 10, 12, 13, 14, 17}
_V2_IN_CONTAINER = {1, 9, 10, 12, 13, 14}


@dataclass(frozen=True)
class FormError:
    """One entry of an "Invalid Form Body" answer."""

    path: Path
    code: str
    message: str
    rule: str
    detail: str = ""
    """What the violation adds to Discord's message (e.g. the schema error); not sent."""

    def __str__(self) -> str:
        extra = f" ({self.detail})" if self.detail else ""
        return f"{'.'.join(map(str, self.path))}: {self.message}{extra}"


class Rejection(Exception):
    """A request Discord would refuse: the status, error code and message it would answer."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        rule: str,
        errors: list[FormError] | None = None,
        detail: str = "",
        *,
        violation: bool = True,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.rule = rule
        self.errors = errors or []
        self.detail = detail or message
        self.violation = violation
        """False for Discord's normal answer to a request a bot must expect to fail (a user
        who closed their DMs): answered, not recorded as a broken rule."""

    @classmethod
    def form(cls, errors: list[FormError]) -> Rejection:
        """HTTP 400, code 50035 "Invalid Form Body" for ``errors``."""
        return cls(400, 50035, "Invalid Form Body", "form", errors)

    def body(self) -> JSON:
        data: JSON = {"message": self.message, "code": self.code}
        if self.errors:
            tree: JSON = {}
            for error in self.errors:
                node = tree
                for key in error.path:
                    node = node.setdefault(str(key), {})
                node.setdefault("_errors", []).append(
                    {"code": error.code, "message": error.message}
                )
            data["errors"] = tree
        return data


def _too_long(path: Path, value: object, limit: int, rule: str) -> list[FormError]:
    if isinstance(value, str) and len(value) > limit:
        msg = f"Must be {limit} or fewer in length."
        return [FormError(path, "BASE_TYPE_MAX_LENGTH", msg, rule)]
    return []


def _required(path: Path, rule: str) -> FormError:
    return FormError(path, "BASE_TYPE_REQUIRED", "This field is required", rule)


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


# Messages -----------------------------------------------------------------------------------


def check_message(
    payload: JSON,
    *,
    attachment_count: int,
    flags: int,
    attachment_names: Collection[str] | None = None,
    kept_urls: Collection[str] = (),
) -> list[FormError]:
    """Check a message create/edit body: the message would carry ``attachment_count`` files
    (named ``attachment_names``, when known: what ``attachment://`` URLs may name; an edit may
    also show the files it keeps by their URLs, ``kept_urls``) and have ``flags``."""
    errors: list[FormError] = []
    content = payload.get("content")
    errors += _too_long(("content",), content, MAX_CONTENT, "content.length")
    embeds = payload.get("embeds")
    if isinstance(embeds, list):
        errors += check_embeds(embeds)
    if flags & IS_COMPONENTS_V2:
        errors += _check_legacy_fields(payload)
    components = payload.get("components")
    if isinstance(components, list):
        if flags & IS_COMPONENTS_V2:
            errors += _check_v2(components, attachment_names, kept_urls)
        else:
            errors += _check_classic(components)
    errors += _check_allowed_mentions(payload.get("allowed_mentions"))
    for i, entry in enumerate(_list(payload.get("attachments"))):
        where = ("attachments", i, "description")
        errors += _too_long(where, entry.get("description"), 1024, "attachments.description")
    if attachment_count > MAX_ATTACHMENTS:
        errors.append(
            FormError(
                ("attachments",),
                "BASE_TYPE_MAX_LENGTH",
                f"Must be {MAX_ATTACHMENTS} or fewer in length.",
                "attachments.count",
            )
        )
    return errors


def check_embeds(embeds: list[Any]) -> list[FormError]:
    """Embed limits: 10 embeds, title 256, description 4096, 25 fields, total 6000..."""
    errors: list[FormError] = []
    if len(embeds) > MAX_EMBEDS:
        msg = f"Must be {MAX_EMBEDS} or fewer in length."
        errors.append(FormError(("embeds",), "BASE_TYPE_MAX_LENGTH", msg, "embeds.count"))
    total = 0
    for i, embed in enumerate(embeds):
        if not isinstance(embed, dict):
            continue
        at: Path = ("embeds", i)
        title, description = embed.get("title"), embed.get("description")
        footer = (embed.get("footer") or {}).get("text")
        author = (embed.get("author") or {}).get("name")
        errors += _too_long((*at, "title"), title, 256, "embed.title")
        errors += _too_long((*at, "description"), description, 4096, "embed.description")
        errors += _too_long((*at, "footer", "text"), footer, 2048, "embed.footer")
        errors += _too_long((*at, "author", "name"), author, 256, "embed.author-name")
        color = embed.get("color")
        if color is not None and not (isinstance(color, int) and 0 <= color <= 0xFFFFFF):
            msg = "int value should be less than or equal to 16777215."
            errors.append(FormError((*at, "color"), "NUMBER_TYPE_MAX", msg, "embed.color"))
        for path in _EMBED_URLS:
            node: Any = embed
            for key in path:
                node = node.get(key) if isinstance(node, dict) else None
            if node is not None and not _is_url(node, "http://", "https://", "attachment://"):
                msg = "Not a well formed URL."
                errors.append(FormError((*at, *path), "URL_TYPE_INVALID_URL", msg, "embed.url"))
        fields = _list(embed.get("fields"))
        if len(fields) > 25:
            msg = "Must be 25 or fewer in length."
            errors.append(FormError((*at, "fields"), "BASE_TYPE_MAX_LENGTH", msg, "embed.fields"))
        for j, fld in enumerate(fields):
            name, value = fld.get("name"), fld.get("value")
            for key, text, limit in (("name", name, 256), ("value", value, 1024)):
                where = (*at, "fields", j, key)
                if not isinstance(text, str) or not text.strip():
                    errors.append(_required(where, f"embed.field-{key}"))
                else:
                    errors += _too_long(where, text, limit, f"embed.field-{key}")
            total += sum(len(t) for t in (name, value) if isinstance(t, str))
        total += sum(len(t) for t in (title, description, footer, author) if isinstance(t, str))
    if total > MAX_EMBED_TOTAL:
        msg = f"Embed size exceeds maximum size of {MAX_EMBED_TOTAL}"
        errors.append(FormError(("embeds",), "MAX_EMBED_SIZE_EXCEEDED", msg, "embed.total"))
    return errors


def _is_url(value: object, *schemes: str) -> bool:
    return isinstance(value, str) and value.startswith(schemes) and len(value) > len("https://")


def _check_allowed_mentions(mentions: object) -> list[FormError]:
    if not isinstance(mentions, dict):
        return []
    errors: list[FormError] = []
    parse = _list(mentions.get("parse"))
    for kind in ("users", "roles"):
        listed = _list(mentions.get(kind))
        if kind in parse and listed:
            msg = f'parse:["{kind}"] and {kind}: [ids] are mutually exclusive.'
            code = "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE"
            errors.append(FormError(("allowed_mentions", "parse"), code, msg, "allowed-mentions"))
        if len(listed) > 100:
            msg = "Must be 100 or fewer in length."
            where = ("allowed_mentions", kind)
            errors.append(FormError(where, "BASE_TYPE_MAX_LENGTH", msg, "allowed-mentions"))
    return errors


def _check_classic(components: list[Any]) -> list[FormError]:
    errors: list[FormError] = []
    if len(components) > MAX_ROWS:
        msg = f"Must be {MAX_ROWS} or fewer in length."
        errors.append(FormError(("components",), "BASE_TYPE_MAX_LENGTH", msg, "components.rows"))
    for i, row in enumerate(components):
        if row.get("type") != 1:
            msg = 'Value of field "type" must be one of (1,).'
            errors.append(
                FormError(("components", i, "type"), "UNION_TYPE_CHOICES", msg, "components.layout")
            )
            continue
        errors += _check_row(("components", i), row)
    return errors + _check_custom_ids(components)


def _check_row(at: Path, row: JSON) -> list[FormError]:
    errors: list[FormError] = []
    children = _list(row.get("components"))
    where = (*at, "components")
    if not 1 <= len(children) <= MAX_ROW_WIDTH:
        msg = f"Must be between 1 and {MAX_ROW_WIDTH} in length."
        errors.append(FormError(where, "BASE_TYPE_BAD_LENGTH", msg, "components.row-width"))
    if len(children) > 1 and any(c.get("type") in _SELECTS for c in children):
        msg = "The specified component exceeds the maximum width"
        errors.append(
            FormError(where, "COMPONENT_LAYOUT_WIDTH_EXCEEDED", msg, "components.select-alone")
        )
    for j, child in enumerate(children):
        kind = child.get("type")
        if kind == 2:
            errors += _check_button((*where, j), child)
        elif kind in _SELECTS:
            errors += _check_select((*where, j), child)
        else:
            msg = 'Value of field "type" must be one of (2, 3, 5, 6, 7, 8).'
            errors.append(
                FormError((*where, j, "type"), "UNION_TYPE_CHOICES", msg, "components.layout")
            )
    return errors


def _check_button(at: Path, button: JSON) -> list[FormError]:
    errors = _too_long((*at, "label"), button.get("label"), MAX_LABEL, "components.label-length")
    style = button.get("style")
    if style == 5:
        if not _is_url(button.get("url"), "http://", "https://", "discord://"):
            msg = "Not a well formed URL."
            errors.append(
                FormError((*at, "url"), "URL_TYPE_INVALID_URL", msg, "components.link-button")
            )
        if "custom_id" in button:
            msg = "A link button cannot have a custom_id"
            errors.append(
                FormError(
                    (*at, "custom_id"),
                    "BUTTON_COMPONENT_CUSTOM_ID_FORBIDDEN",
                    msg,
                    "components.link-button",
                )
            )
    elif style != 6:
        errors += _check_custom_id(at, button)
    if not button.get("label") and not button.get("emoji") and style != 6:
        msg = "A button must have a label or an emoji"
        errors.append(
            FormError(
                (*at, "label"),
                "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED",
                msg,
                "components.label-missing",
            )
        )
    return errors


def _check_select(at: Path, select: JSON) -> list[FormError]:
    errors = _check_custom_id(at, select)
    errors += _too_long((*at, "placeholder"), select.get("placeholder"), 150, "select.placeholder")
    options = _list(select.get("options"))
    count = len(options) if select.get("type") == 3 else MAX_OPTIONS
    if select.get("type") == 3 and not 1 <= len(options) <= MAX_OPTIONS:
        msg = f"Must be between 1 and {MAX_OPTIONS} in length."
        errors.append(FormError((*at, "options"), "BASE_TYPE_BAD_LENGTH", msg, "select.options"))
    seen: set[str] = set()
    for k, option in enumerate(options):
        for key in ("label", "value", "description"):
            errors += _too_long((*at, "options", k, key), option.get(key), 100, "select.option")
        if option.get("value") in seen:
            msg = "Select component option values must be unique"
            errors.append(
                FormError(
                    (*at, "options", k, "value"),
                    "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                    msg,
                    "select.option",
                )
            )
        seen.add(option.get("value"))
    low, high = select.get("min_values", 1), select.get("max_values", 1)
    if not (0 <= low <= MAX_OPTIONS and 1 <= high <= MAX_OPTIONS and low <= high <= count):
        msg = f"min_values/max_values must satisfy 0 <= min <= max <= {min(count, MAX_OPTIONS)}"
        errors.append(FormError((*at, "max_values"), "BASE_TYPE_BAD_INT", msg, "select.values"))
    return errors


def _check_custom_id(at: Path, component: JSON) -> list[FormError]:
    custom_id = component.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        return [_required((*at, "custom_id"), "components.custom-id-missing")]
    return _too_long((*at, "custom_id"), custom_id, MAX_CUSTOM_ID, "components.custom-id-length")


def walk_components(components: list[Any], at: Path = ("components",)) -> list[tuple[Path, JSON]]:
    """Every component of a message, nested ones included, with its path."""
    found: list[tuple[Path, JSON]] = []
    for i, component in enumerate(components):
        if not isinstance(component, dict):
            continue
        here = (*at, i)
        found.append((here, component))
        found += walk_components(_list(component.get("components")), (*here, "components"))
        for key in ("accessory", "component"):
            child = component.get(key)
            if isinstance(child, dict):
                found.append(((*here, key), child))
    return found


def _check_custom_ids(components: list[Any]) -> list[FormError]:
    errors: list[FormError] = []
    seen: set[str] = set()
    for path, component in walk_components(components):
        custom_id = component.get("custom_id")
        if not isinstance(custom_id, str):
            continue
        if custom_id in seen:
            msg = "Component custom id cannot be duplicated"
            errors.append(
                FormError(
                    (*path, "custom_id"),
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    msg,
                    "components.custom-id-unique",
                )
            )
        seen.add(custom_id)
    return errors


def _check_legacy_fields(payload: JSON) -> list[FormError]:
    """A components-v2 message (new, edited or converted) has no ``content`` or ``embeds``: a
    body may only send them empty (or null)."""
    return [legacy_field(key) for key in ("content", "embeds") if payload.get(key)]


def legacy_field(key: str) -> FormError:
    """The error for ``content`` or ``embeds`` on a components-v2 message."""
    msg = f"{key} cannot be used with the IS_COMPONENTS_V2 flag"
    return FormError(
        (key,),
        "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
        msg,
        "components.v2-legacy-fields",
    )


def v2_flag_removed() -> FormError:
    """The error for an edit whose ``flags`` lack IS_COMPONENTS_V2 on a components-v2 message."""
    msg = "The IS_COMPONENTS_V2 flag cannot be removed from a message once set"
    return FormError(
        ("flags",), "MESSAGE_CANNOT_REMOVE_COMPONENTS_V2_FLAG", msg, "components.v2-flag-removed"
    )


def media_urls(components: list[Any]) -> list[tuple[Path, JSON]]:
    """Every unfurled media item of components-v2 ``components`` (thumbnails' and media
    gallery items' ``media``, file components' ``file``) with its path."""
    found: list[tuple[Path, JSON]] = []
    for path, component in walk_components(components):
        kind = component.get("type")
        if kind == 11 and isinstance(component.get("media"), dict):
            found.append(((*path, "media"), component["media"]))
        elif kind == 13 and isinstance(component.get("file"), dict):
            found.append(((*path, "file"), component["file"]))
        elif kind == 12:
            for k, item in enumerate(_list(component.get("items"))):
                if isinstance(item, dict) and isinstance(item.get("media"), dict):
                    found.append(((*path, "items", k, "media"), item["media"]))
    return found


def _check_media(
    components: list[Any], attachment_names: Collection[str] | None, kept_urls: Collection[str]
) -> list[FormError]:
    """Media galleries hold 1 to 10 items; gallery items and thumbnails have descriptions of at
    most 1024 characters; a file component shows an attachment (``attachment://NAME``, or on
    an edit the URL Discord answered for a file the message keeps, which is what a library
    rebuilding the message sends back); every ``attachment://NAME`` names an attachment the
    message has after this request (``attachment_names``)."""
    errors: list[FormError] = []
    for path, component in walk_components(components):
        kind = component.get("type")
        if kind == 12:
            items = _list(component.get("items"))
            if not 1 <= len(items) <= MAX_GALLERY_ITEMS:
                msg = f"Must be between 1 and {MAX_GALLERY_ITEMS} in length."
                errors.append(
                    FormError(
                        (*path, "items"), "BASE_TYPE_BAD_LENGTH", msg, "components.v2-gallery-items"
                    )
                )
            for k, item in enumerate(items):
                if isinstance(item, dict):
                    where = (*path, "items", k, "description")
                    errors += _too_long(
                        where,
                        item.get("description"),
                        MAX_MEDIA_DESCRIPTION,
                        "components.v2-description",
                    )
        elif kind == 11:
            errors += _too_long(
                (*path, "description"),
                component.get("description"),
                MAX_MEDIA_DESCRIPTION,
                "components.v2-description",
            )
    for path, media in media_urls(components):
        url = media.get("url")
        if not isinstance(url, str):
            continue
        if path[-1] == "file" and not (url.startswith(ATTACHMENT_URL) or url in kept_urls):
            msg = "A file component only supports attachment:// references"
            errors.append(
                FormError((*path, "url"), "URL_TYPE_INVALID_URL", msg, "components.v2-attachment")
            )
        elif url.startswith(ATTACHMENT_URL) and attachment_names is not None:
            name = url[len(ATTACHMENT_URL) :]
            if name not in attachment_names:
                msg = f"Unknown attachment {name!r}: upload it in this request or keep it"
                errors.append(
                    FormError(
                        (*path, "url"),
                        "MEDIA_ATTACHMENT_NOT_FOUND",
                        msg,
                        "components.v2-attachment",
                    )
                )
    return errors


def check_nonce(payload: JSON) -> list[FormError]:
    """A message's ``nonce``: an integer, or a string of at most 25 characters."""
    nonce = payload.get("nonce")
    if nonce is None or (isinstance(nonce, int) and not isinstance(nonce, bool)):
        return []
    if isinstance(nonce, str):
        return _too_long(("nonce",), nonce, MAX_NONCE, "message.nonce")
    msg = "Must be an integer or a string."
    return [FormError(("nonce",), "BASE_TYPE_INVALID", msg, "message.nonce")]


def _check_v2(
    components: list[Any], attachment_names: Collection[str] | None, kept_urls: Collection[str]
) -> list[FormError]:
    errors = _check_media(components, attachment_names, kept_urls)
    every = walk_components(components)
    if len(every) > MAX_V2_COMPONENTS:
        msg = f"Must be {MAX_V2_COMPONENTS} or fewer in length."
        errors.append(
            FormError(("components",), "BASE_TYPE_MAX_LENGTH", msg, "components.v2-count")
        )
    text = sum(len(c.get("content") or "") for _, c in every if c.get("type") == 10)
    if text > MAX_V2_TEXT:
        msg = f"Text display content must be {MAX_V2_TEXT} or fewer characters in total."
        errors.append(FormError(("components",), "BASE_TYPE_MAX_LENGTH", msg, "components.v2-text"))
    for path, component in every:
        kind = component.get("type")
        allowed = _V2_TOP if len(path) == 2 else None
        if path[-2:-1] == ("components",) and len(path) == 4:
            parent = components[path[1]].get("type")
            allowed = _V2_IN_CONTAINER if parent == 17 else None
        if allowed is not None and kind not in allowed:
            msg = f"Component type {kind} is not allowed here"
            errors.append(
                FormError((*path, "type"), "UNION_TYPE_CHOICES", msg, "components.layout")
            )
        if kind == 1:
            errors += _check_row(path, component)
        elif kind == 2 and path[-1] == "accessory":
            errors += _check_button(path, component)
    return errors + _check_custom_ids(components)


# Modals -------------------------------------------------------------------------------------


def check_modal(data: JSON) -> list[FormError]:
    """A modal (interaction response type 9): title 45, custom_id 100, 1 to 5 components."""
    errors = _check_custom_id((), data)
    title = data.get("title")
    if not isinstance(title, str) or not title:
        errors.append(_required(("title",), "modal.title"))
    errors += _too_long(("title",), title, 45, "modal.title")
    components = _list(data.get("components"))
    if not 1 <= len(components) <= 5:
        msg = "Must be between 1 and 5 in length."
        errors.append(FormError(("components",), "BASE_TYPE_BAD_LENGTH", msg, "modal.components"))
    for path, component in walk_components(components):
        if component.get("type") == 4:
            errors += _check_custom_id(path, component)
            errors += _too_long((*path, "label"), component.get("label"), 45, "modal.label")
            errors += _too_long((*path, "value"), component.get("value"), 4000, "modal.value")
        if component.get("type") == 18:
            errors += _too_long((*path, "label"), component.get("label"), 45, "modal.label")
    return errors + _check_custom_ids(components)


# Application commands -----------------------------------------------------------------------


def check_commands(commands: list[Any]) -> list[FormError]:
    """A bulk command registration: names, descriptions, options, choices, duplicates."""
    errors: list[FormError] = []
    seen: set[tuple[int, str]] = set()
    for i, command in enumerate(commands):
        kind = command.get("type", 1)
        key = (kind, command.get("name"))
        if key in seen:
            msg = "Application command names must be unique"
            errors.append(
                FormError(
                    (i, "name"), "APPLICATION_COMMANDS_DUPLICATE_NAME", msg, "commands.duplicate"
                )
            )
        seen.add(key)
        errors += _check_command((i,), command, chat_input=kind == 1, top=True)
        errors += _check_kinds(
            (i, "contexts"), command.get("contexts"), CONTEXTS, "commands.contexts"
        )
        errors += _check_kinds(
            (i, "integration_types"),
            command.get("integration_types"),
            INTEGRATION_TYPES,
            "commands.integration-types",
        )
    if sum(1 for c in commands if c.get("type", 1) == 1) > 100:
        msg = "Must be 100 or fewer in length."
        errors.append(FormError((), "BASE_TYPE_MAX_LENGTH", msg, "commands.count"))
    return errors


def _check_kinds(at: Path, value: object, allowed: tuple[int, ...], rule: str) -> list[FormError]:
    """``contexts`` or ``integration_types`` of a command: null, or a non-empty list of
    distinct values of ``allowed``."""
    if value is None:
        return []
    if not isinstance(value, list) or not value:
        msg = "Must be a non-empty list (or null)."
        return [FormError(at, "BASE_TYPE_MIN_LENGTH", msg, rule)]
    errors: list[FormError] = []
    for k, kind in enumerate(value):
        if isinstance(kind, bool) or kind not in allowed:
            msg = f"Value must be one of {_choices(allowed)}."
            errors.append(FormError((*at, k), "BASE_TYPE_CHOICES", msg, rule))
    if len({str(v) for v in value}) != len(value):
        errors.append(
            FormError(at, "LIST_ITEM_VALUE_DUPLICATE", "List items must be unique.", rule)
        )
    return errors


def _deva_or_thai(ch: str) -> bool:
    """A character of the Devanagari or Thai script (``\\p{sc=Deva}``, ``\\p{sc=Thai}``), whose
    vowel signs are not letters."""
    code = ord(ch)
    return (
        (0x0900 <= code <= 0x0950 or 0x0955 <= code <= 0x0963 or 0x0966 <= code <= 0x097F)
        or 0xA8E0 <= code <= 0xA8FF
        or 0x0E01 <= code <= 0x0E3A
        or 0x0E40 <= code <= 0x0E5B
    )


def valid_name(name: object, *, chat_input: bool) -> bool:
    """Discord's naming of commands and options: 1 to 32 characters; for CHAT_INPUT commands
    and their options ``^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$``, lowercase where a
    letter has a lowercase variant. Context-menu names may have capitals and spaces."""
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_COMMAND_NAME:
        return False
    if not chat_input:
        return True
    return name == name.lower() and all(
        ch.isalnum() or ch in "-_'" or _deva_or_thai(ch) for ch in name
    )


def _check_command(
    at: Path, command: JSON, *, chat_input: bool, top: bool = False
) -> list[FormError]:
    """A command (``top``), a subcommand (group) or an option at ``at``."""
    errors: list[FormError] = []
    name = command.get("name")
    if not valid_name(name, chat_input=chat_input):
        msg = f"Command name is invalid: {name!r}"
        errors.append(
            FormError((*at, "name"), "APPLICATION_COMMAND_INVALID_NAME", msg, "commands.name")
        )
    description = command.get("description", "")
    if chat_input and not (isinstance(description, str) and 1 <= len(description) <= 100):
        msg = "Must be between 1 and 100 in length."
        errors.append(
            FormError((*at, "description"), "BASE_TYPE_BAD_LENGTH", msg, "commands.description")
        )
    errors += _check_name_localizations(at, command, chat_input=chat_input, top=top)[0]
    errors += _check_description_localizations(at, command, chat_input=chat_input)
    options = _list(command.get("options"))
    if len(options) > 25:
        msg = "Must be 25 or fewer in length."
        errors.append(FormError((*at, "options"), "BASE_TYPE_MAX_LENGTH", msg, "commands.options"))
    optional_seen = False
    names: set[str] = set()
    localized: dict[str, set[str]] = {}  # locale -> the localized names of earlier siblings
    for j, option in enumerate(options):
        where = (*at, "options", j)
        if option.get("name") in names:
            msg = "Option names must be unique"
            errors.append(
                FormError(
                    (*where, "name"),
                    "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME",
                    msg,
                    "commands.options",
                )
            )
        names.add(option.get("name"))
        errors += _check_unique_localized_names(where, option, localized)
        if option.get("type") in (1, 2):
            errors += _check_command(where, option, chat_input=True)
            continue
        errors += _check_command(where, {**option, "options": []}, chat_input=True)
        if option.get("required"):
            if optional_seen:
                msg = "Required options must be placed before non-required options"
                errors.append(
                    FormError(
                        (*where, "required"),
                        "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                        msg,
                        "commands.option-order",
                    )
                )
        else:
            optional_seen = True
        choices = _list(option.get("choices"))
        errors += _check_autocomplete_option(where, option, choices)
        if len(choices) > 25:
            msg = "Must be 25 or fewer in length."
            errors.append(
                FormError((*where, "choices"), "BASE_TYPE_MAX_LENGTH", msg, "commands.choices")
            )
        for k, choice in enumerate(choices):
            label = choice.get("name")
            if not isinstance(label, str) or not 1 <= len(label) <= 100:
                msg = "Must be between 1 and 100 in length."
                errors.append(
                    FormError(
                        (*where, "choices", k, "name"),
                        "BASE_TYPE_BAD_LENGTH",
                        msg,
                        "commands.choices",
                    )
                )
            errors += _too_long(
                (*where, "choices", k, "value"), choice.get("value"), 100, "commands.choices"
            )
            errors += _check_choice_localizations((*where, "choices", k), choice)
    return errors


def _localizations(at: Path, node: JSON, key: str) -> tuple[list[FormError], dict[str, str]]:
    """The localization dictionary ``key`` of ``node`` (absent or null: none): errors on its
    shape, its locales (one of Discord's ``LOCALES``) and its values (strings), and the valid
    entries."""
    value = node.get(key)
    if value is None:
        return [], {}
    if not isinstance(value, dict):
        msg = "Only dictionaries may be used in a DictType"
        return [FormError((*at, key), "DICT_TYPE_CONVERT", msg, LOCALIZATION)], {}
    errors: list[FormError] = []
    valid: dict[str, str] = {}
    for locale, text in value.items():
        if locale not in LOCALES:
            msg = f"Invalid locale {locale!r}: value must be one of {_choices(LOCALES)}."
            errors.append(FormError((*at, key, locale), "BASE_TYPE_CHOICES", msg, LOCALIZATION))
        elif not isinstance(text, str):
            msg = "Must be a string."
            errors.append(FormError((*at, key, locale), "BASE_TYPE_STRING", msg, LOCALIZATION))
        else:
            valid[locale] = text
    return errors, valid


def _check_name_localizations(
    at: Path, node: JSON, *, chat_input: bool, top: bool
) -> tuple[list[FormError], dict[str, str]]:
    """``name_localizations`` of a command or option: each name follows the rules of the
    default name. Discord reports a command's bad names on the dictionary, an option's under
    its locale. Also returns the valid entries."""
    errors, names = _localizations(at, node, "name_localizations")
    for locale, text in names.items():
        if not valid_name(text, chat_input=chat_input):
            where = (*at, "name_localizations") if top else (*at, "name_localizations", locale)
            msg = f"Command name is invalid: {text!r} ({locale})"
            errors.append(FormError(where, "APPLICATION_COMMAND_INVALID_NAME", msg, LOCALIZATION))
    return errors, names


def _check_description_localizations(at: Path, node: JSON, *, chat_input: bool) -> list[FormError]:
    """``description_localizations``: 1 to 100 characters each (for CHAT_INPUT commands and
    options; a context menu has no description)."""
    errors, texts = _localizations(at, node, "description_localizations")
    for locale, text in texts.items():
        if chat_input and not 1 <= len(text) <= MAX_DESCRIPTION:
            msg = f"Must be between 1 and {MAX_DESCRIPTION} in length."
            where = (*at, "description_localizations", locale)
            errors.append(FormError(where, "BASE_TYPE_BAD_LENGTH", msg, LOCALIZATION))
    return errors


def _check_unique_localized_names(
    where: Path, option: JSON, seen: dict[str, set[str]]
) -> list[FormError]:
    """Sibling options may not share a localized name in one locale; ``seen`` collects the
    localized names of the siblings before ``option``."""
    errors: list[FormError] = []
    _, names = _localizations(where, option, "name_localizations")
    for locale, text in names.items():
        if text in seen.setdefault(locale, set()):
            msg = f"Option names must be unique: {text!r} ({locale})"
            errors.append(
                FormError(
                    (*where, "name_localizations", locale),
                    "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME",
                    msg,
                    LOCALIZATION,
                )
            )
        seen[locale].add(text)
    return errors


def _check_choice_localizations(at: Path, choice: JSON) -> list[FormError]:
    """A choice's ``name_localizations``: 1 to 100 characters each."""
    errors, names = _localizations(at, choice, "name_localizations")
    for locale, text in names.items():
        if not 1 <= len(text) <= MAX_CHOICE_NAME:
            msg = f"Must be between 1 and {MAX_CHOICE_NAME} in length."
            where = (*at, "name_localizations", locale)
            errors.append(FormError(where, "BASE_TYPE_BAD_LENGTH", msg, LOCALIZATION))
    return errors


def _check_autocomplete_option(where: Path, option: JSON, choices: list[Any]) -> list[FormError]:
    """``autocomplete`` only on string, integer and number options, and never with choices."""
    if not option.get("autocomplete"):
        return []
    at = (*where, "autocomplete")
    if option.get("type") not in AUTOCOMPLETE_TYPES:
        msg = "Autocomplete cannot be configured for this type of option"
        return [
            FormError(at, "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID", msg, "commands.autocomplete")
        ]
    if choices:
        msg = "Autocomplete and choices cannot both be set"
        return [
            FormError(at, "APPLICATION_COMMAND_AUTOCOMPLETE_CHOICES", msg, "commands.autocomplete")
        ]
    return []


# Autocomplete answers -----------------------------------------------------------------------


def check_autocomplete(data: object, option_type: int) -> list[FormError]:
    """The ``data`` of an APPLICATION_COMMAND_AUTOCOMPLETE_RESULT (callback type 8) for a focused
    option of ``option_type``: 0 to 25 choices of a 1..100-character name and a value of the
    option's type (a string of at most 100 characters, an integer, a number)."""
    if not isinstance(data, dict) or not isinstance(data.get("choices", []), list | None):
        msg = "Must be an object with a list of choices."
        return [FormError(("data", "choices"), "BASE_TYPE_REQUIRED", msg, "autocomplete.choices")]
    choices = data.get("choices") or []
    errors: list[FormError] = []
    if len(choices) > MAX_AUTOCOMPLETE_CHOICES:
        msg = f"Must be {MAX_AUTOCOMPLETE_CHOICES} or fewer in length."
        errors.append(
            FormError(("data", "choices"), "BASE_TYPE_MAX_LENGTH", msg, "autocomplete.choices")
        )
    for k, choice in enumerate(choices):
        at = ("data", "choices", k)
        if not isinstance(choice, dict):
            errors.append(_required(at, "autocomplete.choices"))
            continue
        name = choice.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            msg = "Must be between 1 and 100 in length."
            errors.append(
                FormError((*at, "name"), "BASE_TYPE_BAD_LENGTH", msg, "autocomplete.choice-name")
            )
        errors += _check_choice_value((*at, "value"), choice.get("value"), option_type)
    return errors


def _check_choice_value(at: Path, value: object, option_type: int) -> list[FormError]:
    rule = "autocomplete.choice-value"
    if option_type == 3:
        if not isinstance(value, str):
            return [FormError(at, "BASE_TYPE_STRING", "Must be a string.", rule)]
        return _too_long(at, value, 100, rule)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return [FormError(at, "NUMBER_TYPE_COERCE", f"Value {value!r} is not a number.", rule)]
    if option_type == 4 and not (isinstance(value, int) and abs(value) < 2**53):
        return [FormError(at, "NUMBER_TYPE_COERCE", f"Value {value!r} is not int.", rule)]
    return []


# Application --------------------------------------------------------------------------------


def check_application(payload: JSON) -> list[FormError]:
    """``PATCH /applications/@me``: ``integration_types_config`` maps install types (``"0"``
    guild, ``"1"`` user) to their settings."""
    config = payload.get("integration_types_config")
    if not isinstance(config, dict):
        return []
    return [
        FormError(
            ("integration_types_config", key),
            "BASE_TYPE_CHOICES",
            f"Invalid integration type {key!r}: value must be one of {_choices(('0', '1'))}.",
            "application.integration-types",
        )
        for key in config
        if key not in ("0", "1")
    ]


# Threads ------------------------------------------------------------------------------------


def check_thread(payload: JSON, *, with_type: bool) -> list[FormError]:
    """A thread creation (``POST .../messages/{id}/threads``, or with ``with_type``
    ``POST /channels/{id}/threads``): name 1 to 100, auto_archive_duration 60, 1440, 4320 or
    10080, rate_limit_per_user 0 to 21600, and (without a message) a thread type."""
    name = payload.get("name")
    errors: list[FormError] = []
    if not isinstance(name, str):
        errors.append(_required(("name",), "thread.name"))
    elif not 1 <= len(name) <= MAX_THREAD_NAME:
        msg = f"Must be between 1 and {MAX_THREAD_NAME} in length."
        errors.append(FormError(("name",), "BASE_TYPE_BAD_LENGTH", msg, "thread.name"))
    errors += _check_thread_settings(payload)
    if with_type:
        kind = payload.get("type")
        if kind is None:
            errors.append(_required(("type",), "thread.type"))
        elif kind not in THREAD_TYPES or isinstance(kind, bool):
            msg = f"Value must be one of {_choices(THREAD_TYPES)}."
            errors.append(FormError(("type",), "BASE_TYPE_CHOICES", msg, "thread.type"))
    return errors


def check_thread_edit(payload: JSON) -> list[FormError]:
    """A thread edit (``PATCH /channels/{thread_id}``): name up to 100, booleans for archived
    and locked, and the creation limits for auto_archive_duration and rate_limit_per_user."""
    errors = _too_long(("name",), payload.get("name"), MAX_THREAD_NAME, "thread.name")
    if "name" in payload and not isinstance(payload["name"], (str, type(None))):
        errors.append(FormError(("name",), "BASE_TYPE_STRING", "Must be a string.", "thread.name"))
    for key in ("archived", "locked"):
        if payload.get(key) is not None and not isinstance(payload[key], bool):
            msg = "Must be either true or false."
            errors.append(FormError((key,), "BASE_TYPE_BOOLEAN", msg, f"thread.{key}"))
    return errors + _check_thread_settings(payload)


def _check_thread_settings(payload: JSON) -> list[FormError]:
    errors: list[FormError] = []
    duration = payload.get("auto_archive_duration")
    if duration is not None and (isinstance(duration, bool) or duration not in ARCHIVE_DURATIONS):
        msg = f"Value must be one of {_choices(ARCHIVE_DURATIONS)}."
        errors.append(
            FormError(
                ("auto_archive_duration",),
                "BASE_TYPE_CHOICES",
                msg,
                "thread.auto-archive-duration",
            )
        )
    slowmode = payload.get("rate_limit_per_user")
    if slowmode is not None and (
        not isinstance(slowmode, int)
        or isinstance(slowmode, bool)
        or not 0 <= slowmode <= MAX_RATE_LIMIT
    ):
        msg = f"int value should be between 0 and {MAX_RATE_LIMIT}."
        errors.append(
            FormError(("rate_limit_per_user",), "NUMBER_TYPE_MAX", msg, "thread.rate-limit")
        )
    return errors


def _choices(values: tuple[int, ...] | tuple[str, ...]) -> str:
    return "{" + ", ".join(map(str, values)) + "}"
