"""Who opens the live board and where, asked of Discord — never taken from the page.

The page's Embedded App SDK gets an authorization code from Discord; the server exchanges it for
the member's access token (``POST /oauth2/token`` with the application's id and client secret),
reads the member with that token (``GET /users/@me``), and reads the Activity's instance with the
bot's token (``GET /applications/{app}/activity-instances/{instance}``): its channel, and whether
the member is in it."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
from discord.http import Route

log = logging.getLogger(__name__)

TIMEOUT = aiohttp.ClientTimeout(total=10)


class NotVouched(Exception):
    """Discord did not vouch for the page: a bad or used code, an unknown instance, a member
    not in it. The text is for the log (no secret in it)."""


@dataclass(frozen=True, slots=True)
class Member:
    """The member a code was given to."""

    user_id: int
    name: str
    locale: str | None


@dataclass(frozen=True, slots=True)
class Place:
    """Where an Activity instance runs."""

    channel_id: int
    guild_id: int | None
    users: frozenset[int]


class DiscordIdentity:
    """Asks Discord who and where."""

    def __init__(self, client: discord.Client, client_secret: str) -> None:
        self._client = client
        self._secret = client_secret

    async def member(self, code: str) -> Member:
        """The member who was given ``code`` (exchanged once: Discord refuses it again)."""
        application = self._client.application_id
        if application is None:
            raise NotVouched("the bot has not connected yet")
        async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
            token = await _discord_json(http.post(f"{Route.BASE}/oauth2/token", data={
                "client_id": str(application), "client_secret": self._secret,
                "grant_type": "authorization_code", "code": code,
            }), "the code exchange")  # fmt: skip
            access = token.get("access_token")
            if not isinstance(access, str):
                raise NotVouched("the code exchange gave no access token")
            user = await _discord_json(http.get(f"{Route.BASE}/users/@me",
                                        headers={"Authorization": f"Bearer {access}"}),
                               "the member")  # fmt: skip
        return Member(
            int(user["id"]), user.get("global_name") or user["username"], user.get("locale")
        )

    async def place(self, instance_id: str) -> Place:
        """The channel of the Activity instance ``instance_id`` and who is in it."""
        route = Route(
            "GET", "/applications/{application_id}/activity-instances/{instance_id}",
            application_id=self._client.application_id, instance_id=instance_id,
        )  # fmt: skip
        try:
            instance: dict[str, Any] = await self._client.http.request(route)
        except discord.HTTPException as error:
            raise NotVouched(f"the activity instance: {error.status} {error.text}") from None
        location = instance.get("location") or {}
        channel = location.get("channel_id")
        if channel is None:
            raise NotVouched("the activity instance has no channel")
        guild = location.get("guild_id")
        users = frozenset(int(user) for user in instance.get("users", ()))
        return Place(int(channel), int(guild) if guild else None, users)


async def _discord_json(request: Any, what: str) -> dict[str, Any]:
    """The JSON object a request answers, or :class:`NotVouched` (status and Discord's error
    code in the text; nothing that was sent)."""
    try:
        async with request as response:
            body = await response.json(content_type=None)
            if response.status != 200 or not isinstance(body, dict):
                error = body.get("error") if isinstance(body, dict) else None
                raise NotVouched(f"{what}: HTTP {response.status} {error or ''}".strip())
            return body
    except (aiohttp.ClientError, TimeoutError, ValueError) as error:
        raise NotVouched(f"{what}: {type(error).__name__}") from None
