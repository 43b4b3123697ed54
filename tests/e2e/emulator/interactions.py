"""Interactions: their gateway payload, and Discord's rules for answering them.

An interaction must be acknowledged once (response types 4, 5, 6, 7 or 9, and 12 LAUNCH_ACTIVITY
for an app with Activities; an autocomplete one only with 8 and its choices), within the
deadline (3 s); follow-ups and edits of the original response only exist after that
acknowledgement, and never for an autocomplete interaction. An answer that shows a message in
an archived thread unarchives it (refused if it is locked).

The token (Discord's docs, "Receiving and Responding",
https://discord.com/developers/docs/interactions/receiving-and-responding): "Interaction tokens
are valid for 15 minutes", for follow-ups and for getting, editing and deleting the original
response or a follow-up. After that Discord answers every webhook request with the token 401,
code 50027 "Invalid Webhook Token" (https://github.com/discord/discord-api-docs/issues/6851, and
the 401/50027 bots log, e.g. https://github.com/discordjs/discord.js/pull/10798). The clock is
Discord's (``model.discord_time``: a test moves it with ``Emulator.clock_offset``).

The follow-up limit (same page, "Create Followup Message"): "Apps are limited to 5 followup
messages per interaction if it was initiated from a user-installed app and isn't installed in
the server (meaning the authorizing integration owners object only contains USER_INSTALL)".
The docs name no error for the sixth; the emulator answers 400 "Maximum number of follow-up
messages reached (5)" (code 0). The follow-up that fills a deferred "thinking" message edits the
original response (same page) and is not counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import openapi, threads
from .activities import ActivityInstance
from .commands import focused_option
from .journal import Violation
from .messages import LOADING, Message, Upload, compose
from .model import (
    ATTACH_FILES,
    EMBED_LINKS,
    JSON,
    MENTION_EVERYONE,
    USE_EXTERNAL_EMOJIS,
    Channel,
    Member,
    discord_time,
    snowflake,
)
from .rules import EPHEMERAL, FormError, Rejection, check_autocomplete, check_modal

if TYPE_CHECKING:
    from .state import State

PING, APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5
PONG, CHANNEL_MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE = 1, 4, 5, 6, 7
AUTOCOMPLETE_RESULT, MODAL, LAUNCH_ACTIVITY = 8, 9, 12
TOKEN_LIFETIME = 15 * 60.0
"""Seconds an interaction token works for its webhook (by Discord's clock)."""
USER_INSTALL_FOLLOWUPS = 5
"""Follow-ups an interaction may have when only the member's user install authorized it."""
LAUNCH_RULE = "interaction.launch-activity"
"""A LAUNCH_ACTIVITY answer from an app without Activities."""
_DM_APP_PERMISSIONS = ATTACH_FILES | EMBED_LINKS | MENTION_EVERYONE | USE_EXTERNAL_EMOJIS


@dataclass(eq=False)
class Interaction:
    """One interaction and its outcome: how and when it was acknowledged, what it produced."""

    id: int
    token: str
    type: int
    member: Member
    channel: Channel
    data: JSON
    label: str
    deadline: float
    created: float
    message: Message | None = None
    ack_type: int | None = None
    ack_at: float | None = None
    """When the answer that acknowledged it reached the emulator (before its body was read)."""
    answering: int = 0
    """Answers that reached the emulator and are still being read and checked: the deadline
    does not run out under them (Discord's clock stops when a request reaches it, not when
    an emulator starved of CPU has validated its body)."""
    expired: bool = False
    original: Message | None = None
    followups: list[Message] = field(default_factory=list)
    modal: JSON | None = None
    violations: list[Violation] = field(default_factory=list)
    callbacks: list[tuple[int | None, int]] = field(default_factory=list)
    choices: list[JSON] | None = None
    """An autocomplete interaction's answer: the choices the member sees (None: no answer)."""
    owners: dict[str, str] = field(default_factory=dict)
    """``authorizing_integration_owners``: ``"0"`` the guild id (``"0"`` in the bot's DM) for
    the app's guild install, ``"1"`` the member's id for their user install."""
    activity: ActivityInstance | None = None
    """The Activity instance a LAUNCH_ACTIVITY answer launched or joined."""
    issued: float = field(default_factory=discord_time)
    """When Discord issued the token, by Discord's clock: it works ``TOKEN_LIFETIME`` s."""

    @property
    def context(self) -> int:
        """The interaction ``context``: 0 in a guild (with the bot or not), 1 in the bot's DM, 2
        in a DM between users or a group DM."""
        if self.channel.guild_id is not None:
            return 0
        return 2 if self.channel.between_users else 1

    @property
    def acknowledged(self) -> bool:
        return self.ack_type is not None

    @property
    def latency(self) -> float | None:
        """Seconds from dispatch to acknowledgement."""
        return None if self.ack_at is None else self.ack_at - self.created

    @property
    def failed(self) -> bool:
        """True when the member sees "This interaction failed" (no acknowledgement in time)."""
        return self.expired

    @property
    def messages(self) -> list[Message]:
        """The original response (if a message) and the follow-ups, without deleted ones."""
        found = [self.original] if self.original is not None else []
        return [m for m in found + self.followups if not m.deleted]

    def __str__(self) -> str:
        return f"{self.label} by {self.member.user.username}"


def create(
    state: State,
    kind: int,
    member: Member,
    channel: Channel,
    data: JSON,
    label: str,
    message: Message | None = None,
    owners: dict[str, str] | None = None,
) -> Interaction:
    """Register a new interaction, dispatch INTERACTION_CREATE, and start its deadline.

    ``owners`` (``authorizing_integration_owners``) default to those of the interaction that
    made ``message``, else to the app's guild install (the guild's id, ``"0"`` in a DM).
    """
    loop = asyncio.get_running_loop()
    ix = Interaction(
        id=snowflake(),
        token=f"aW50ZXJhY3Rpb24{secrets.token_urlsafe(48)}",
        type=kind,
        member=member,
        channel=channel,
        data=data,
        label=label,
        deadline=state.config.ack_deadline,
        created=loop.time(),
        message=message,
    )
    made_by = (message.interaction_metadata or {}) if message is not None else {}
    ix.owners = dict(
        owners
        or made_by.get("authorizing_integration_owners")
        or {"0": str(_guild_id(state, ix) or 0)}
    )
    state.interactions[ix.token] = ix
    loop.call_later(ix.deadline, _expire, state, ix)
    state.dispatch("INTERACTION_CREATE", payload(state, ix), None, _guild_id(state, ix))
    state.journal.changed()
    return ix


def _expire(state: State, ix: Interaction) -> None:
    if ix.ack_type is not None or ix.answering or ix.expired:
        return
    ix.expired = True
    record(
        state,
        ix,
        Violation(
            "interaction.not-acknowledged",
            f"{ix} was not acknowledged within {ix.deadline:g} s: "
            f'the member sees "This interaction failed"',
            0,
            0,
            "(no request)",
            ix.id,
        ),
    )


def record(state: State, ix: Interaction | None, violation: Violation) -> None:
    if ix is not None:
        ix.violations.append(violation)
    state.journal.violate(violation)


def _guild_id(state: State, ix: Interaction) -> int | None:
    guild = state.world.guild_of(ix.channel)
    return guild.id if guild is not None else None


def payload(state: State, ix: Interaction) -> JSON:
    """The INTERACTION_CREATE ``d`` as Discord sends it, for the guild of the channel."""
    bot = state.world.bot
    guild = state.world.guild_of(ix.channel)
    data: JSON = {
        "id": str(ix.id),
        "application_id": str(state.application_id),
        "type": ix.type,
        "data": ix.data,
        "channel_id": str(ix.channel.id),
        "token": ix.token,
        "version": 1,
        "locale": ix.member.user.locale,  # the acting member's client language
        "entitlements": [],
        "entitlement_sku_ids": [],
        "attachment_size_limit": state.config.attachment_size_limit,
    }
    channel = ix.channel.to_json()
    if guild is None:
        channel["permissions"] = str(_DM_APP_PERMISSIONS)
        data["user"] = ix.member.user.to_json()
        data["app_permissions"] = str(_DM_APP_PERMISSIONS)
    else:
        member = guild.members.get(ix.member.id, ix.member)  # the membership of this guild
        member_perms = guild.permissions_in(ix.channel, member.id)
        channel["permissions"] = str(member_perms)
        data["guild_id"] = str(guild.id)
        data["guild"] = {"id": str(guild.id), "locale": guild.locale, "features": []}
        data["guild_locale"] = guild.locale
        data["member"] = member.to_json(permissions=member_perms)
        bot_perms = _DM_APP_PERMISSIONS  # a user install where the bot is not: World.bot_in
        if state.world.bot_in(ix.channel):
            bot_perms = guild.permissions_in(ix.channel, bot.id)
        data["app_permissions"] = str(bot_perms)
    data["authorizing_integration_owners"] = dict(ix.owners)
    data["context"] = ix.context
    data["channel"] = channel
    if ix.message is not None:
        data["message"] = ix.message.to_json(state.base_url)
    return data


_VALID_RESPONSES = {
    PING: {PONG},
    APPLICATION_COMMAND: {CHANNEL_MESSAGE, DEFERRED_MESSAGE, MODAL, LAUNCH_ACTIVITY},
    MESSAGE_COMPONENT: {
        CHANNEL_MESSAGE,
        DEFERRED_MESSAGE,
        DEFERRED_UPDATE,
        UPDATE_MESSAGE,
        MODAL,
        LAUNCH_ACTIVITY,
    },
    AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
    MODAL_SUBMIT: {CHANNEL_MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE},
}


def _new_message(state: State, ix: Interaction, *, ephemeral: bool, followup: bool) -> Message:
    meta: JSON = {
        "id": str(ix.id),
        "type": ix.type,
        "user": ix.member.user.to_json(),
        "authorizing_integration_owners": dict(ix.owners),
    }
    if ix.message is not None:
        meta["interacted_message_id"] = str(ix.message.id)
    if followup and ix.original is not None:
        meta["original_response_message_id"] = str(ix.original.id)
    message = Message(
        id=snowflake(),
        channel_id=ix.channel.id,
        author=state.world.bot,
        type=20 if ix.type == APPLICATION_COMMAND and not followup else 0,
        webhook_id=state.application_id,
        interaction_metadata=meta,
    )
    if ephemeral:
        message.flags |= EPHEMERAL
        message.visible_to = ix.member.id
    return message


def _wants_ephemeral(data: JSON) -> bool:
    flags = data.get("flags")
    return isinstance(flags, int) and bool(flags & EPHEMERAL)


@contextlib.contextmanager
def answering(state: State, ix: Interaction) -> Iterator[None]:
    """While an answer that reached the emulator is read and checked: the deadline waits for
    it; should it not acknowledge the interaction, the interaction expires after it if its
    time is up by then."""
    ix.answering += 1
    try:
        yield
    finally:
        ix.answering -= 1
        if asyncio.get_running_loop().time() - ix.created > ix.deadline:
            _expire(state, ix)


def callback(
    state: State, ix: Interaction, body: JSON, uploads: list[Upload], arrived: float
) -> JSON:
    """POST /interactions/{id}/{token}/callback, which reached the emulator at ``arrived``;
    returns the ``with_response`` answer."""
    kind = body.get("type")
    if ix.ack_type is None and (ix.expired or arrived - ix.created > ix.deadline):
        late = arrived - ix.created  # (it expires once this answer is done: ``answering``)
        detail = f"{ix} was answered {late:.2f} s after dispatch (deadline {ix.deadline:g} s)"
        raise Rejection(404, 10062, "Unknown interaction", "interaction.deadline", detail=detail)
    if ix.ack_type is not None:
        raise Rejection(
            400, 40060, "Interaction has already been acknowledged.", "interaction.double-ack"
        )
    if kind not in _VALID_RESPONSES.get(ix.type, set()) or (
        kind in (DEFERRED_UPDATE, UPDATE_MESSAGE) and ix.message is None
    ):
        msg = f"Response type {kind} is not valid for interaction type {ix.type}"
        raise Rejection.form(
            [
                FormError(
                    ("type",), "INTERACTION_RESPONSE_TYPE_INVALID", msg, "interaction.response-type"
                )
            ]
        )
    data = body.get("data") or {}
    size_limit = state.config.attachment_size_limit
    shows = (kind in (CHANNEL_MESSAGE, DEFERRED_MESSAGE) and not _wants_ephemeral(data)) or (
        kind == UPDATE_MESSAGE and ix.message is not None and not ix.message.ephemeral
    )
    if shows:
        threads.check_writable(ix.channel)
    if kind not in (CHANNEL_MESSAGE, UPDATE_MESSAGE):  # those compose a message, which checks
        _check_answer(state, kind, ix, body)
        openapi.enforce()  # the published schema, after the emulator's own rules
    if kind == CHANNEL_MESSAGE:
        message = _new_message(state, ix, ephemeral=_wants_ephemeral(data), followup=False)
        compose(message, data, uploads, size_limit=size_limit, creating=True)
        if shows:
            threads.touch(state, ix.channel)
        state.post(message)
        ix.original = message
    elif kind == DEFERRED_MESSAGE:
        message = _new_message(state, ix, ephemeral=_wants_ephemeral(data), followup=False)
        message.flags |= LOADING
        if shows:
            threads.touch(state, ix.channel)
        state.post(message)
        ix.original = message
    elif kind == UPDATE_MESSAGE:
        assert ix.message is not None
        compose(ix.message, data, uploads, size_limit=size_limit, creating=False)
        if shows:
            threads.touch(state, ix.channel)
        state.edited(ix.message)
    elif kind == AUTOCOMPLETE_RESULT:
        ix.choices = list(data.get("choices") or [])
    elif kind == MODAL:
        ix.modal = data
    elif kind == LAUNCH_ACTIVITY:
        ix.activity = state.activities.launch(ix.member.user, ix.channel)
    ix.ack_type = kind
    ix.ack_at = arrived
    state.journal.changed()
    return _callback_answer(state, ix, kind)


def _check_answer(state: State, kind: int, ix: Interaction, body: JSON) -> None:
    """The emulator's own rules for a deferral, an autocomplete result, a modal or a launch."""
    data = body.get("data") or {}
    errors: list[FormError] = []
    if kind == DEFERRED_MESSAGE:
        flags = data.get("flags") or 0
        if not isinstance(flags, int) or flags & ~EPHEMERAL:
            msg = "A deferred response may only set the EPHEMERAL flag"
            errors.append(
                FormError(("data", "flags"), "BASE_TYPE_CHOICES", msg, "interaction.defer-flags")
            )
    elif kind == AUTOCOMPLETE_RESULT:
        focused = focused_option(ix.data) or {}
        errors = check_autocomplete(body.get("data"), focused.get("type", 3))
    elif kind == MODAL:
        errors = check_modal(data)
    elif kind == LAUNCH_ACTIVITY and not state.application.activities:
        msg = "The application has no Activity: enable Activities to launch one"
        errors = [FormError(("type",), "INTERACTION_RESPONSE_TYPE_INVALID", msg, LAUNCH_RULE)]
    if errors:
        raise Rejection.form(errors)


def _callback_answer(state: State, ix: Interaction, kind: int) -> JSON:
    shown = ix.original if kind in (CHANNEL_MESSAGE, DEFERRED_MESSAGE) else None
    if kind == UPDATE_MESSAGE:
        shown = ix.message
    about: JSON = {"id": str(ix.id), "type": ix.type}
    resource: JSON = {"type": kind}
    if ix.activity is not None:
        about["activity_instance_id"] = ix.activity.id
        resource["activity_instance"] = {"id": ix.activity.id}
    if shown is not None:
        about["response_message_id"] = str(shown.id)
        about["response_message_loading"] = shown.loading
        about["response_message_ephemeral"] = shown.ephemeral
        if kind != DEFERRED_MESSAGE:  # the message is only included for types 4 and 7
            resource["message"] = shown.to_json(state.base_url)
    return {"interaction": about, "resource": resource}


def _require_ack(ix: Interaction) -> None:
    """The webhook of ``ix`` may be used: its token still valid, the interaction answered."""
    age = discord_time() - ix.issued
    if age > TOKEN_LIFETIME:
        detail = f"{ix}: its token was used {age:.0f} s after it was issued ({TOKEN_LIFETIME:g} s)"
        raise Rejection(
            401, 50027, "Invalid Webhook Token", "interaction.token-expired", detail=detail
        )
    if ix.type == AUTOCOMPLETE:
        raise Rejection(404, 10015, "Unknown Webhook", "interaction.autocomplete-followup")
    if ix.ack_type is None:
        raise Rejection(404, 10015, "Unknown Webhook", "interaction.followup-before-ack")


def followup(state: State, ix: Interaction, body: JSON, uploads: list[Upload]) -> Message:
    """POST /webhooks/{app}/{token}: the first one after a deferral fills the "thinking" message."""
    _require_ack(ix)
    size_limit = state.config.attachment_size_limit
    original = ix.original
    if ix.ack_type == DEFERRED_MESSAGE and original is not None and original.loading:
        if not original.ephemeral:
            threads.check_writable(ix.channel)
        compose(original, body, uploads, size_limit=size_limit, creating=True)
        original.flags &= ~LOADING
        if not original.ephemeral:
            threads.touch(state, ix.channel)
        state.edited(original)
        return original
    if set(ix.owners) == {"1"} and len(ix.followups) >= USER_INSTALL_FOLLOWUPS:
        detail = f"{ix} has {len(ix.followups)} follow-ups, the most for a user install only"
        raise Rejection(
            400,
            0,
            f"Maximum number of follow-up messages reached ({USER_INSTALL_FOLLOWUPS})",
            "interaction.followup-limit",
            detail=detail,
        )
    message = _new_message(state, ix, ephemeral=_wants_ephemeral(body), followup=True)
    if not message.ephemeral:
        threads.check_writable(ix.channel)
    compose(message, body, uploads, size_limit=size_limit, creating=True)
    if not message.ephemeral:
        threads.touch(state, ix.channel)
    state.post(message)
    ix.followups.append(message)
    return message


def target(ix: Interaction, message_id: str) -> Message:
    """The message ``@original`` (or a follow-up id) names for this interaction's webhook."""
    _require_ack(ix)
    if message_id == "@original":
        found = ix.message if ix.ack_type in (DEFERRED_UPDATE, UPDATE_MESSAGE) else ix.original
    else:
        candidates = [ix.original, *ix.followups]
        found = next((m for m in candidates if m is not None and str(m.id) == message_id), None)
    if found is None or found.deleted:
        raise Rejection(404, 10008, "Unknown Message", "http.unknown-resource")
    return found


def edit(
    state: State, ix: Interaction, message_id: str, body: JSON, uploads: list[Upload]
) -> Message:
    """PATCH /webhooks/{app}/{token}/messages/{id}; editing a deferral's message completes it."""
    message = target(ix, message_id)
    if not message.ephemeral:
        threads.check_writable(ix.channel)
    compose(
        message,
        body,
        uploads,
        size_limit=state.config.attachment_size_limit,
        creating=message.loading,
    )
    message.flags &= ~LOADING
    if not message.ephemeral:
        threads.touch(state, ix.channel)
    state.edited(message)
    return message
