"""Activities: the instances Discord runs in channels, and the OAuth2 of the Embedded App SDK.

An app with Activities enabled (``Application.activities``) has a global Entry Point command
(type 4, PRIMARY_ENTRY_POINT). Launching the Activity in a channel (a LAUNCH_ACTIVITY answer,
or the Entry Point with handler 2) starts that channel's instance, or joins the one running
there: one instance per channel at a time, as on Discord. The SDK's ``authorize`` gives a member
a one-time code; ``POST /oauth2/token`` exchanges it for a Bearer token that ``GET /users/@me``
accepts.
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass, field

from .model import DM, JSON, Channel, User, snowflake

PRIMARY_ENTRY_POINT = 4
"""The application command type of an Activity's Entry Point."""
APP_HANDLER, DISCORD_LAUNCH_ACTIVITY = 1, 2
"""Entry Point handlers: the app answers the interaction, or Discord launches the Activity."""
EMBEDDED = 1 << 17
"""The application flag of an app with an Activity."""
TOKEN_LIFETIME = 604_800
"""``expires_in`` of an access token: seven days, as Discord answers (not enforced)."""


@dataclass(eq=False)
class ActivityInstance:
    """The Activity running in ``channel``, with the ids of the users in it, in join order."""

    id: str
    launch_id: int
    application_id: int
    channel: Channel
    users: list[int] = field(default_factory=list)

    @property
    def location(self) -> JSON:
        """Where it runs: ``kind`` ``"gc"`` in a guild channel (or thread), ``"pc"`` in a DM."""
        channel = self.channel
        where = instance_location_id(channel)
        location: JSON = {"id": where, "kind": where[:2], "channel_id": str(channel.id)}
        if channel.guild_id is not None and channel.type != DM:
            location["guild_id"] = str(channel.guild_id)
        return location

    def to_json(self) -> JSON:
        """The activity instance object (``GET .../activity-instances/{instance_id}``)."""
        return {
            "application_id": str(self.application_id),
            "instance_id": self.id,
            "launch_id": str(self.launch_id),
            "location": self.location,
            "users": [str(user_id) for user_id in self.users],
        }


@dataclass(frozen=True)
class Grant:
    """What a user authorized the app to do: an authorization code's or a token's scopes."""

    user: User
    scopes: tuple[str, ...]


class Activities:
    """The running instances (one per channel) and the OAuth2 codes and tokens."""

    def __init__(self, application_id: int) -> None:
        self.application_id = application_id
        self.instances: dict[int, ActivityInstance] = {}
        """By channel id."""
        self.codes: dict[str, Grant] = {}
        self.access_tokens: dict[str, Grant] = {}
        self.refresh_tokens: dict[str, Grant] = {}
        self.token_limits: list[float] = []
        """Seconds the next ``POST /oauth2/token`` requests are asked to wait: each answered
        429 (rate limited) with that ``Retry-After``, the code left unused."""

    def launch(self, user: User, channel: Channel) -> ActivityInstance:
        """``user`` launches the Activity in ``channel``: its new instance, or the one running
        there, which they join."""
        instance = self.instances.get(channel.id)
        if instance is None:
            launch_id = snowflake()
            where = instance_location_id(channel)
            instance = ActivityInstance(
                f"i-{launch_id}-{where}", launch_id, self.application_id, channel
            )
            self.instances[channel.id] = instance
        self.join(user, instance)
        return instance

    def join(self, user: User, instance: ActivityInstance) -> None:
        if user.id not in instance.users:
            instance.users.append(user.id)

    def leave(self, user: User, instance: ActivityInstance) -> None:
        """``user`` leaves; the instance ends with its last user."""
        if user.id in instance.users:
            instance.users.remove(user.id)
        if not instance.users and self.instances.get(instance.channel.id) is instance:
            del self.instances[instance.channel.id]

    def find(self, instance_id: str) -> ActivityInstance | None:
        return next((i for i in self.instances.values() if i.id == instance_id), None)

    def authorize(self, user: User, scopes: tuple[str, ...]) -> str:
        """A new one-time authorization code for ``user`` and ``scopes``."""
        code = secrets.token_urlsafe(22)
        self.codes[code] = Grant(user, scopes)
        return code

    def issue(self, grant: Grant) -> JSON:
        """A new access token (and refresh token) for ``grant``, as ``/oauth2/token`` answers."""
        access, refresh = secrets.token_urlsafe(22), secrets.token_urlsafe(22)
        self.access_tokens[access] = self.refresh_tokens[refresh] = grant
        return {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": TOKEN_LIFETIME,
            "refresh_token": refresh,
            "scope": " ".join(grant.scopes),
        }


def rate_limited(retry_after: float) -> tuple[JSON, dict[str, str]]:
    """A 429's body and headers, as Discord answers a rate-limited request: the wait in the
    body to the millisecond, in ``Retry-After`` in whole seconds."""
    body = {"message": "You are being rate limited.", "retry_after": retry_after, "global": False}
    return body, {"Retry-After": str(max(1, math.ceil(retry_after)))}


def instance_location_id(channel: Channel) -> str:
    """The location part of an instance id: ``gc-<guild>-<channel>`` or ``pc-<channel>``."""
    if channel.type == DM or channel.guild_id is None:
        return f"pc-{channel.id}"
    return f"gc-{channel.guild_id}-{channel.id}"
