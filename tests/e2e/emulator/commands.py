"""Registered application commands, and slash-command invocations built from their schemas."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .activities import PRIMARY_ENTRY_POINT
from .messages import Attachment
from .model import JSON, Channel, Guild, Member, Role, User, snowflake

if TYPE_CHECKING:
    from .state import Application

SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = range(3, 12)
GUILD_CONTEXT, BOT_DM, PRIVATE_CHANNEL = 0, 1, 2  # interaction contexts
GUILD_INSTALL, USER_INSTALL = 0, 1  # application integration types


class CommandRegistry:
    """Commands the bot registered, globally (guild ``None``) and per guild, as Discord keeps
    them."""

    def __init__(self, application_id: int, application: Application | None = None) -> None:
        self.application_id = application_id
        self.application = application
        self.scopes: dict[int | None, dict[str, JSON]] = {}

    def overwrite(self, guild_id: int | None, commands: list[JSON]) -> list[JSON]:
        """Bulk overwrite: keep the ids of commands whose name is unchanged."""
        old = self.scopes.get(guild_id, {})
        new: dict[str, JSON] = {}
        for command in commands:
            previous = old.get(command["name"])
            new[command["name"]] = self._stored(guild_id, command, previous)
        self.scopes[guild_id] = new
        return list(new.values())

    def upsert(self, guild_id: int | None, command: JSON) -> JSON:
        scope = self.scopes.setdefault(guild_id, {})
        stored = self._stored(guild_id, command, scope.get(command["name"]))
        scope[command["name"]] = stored
        return stored

    def replace(self, guild_id: int | None, old: JSON, command: JSON) -> JSON:
        """Edit ``old`` (possibly renaming it); it keeps its id."""
        scope = self.scopes[guild_id]
        del scope[old["name"]]
        scope[command["name"]] = stored = self._stored(guild_id, command, old)
        return stored

    def list(self, guild_id: int | None) -> list[JSON]:
        return list(self.scopes.get(guild_id, {}).values())

    def by_id(self, guild_id: int | None, command_id: int) -> JSON | None:
        return next((c for c in self.list(guild_id) if int(c["id"]) == command_id), None)

    def delete(self, guild_id: int | None, command_id: int) -> bool:
        command = self.by_id(guild_id, command_id)
        if command is not None:
            del self.scopes[guild_id][command["name"]]
        return command is not None

    def find(self, name: str, guild_id: int | None) -> JSON | None:
        """The chat-input command a member would see: the guild's first, then the global one
        (``guild_id`` None: a DM, global commands only)."""
        for scope in (guild_id, None):
            command = self.scopes.get(scope, {}).get(name)
            if command is not None and command.get("type", 1) == 1:
                return command
        return None

    def entry_point(self) -> JSON | None:
        """The app's Entry Point command (global, type 4 PRIMARY_ENTRY_POINT), if it has one."""
        return next((c for c in self.list(None) if c.get("type") == PRIMARY_ENTRY_POINT), None)

    def guild_scoped(self, name: str) -> bool:
        """Whether some guild has a chat-input command ``name``."""
        return any(
            scope is not None and name in commands for scope, commands in self.scopes.items()
        )

    def _stored(self, guild_id: int | None, command: JSON, previous: JSON | None) -> JSON:
        stored = {
            "type": 1,
            "description": "",
            "options": [],
            "default_member_permissions": None,
            "nsfw": False,
            "contexts": None,
            "integration_types": self.application.integration_types if self.application else [0],
            **command,
            "id": previous["id"] if previous else str(snowflake()),
            "application_id": str(self.application_id),
            "version": str(snowflake()),
        }
        if guild_id is not None:
            stored["guild_id"] = str(guild_id)
        if stored["default_member_permissions"] is not None:
            # Sent as an int or a string, always answered as a string.
            stored["default_member_permissions"] = str(int(stored["default_member_permissions"]))
        return stored


def install_types(command: JSON) -> list[int]:
    """The command's ``integration_types`` (as registered, the app's when it sent none)."""
    kinds = command.get("integration_types")
    return list(kinds) if isinstance(kinds, list) else [GUILD_INSTALL]


def refusal(
    command: JSON,
    *,
    in_guild: bool,
    shares_guild: bool,
    user_installed: bool,
    bot_present: bool = True,
) -> str | None:
    """Why Discord's client would not offer ``command`` here (None: it does). ``in_guild``: a
    guild channel, else a DM; ``bot_present``: the bot is in that guild or is that DM's other
    end (False: a guild without the bot, a DM between users, a group DM); ``shares_guild``: the
    member and the bot share a guild; ``user_installed``: the member installed the app.

    The context (Discord's "Interaction Context Types") is 0 GUILD in a guild, with the bot or
    not, 1 BOT_DM in the bot's DM, 2 PRIVATE_CHANNEL in group DMs and DMs other than the
    bot's. A guild command only exists in its guild; ``contexts`` (when not null) must include
    the context; a null ``contexts`` leaves out PRIVATE_CHANNEL (discord-api-docs issue #7108:
    new commands without contexts are not offered in group DMs) and, with ``dm_permission:
    false``, the bot's DM; and one of the command's ``integration_types`` must be installed for
    the member here: 0 (the app's guild install: in the guilds with the bot, and in its DM for
    someone who shares a guild with it) or 1 (the member installed the app: everywhere).
    """
    context = place_context(in_guild=in_guild, bot_present=bot_present)
    if not in_guild and "guild_id" in command:
        return "it is a guild command (global commands only in DMs)"
    contexts = command.get("contexts")
    names = {GUILD_CONTEXT: "GUILD", BOT_DM: "BOT_DM", PRIVATE_CHANNEL: "PRIVATE_CHANNEL"}
    if contexts is not None and context not in contexts:
        return f"its contexts {contexts} exclude {context} ({names[context]})"
    if contexts is None and context == PRIVATE_CHANNEL:
        return "its contexts are null (by default not PRIVATE_CHANNEL)"
    if context == BOT_DM and contexts is None and command.get("dm_permission") is False:
        return "it has dm_permission false"
    kinds = install_types(command)
    if GUILD_INSTALL in kinds and bot_present and (in_guild or shares_guild):
        return None
    if USER_INSTALL in kinds and user_installed:
        return None
    return f"its integration_types {kinds} are not installed for this member here"


def place_context(*, in_guild: bool, bot_present: bool) -> int:
    """The interaction ``context`` of a place: GUILD, BOT_DM or PRIVATE_CHANNEL."""
    if in_guild:
        return GUILD_CONTEXT
    return BOT_DM if bot_present else PRIVATE_CHANNEL


def authorizing_owners(
    command: JSON,
    *,
    guild_id: int | None,
    user_id: int,
    shares_guild: bool,
    user_installed: bool,
    bot_present: bool = True,
) -> dict[str, str]:
    """``authorizing_integration_owners`` of an interaction with ``command`` in ``guild_id``
    (None: a DM): ``"0"`` the guild's id (``"0"`` in the bot's DM) when the app's guild install
    applies (never where the bot is not: a guild without it, a DM between users, a group DM),
    ``"1"`` the member's id when they installed the app and the command is user-installable.
    Discord's docs ("Interaction Object": authorizing_integration_owners; "Installation
    Context"): keys are integration types, values the guild's or the installing user's id."""
    kinds = install_types(command)
    owners: dict[str, str] = {}
    if GUILD_INSTALL in kinds and bot_present and (guild_id is not None or shares_guild):
        owners["0"] = str(guild_id or 0)
    if USER_INSTALL in kinds and user_installed:
        owners["1"] = str(user_id)
    return owners


@dataclass
class Resolved:
    """The ``resolved`` part of an interaction's data, filled as options reference objects
    (members as members of ``guild``, the guild of the invocation)."""

    guild: Guild
    channel: Channel
    invoker_id: int
    base_url: str
    data: dict[str, dict[str, JSON]] = field(default_factory=dict)
    uploads: dict[int, Attachment] = field(default_factory=dict)

    def add(self, value: object) -> str:
        """Record a Member, User, Role, Channel or (filename, bytes) upload; return its id."""
        if isinstance(value, Member):
            value = self.guild.members.get(value.id, value)
            perms = self.guild.permissions_in(self.channel, value.id)
            member = value.to_json(with_user=False, permissions=perms)
            del member["deaf"], member["mute"]  # resolved members are partial
            self.data.setdefault("members", {})[str(value.id)] = member
            value = value.user
        if isinstance(value, User):
            self.data.setdefault("users", {})[str(value.id)] = value.to_json()
            return str(value.id)
        if isinstance(value, Role):
            if value.id not in self.guild.roles:
                raise ValueError(f"role {value.name!r} is not a role of {self.guild.name!r}")
            self.data.setdefault("roles", {})[str(value.id)] = value.to_json()
            return str(value.id)
        if isinstance(value, Channel):
            if value.guild_id not in (None, self.guild.id):
                raise ValueError(f"#{value.name} is not a channel of {self.guild.name!r}")
            data = value.to_json()
            data["permissions"] = str(self.guild.permissions_in(value, self.invoker_id))
            self.data.setdefault("channels", {})[str(value.id)] = data
            return str(value.id)
        if isinstance(value, tuple) and len(value) == 2:
            filename, content = value
            attachment = Attachment(id=snowflake(), filename=filename, data=content)
            self.uploads[attachment.id] = attachment
            url = f"{self.base_url}/attachments/0/{attachment.id}/{filename}"
            self.data.setdefault("attachments", {})[str(attachment.id)] = attachment.to_json(
                url, ephemeral=True
            )
            return str(attachment.id)
        raise TypeError(f"cannot pass {value!r} as a user, role, channel or attachment option")


def _convert(option: JSON, value: Any, resolved: Resolved) -> Any:
    """Check ``value`` the way Discord's client does for ``option`` and return its JSON form."""
    kind, name = option["type"], option["name"]
    python_types: dict[int, tuple[type, ...]] = {
        STRING: (str,),
        INTEGER: (int,),
        BOOLEAN: (bool,),
        NUMBER: (int, float),
    }
    if kind in python_types:
        if not isinstance(value, python_types[kind]) or (
            kind != BOOLEAN and isinstance(value, bool)
        ):
            raise TypeError(f"option {name!r} takes a {python_types[kind][0].__name__}")
        choices = option.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise ValueError(f"option {name!r} must be one of {[c['value'] for c in choices]}")
        if kind == STRING and not option.get("min_length", 0) <= len(value) <= option.get(
            "max_length", 6000
        ):
            raise ValueError(f"option {name!r}: length out of range")
        if kind in (INTEGER, NUMBER):
            low, high = option.get("min_value"), option.get("max_value")
            if (low is not None and value < low) or (high is not None and value > high):
                raise ValueError(f"option {name!r} must be within [{low}, {high}]")
        return value
    accepted = {
        USER: (Member, User),
        CHANNEL: (Channel,),
        ROLE: (Role,),
        MENTIONABLE: (Member, User, Role),
        ATTACHMENT: (tuple,),
    }[kind]
    if not isinstance(value, accepted):
        raise TypeError(f"option {name!r} takes one of {[t.__name__ for t in accepted]}")
    if (
        kind == CHANNEL
        and option.get("channel_types")
        and value.type not in option["channel_types"]
    ):
        raise ValueError(f"option {name!r} does not accept that channel type")
    return resolved.add(value)


def invocation(
    command: JSON,
    path: list[str],
    values: dict[str, Any],
    resolved: Resolved,
    *,
    focused: str | None = None,
    typed: str | float = "",
) -> JSON:
    """The ``data`` of an APPLICATION_COMMAND interaction for ``/name path... values``, or with
    ``focused`` of an APPLICATION_COMMAND_AUTOCOMPLETE one: the options typed so far (required
    ones may be missing) and the focused option last, ``"focused": true``, its partial value
    ``typed`` sent as a string whatever the option's type.

    Raises ValueError/TypeError for what Discord's client would not let a member send: an unknown
    subcommand or option, a missing required option, a value of the wrong type or out of range,
    a focused option without ``autocomplete``.
    """
    data: JSON = {"id": command["id"], "name": command["name"], "type": 1}
    if "guild_id" in command:
        data["guild_id"] = command["guild_id"]
    schema, target = command, data
    for word in path:
        sub = next(
            (o for o in schema.get("options") or [] if o["name"] == word and o["type"] in (1, 2)),
            None,
        )
        if sub is None:
            raise ValueError(f"/{command['name']} has no subcommand {word!r} here")
        node: JSON = {"name": word, "type": sub["type"], "options": []}
        target["options"] = [node]
        schema, target = sub, node
    leaf_options = schema.get("options") or []
    if any(o["type"] in (1, 2) for o in leaf_options):
        raise ValueError(f"/{command['name']} {' '.join(path)} needs a subcommand")
    by_name = {o["name"]: o for o in leaf_options}
    unknown = set(values) - set(by_name)
    if unknown:
        raise ValueError(f"unknown options {sorted(unknown)}; the command has {sorted(by_name)}")
    missing = [o["name"] for o in leaf_options if o.get("required") and o["name"] not in values]
    if missing and focused is None:
        raise ValueError(f"missing required options {missing}")
    target["options"] = [
        {"name": name, "type": by_name[name]["type"], "value": _convert(by_name[name], v, resolved)}
        for name, v in values.items()
    ]
    if focused is not None:
        option = by_name.get(focused)
        if option is None or focused in values:
            raise ValueError(f"cannot focus {focused!r}: the options are {sorted(by_name)}")
        if not option.get("autocomplete") or option["type"] not in (STRING, INTEGER, NUMBER):
            raise ValueError(f"option {focused!r} of /{command['name']} has no autocomplete")
        if isinstance(typed, bool) or not isinstance(typed, str | int | float):
            raise TypeError(f"the typed value of {focused!r} is text or a number")
        partial = {"name": focused, "type": option["type"], "value": str(typed), "focused": True}
        target["options"].append(partial)
    if resolved.data:
        data["resolved"] = resolved.data
    return data


def focused_option(data: JSON) -> JSON | None:
    """The focused option of an autocomplete interaction's ``data`` (inside its subcommands)."""
    options = data.get("options") or []
    while options:
        focused = next((o for o in options if o.get("focused")), None)
        if focused is not None:
            return focused
        nested = next(
            (o for o in options if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)), None
        )
        options = nested.get("options") or [] if nested is not None else []
    return None
