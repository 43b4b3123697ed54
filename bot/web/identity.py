"""Who opens the live board and where, asked of Discord — never taken from the page.

The page's Embedded App SDK gets an authorization code from Discord; the server exchanges it for
the member's access token (``POST /oauth2/token`` with the application's id and client secret),
reads the member with that token (``GET /users/@me``), and reads the Activity's instance with the
bot's token (``GET /applications/{app}/activity-instances/{instance}``): its channel, and whether
the member is in it.

Discord may answer the member's requests 429 (rate limited): they are tried again after its
``Retry-After`` while that is short (:data:`LONGEST_WAIT`, :data:`TRIES`); a longer wait is
passed on to the page (:class:`RateLimited`), which asks again itself — the code is still
unused."""

from __future__ import annotations

import asyncio
import json
import logging
import math
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
from discord.http import Route

from bot.discord.remembered import Remembered
from bot.loops.background import discord_call
from bot.web.sessions import Session
from bot.words.names import plain_name

log = logging.getLogger(__name__)

TIMEOUT = aiohttp.ClientTimeout(total=10)
TRIES = 3
"""Tries of a request Discord answers 429, at most."""
LONGEST_WAIT = 3.0
"""The longest ``Retry-After`` the server waits for itself; a longer one goes to the page."""
PRESENCE_SECONDS = 30.0
"""How long Discord's answer about who is in an Activity instance is trusted: a member who left
it is refused at their next hello at most this long after, and a storm of reconnects costs one
request per instance."""
WAIT_BUDGET = 5.0
"""Seconds the server waits after 429s in all, for one page (its answer must come well within
the page's own patience, and Discord's proxy's)."""


class NotVouched(Exception):
    """Discord did not vouch for the page: a bad or used code, an unknown instance, a member
    not in it. The text is for the log (no secret in it)."""


class RateLimited(Exception):
    """Discord asks to wait longer than the server waits itself: ``retry_after`` seconds."""

    def __init__(self, what: str, retry_after: float) -> None:
        super().__init__(what, retry_after)
        self.what = what
        """The request Discord limited (for the log)."""
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class Member:
    """The member a code was given to."""

    user_id: int
    name: str
    locale: str | None
    access_token: str
    """The member's token (their scopes: ``identify``, ``rpc.activities.write``), handed to
    their own page only, for its SDK's ``authenticate`` (rich presence); never read back."""


@dataclass(frozen=True, slots=True)
class ActivityInstance:
    """Where an Activity instance runs — a server's channel or thread (``guild_id``), or a DM
    or group DM (``guild_id`` ``None``: Discord's location kind ``pc``) — and who is in it.
    Asked with the bot's token, it answers wherever the instance runs, the bot a member
    there or not: the one word the server takes for a DM's or a group DM's channel."""

    channel_id: int
    guild_id: int | None
    users: frozenset[int]


class DiscordIdentity:
    """Asks Discord who and where."""

    def __init__(
        self, client: discord.Client, client_secret: str, presence_seconds: float = PRESENCE_SECONDS
    ) -> None:
        self._client = client
        self._secret = client_secret
        self._presence = Remembered[str, frozenset[int] | None](presence_seconds)

    async def member(self, code: str) -> Member:
        """The member who was given ``code`` (exchanged once: Discord refuses it again)."""
        application = self._client.application_id
        if application is None:
            raise NotVouched("the bot has not connected yet")
        form = {
            "client_id": str(application),
            "client_secret": self._secret,
            "grant_type": "authorization_code",
            "code": code,
        }
        async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
            waited = Waited()
            token = await _discord_json(
                http, "POST", f"{Route.BASE}/oauth2/token", "the code exchange", waited, data=form
            )
            access = token.get("access_token")
            if not isinstance(access, str):
                raise NotVouched("the code exchange gave no access token")
            bearer = {"Authorization": f"Bearer {access}"}
            user = await _discord_json(
                http, "GET", f"{Route.BASE}/users/@me", "the member", waited, headers=bearer
            )
        return Member(
            int(user["id"]),
            plain_name(user.get("global_name") or user["username"]),
            user.get("locale"),
            access,
        )

    async def place(self, instance_id: str) -> ActivityInstance:
        """The channel of the Activity instance ``instance_id`` and who is in it (asked with the
        bot's token, within the time of every background Discord call)."""
        try:
            instance = await self._instance(instance_id)
        except discord.HTTPException as error:
            raise NotVouched(f"the activity instance: {error.status} {error.text}") from None
        except TimeoutError:
            raise NotVouched("the activity instance: no answer in time") from None
        location = instance.get("location") or {}
        channel = location.get("channel_id")
        if channel is None:
            raise NotVouched("the activity instance has no channel")
        guild = location.get("guild_id")
        users = _users_of(instance)
        self._presence.put(instance_id, users)  # the freshest answer: a newcomer is in it
        return ActivityInstance(int(channel), int(guild) if guild else None, users)

    async def still_there(self, session: Session) -> bool:
        """Whether the member of ``session`` is still in its Activity's instance (Discord takes
        out of it whoever leaves, or can no longer see its channel). Asked of Discord once per
        instance per :data:`PRESENCE_SECONDS`, every page of the instance waiting for the one
        answer (a session given meanwhile, :meth:`place`, brings a fresher one: a newcomer is
        in it); an instance Discord no longer knows has nobody in it. Discord not answering (an
        outage, a timeout, a 5xx, a long rate limit): yes — the session was vouched for, and
        an outage must not lock every member out of their games."""
        users = await self._presence.get(
            session.instance_id, lambda: self._users(session.instance_id)
        )
        if users is None or session.user_id in users:
            return True
        log.info("live board session refused: user %s left its activity", session.user_id)
        return False

    async def _users(self, instance_id: str) -> frozenset[int] | None:
        """Who is in the instance (empty: it ended); ``None``: Discord did not say."""
        try:
            instance = await self._instance(instance_id)
        except (discord.NotFound, discord.Forbidden):
            return frozenset()
        except (discord.DiscordServerError, discord.RateLimited, TimeoutError) as error:
            log.warning("activity instance not known (%s): its pages are let in", error)
            return None
        except discord.HTTPException as error:  # Discord refused to say: a definite no
            log.info("activity instance refused: %s %s", error.status, error.text)
            return frozenset()
        return _users_of(instance)

    async def _instance(self, instance_id: str) -> dict[str, Any]:
        route = Route(
            "GET",
            "/applications/{application_id}/activity-instances/{instance_id}",
            application_id=self._client.application_id,
            instance_id=instance_id,
        )
        return await discord_call(self._client.http.request(route))


@dataclass
class Waited:
    """Seconds waited after 429s for one page so far."""

    seconds: float = 0.0


async def _discord_json(
    http: aiohttp.ClientSession, method: str, url: str, what: str, waited: Waited, **options: Any
) -> dict[str, Any]:
    """The JSON object a request answers, or :class:`NotVouched` (status and Discord's error
    code in the text; nothing that was sent); a 429 is tried again after its ``Retry-After``
    (:data:`TRIES`, :data:`LONGEST_WAIT`, :data:`WAIT_BUDGET`), else :class:`RateLimited`."""
    for attempt in range(1, TRIES + 1):
        try:
            async with http.request(method, url, **options) as response:
                text = await response.text()
                status, headers = response.status, response.headers
        except (aiohttp.ClientError, TimeoutError) as error:
            raise NotVouched(f"{what}: {type(error).__name__}") from None
        body = _object(text)
        if status == 429:
            wait = _retry_after(headers, body)
            if attempt == TRIES or wait > LONGEST_WAIT or waited.seconds + wait > WAIT_BUDGET:
                raise RateLimited(what, wait)
            log.info("%s: rate limited, trying again in %.1f s", what, wait)
            waited.seconds += wait
            await asyncio.sleep(wait)
            continue
        if status != 200 or body is None:
            error = body.get("error") if body is not None else None
            raise NotVouched(f"{what}: HTTP {status} {error or ''}".strip())
        return body
    raise AssertionError("unreachable: the last try returns or raises")


def _object(text: str) -> dict[str, Any] | None:
    """The JSON object of a body (``None``: not one — an HTML error page, say)."""
    try:
        body = json.loads(text)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _retry_after(headers: Any, body: dict[str, Any] | None) -> float:
    """Seconds a 429 asks to wait: its body's ``retry_after`` (Discord's, to the millisecond),
    else its ``Retry-After`` header, else one."""
    for value in ((body or {}).get("retry_after"), headers.get("Retry-After")):
        if value is None:
            continue
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            continue
        if math.isfinite(seconds) and seconds >= 0:
            return seconds
    return 1.0


def _users_of(instance: dict[str, Any]) -> frozenset[int]:
    """Who is in an Activity instance, as Discord describes it."""
    return frozenset(int(user) for user in instance.get("users", ()))
