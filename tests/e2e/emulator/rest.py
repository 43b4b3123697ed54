"""Discord's REST API under /api/v10, as far as a slash-command bot uses it (with public threads).

Unknown routes are recorded (rule ``http.unknown-route``) and answered 404 like Discord.
"""

from __future__ import annotations

import asyncio
import base64
import datetime
import json
import re
from collections.abc import Awaitable, Callable

from aiohttp import BodyPartReader, web

from . import interactions, openapi, threads
from .activities import PRIMARY_ENTRY_POINT, Grant, rate_limited
from .interactions import Interaction
from .journal import RequestRecord, Violation
from .messages import Message, Upload, compose
from .model import (
    ATTACH_FILES,
    CREATE_EVENTS,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    DM,
    EMBED_LINKS,
    JSON,
    MANAGE_CHANNELS,
    MANAGE_EVENTS,
    MANAGE_THREADS,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    Channel,
    Guild,
    snowflake,
)
from .rules import (
    FormError,
    Rejection,
    check_application,
    check_commands,
    check_nonce,
    check_thread,
    check_thread_edit,
)
from .state import State

API = "/api/v10"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_FILE_PART = re.compile(r"files\[(\d+)\]")
_INTERACTION = web.RequestKey("interaction", Interaction)
_ARRIVED = web.RequestKey("arrived", float)
"""When a request reached the emulator (its headers read): the time an answer to an
interaction counts at, however long its body then takes to read and check."""
ENTRY_POINT_REMOVED = (
    "You cannot remove this app's Entry Point command in a bulk update operation. Please include "
    "the Entry Point command in your update request or delete it separately."
)
FORM = "application/x-www-form-urlencoded"
_PERMISSION_NAMES = {
    VIEW_CHANNEL: "View Channel",
    SEND_MESSAGES: "Send Messages",
    EMBED_LINKS: "Embed Links",
    ATTACH_FILES: "Attach Files",
    READ_MESSAGE_HISTORY: "Read Message History",
    MANAGE_CHANNELS: "Manage Channels",
    MANAGE_THREADS: "Manage Threads",
    CREATE_PUBLIC_THREADS: "Create Public Threads",
    CREATE_PRIVATE_THREADS: "Create Private Threads",
    SEND_MESSAGES_IN_THREADS: "Send Messages in Threads",
}


def _json(data: object, status: int = 200) -> web.Response:
    # Exactly "application/json", no charset: discord.py compares the header verbatim.
    body = json.dumps(data).encode()
    return web.Response(body=body, status=status, headers={"Content-Type": "application/json"})


def _oauth_error(status: int, error: str, description: str) -> web.Response:
    """An OAuth2 error answer (RFC 6749), as Discord's token URL gives it."""
    return _json({"error": error, "error_description": description}, status)


def _basic_credentials(header: str) -> tuple[str | None, str | None]:
    """The login and password of an HTTP Basic ``Authorization`` header (None if it is not)."""
    scheme, _, encoded = header.partition(" ")
    try:
        login, colon, password = base64.b64decode(encoded, validate=True).decode().partition(":")
    except ValueError:
        return None, None
    return (login, password) if scheme.lower() == "basic" and colon else (None, None)


def _no_content() -> web.Response:
    return web.Response(status=204)


async def read_body(request: web.Request) -> tuple[JSON, list[Upload]]:
    """A request's JSON body, or a multipart body's ``payload_json`` and ``files[n]`` parts.

    The JSON is checked against the route's schema in Discord's OpenAPI document; the errors
    are held until the handler calls ``openapi.enforce()`` where the request takes effect.
    """
    if request.content_type.startswith("multipart/"):
        payload: JSON = {}
        uploads: list[Upload] = []
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            assert isinstance(part, BodyPartReader)
            match = _FILE_PART.fullmatch(part.name or "")
            if part.name == "payload_json":
                payload = _parse(await part.text())
            elif match:
                uploads.append(Upload(int(match[1]), part.filename or "", bytes(await part.read())))
        _check_schema(request, payload)
        return payload, uploads
    text = await request.text()
    payload = _parse(text) if text else {}
    _check_schema(request, payload)
    return payload, []


def spec_path(route: str, message_id: str | None = None) -> str:
    """The path in Discord's OpenAPI document of the emulator's ``route`` (e.g.
    ``/api/v10/webhooks/{app_id}/{token}``): its parameters named as there, and ``@original``
    spelled out when it is the ``message_id``."""
    path = route.removeprefix(API)
    if path.startswith("/webhooks/"):
        path = path.replace("{app_id}", "{webhook_id}").replace("{token}", "{webhook_token}")
        if message_id == "@original":
            path = path.replace("{message_id}", "@original")
    else:
        path = path.replace("{app_id}", "{application_id}")
        path = path.replace("{token}", "{interaction_token}")
    return path


def _check_schema(request: web.Request, payload: object) -> None:
    """Hold the schema errors of ``payload`` (once per request)."""
    route = request.match_info.route.resource
    assert route is not None
    path = spec_path(route.canonical, request.match_info.get("message_id"))
    openapi.hold(openapi.schemas().check(request.method, path, payload))


def _parse(text: str) -> JSON:
    try:
        return json.loads(text)
    except ValueError:
        raise Rejection(
            400, 50109, "The request body contains invalid JSON.", "http.invalid-json"
        ) from None


class Rest:
    """The REST routes, bound to the shared state."""

    def __init__(self, state: State) -> None:
        self.state = state

    def routes(self, app: web.Application, gateway_url: Callable[[], str]) -> None:
        """Add every route to ``app`` (the gateway's WebSocket routes are added elsewhere)."""
        self.gateway_url = gateway_url
        app.middlewares.append(self._middleware)
        table: list[tuple[str, str, Handler]] = [
            ("GET", "/gateway", self.get_gateway),
            ("GET", "/gateway/bot", self.get_gateway_bot),
            ("GET", "/users/@me", self.get_me),
            ("POST", "/oauth2/token", self.exchange_token),
            ("POST", "/users/@me/channels", self.create_dm),
            ("GET", "/users/{user_id}", self.get_user),
            ("GET", "/oauth2/applications/@me", self.get_application),
            ("GET", "/applications/@me", self.get_application),
            ("PATCH", "/applications/@me", self.edit_application),
            (
                "GET",
                "/applications/{app_id}/activity-instances/{instance_id}",
                self.get_activity_instance,
            ),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self.interaction_callback),
            ("POST", "/webhooks/{app_id}/{token}", self.create_followup),
            ("GET", "/webhooks/{app_id}/{token}/messages/{message_id}", self.get_webhook_message),
            (
                "PATCH",
                "/webhooks/{app_id}/{token}/messages/{message_id}",
                self.edit_webhook_message,
            ),
            (
                "DELETE",
                "/webhooks/{app_id}/{token}/messages/{message_id}",
                self.delete_webhook_message,
            ),
            ("GET", "/channels/{channel_id}", self.get_channel),
            ("PATCH", "/channels/{channel_id}", self.edit_channel),
            ("DELETE", "/channels/{channel_id}", self.delete_channel),
            ("POST", "/channels/{channel_id}/typing", self.typing),
            ("GET", "/channels/{channel_id}/messages", self.list_messages),
            ("POST", "/channels/{channel_id}/messages", self.create_message),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self.get_message),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self.edit_message),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self.delete_message),
            (
                "POST",
                "/channels/{channel_id}/messages/{message_id}/threads",
                self.start_thread_from_message,
            ),
            ("POST", "/channels/{channel_id}/threads", self.start_thread),
            ("GET", "/channels/{channel_id}/threads/archived/public", self.archived_threads),
            ("GET", "/channels/{channel_id}/thread-members", self.list_thread_members),
            ("GET", "/channels/{channel_id}/thread-members/{user_id}", self.get_thread_member),
            ("PUT", "/channels/{channel_id}/thread-members/{user_id}", self.add_thread_member),
            (
                "DELETE",
                "/channels/{channel_id}/thread-members/{user_id}",
                self.remove_thread_member,
            ),
            ("GET", "/guilds/{guild_id}", self.get_guild),
            ("GET", "/guilds/{guild_id}/channels", self.get_guild_channels),
            ("GET", "/guilds/{guild_id}/threads/active", self.active_threads),
            ("GET", "/guilds/{guild_id}/roles", self.get_roles),
            ("GET", "/guilds/{guild_id}/members", self.list_members),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member),
            ("POST", "/guilds/{guild_id}/scheduled-events", self.create_scheduled_event),
            (
                "DELETE",
                "/guilds/{guild_id}/scheduled-events/{event_id}",
                self.delete_scheduled_event,
            ),
        ]
        for scope in ("/applications/{app_id}", "/applications/{app_id}/guilds/{guild_id}"):
            table += [
                ("GET", f"{scope}/commands", self.list_commands),
                ("PUT", f"{scope}/commands", self.overwrite_commands),
                ("POST", f"{scope}/commands", self.upsert_command),
                ("GET", f"{scope}/commands/{{command_id}}", self.get_command),
                ("PATCH", f"{scope}/commands/{{command_id}}", self.patch_command),
                ("DELETE", f"{scope}/commands/{{command_id}}", self.delete_command),
            ]
        for method, path, handler in table:
            app.router.add_route(method, API + path, handler)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self.attachment)

    def add_fallback(self, app: web.Application) -> None:
        """Answer everything else 404 (to be added after all other routes)."""
        app.router.add_route("*", "/{tail:.*}", self.unknown)

    # Plumbing ---------------------------------------------------------------------------------

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.path.startswith(API):
            return await self._answer(request, handler)  # the gateway, attachment downloads
        request[_ARRIVED] = asyncio.get_running_loop().time()
        self.state.requests_in_flight += 1
        try:
            return await self._answer(request, handler)
        finally:
            self.state.requests_in_flight -= 1
            self.state.journal.changed()

    async def _answer(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        openapi.hold([])  # (aiohttp runs each request in a task of its own: a fresh context)
        try:
            try:
                response = await handler(request)
                openapi.enforce()  # every route enforces before it takes effect; in case not
            except (AttributeError, KeyError, TypeError, ValueError) as error:
                detail = f"malformed request ({type(error).__name__}: {error})"
                raise Rejection(
                    400, 50035, "Invalid Form Body", "http.malformed", detail=detail
                ) from error
        except Rejection as rejection:
            self._reject(request, rejection)
            response = _json(rejection.body(), rejection.status)
        finally:
            openapi.hold([])  # refused under another rule: its schema errors are dropped
        self.state.journal.requests.append(
            RequestRecord(request.method, request.path, response.status)
        )
        return response

    def _reject(self, request: web.Request, rejection: Rejection) -> None:
        if not rejection.violation:
            return
        ix = request.get(_INTERACTION)
        where = f"{request.method} {request.path}"
        found = [(e.rule, str(e)) for e in rejection.errors] or [(rejection.rule, rejection.detail)]
        if ix is not None:
            found = [(rule, f"{ix}: {text}") for rule, text in found]
        for rule, text in found:
            violation = Violation(
                rule, text, rejection.status, rejection.code, where, ix.id if ix else None
            )
            interactions.record(self.state, ix, violation)

    def _auth(self, request: web.Request) -> None:
        if request.headers.get("Authorization") != f"Bot {self.state.config.token}":
            raise Rejection(401, 0, "401: Unauthorized", "http.unauthorized")

    def _interaction(self, request: web.Request) -> Interaction:
        ix = self.state.interactions.get(request.match_info["token"])
        if ix is None:
            raise Rejection(404, 10015, "Unknown Webhook", "http.unknown-resource")
        request[_INTERACTION] = ix
        app_id = request.match_info.get("app_id")
        if app_id is not None and app_id != str(self.state.application_id):
            raise Rejection(404, 10015, "Unknown Webhook", "http.unknown-resource")
        iid = request.match_info.get("interaction_id")
        if iid is not None and iid != str(ix.id):
            raise Rejection(404, 10062, "Unknown interaction", "http.unknown-resource")
        return ix

    def _channel(self, request: web.Request) -> Channel:
        self._auth(request)
        channel = self.state.world.find_channel(int(request.match_info["channel_id"]))
        if channel is None:
            raise Rejection(404, 10003, "Unknown Channel", "http.unknown-resource")
        if not self.state.world.bot_in(channel):  # a user install's place: World.bot_in
            detail = f"the bot is not in channel {channel.id} (a user install's place)"
            raise Rejection(
                403, 50001, "Missing Access", "permissions.not-in-channel", detail=detail
            )
        self._require(channel, VIEW_CHANNEL)
        return channel

    def _bot_permissions(self, channel: Channel) -> int | None:
        """The bot's permissions in a guild channel (``None`` in a DM)."""
        world = self.state.world
        guild = world.guild_of(channel)
        return guild.permissions_in(channel, world.bot.id) if guild is not None else None

    def _require(self, channel: Channel, needed: int) -> None:
        perms = self._bot_permissions(channel)
        if perms is None:
            return
        missing = needed & ~perms
        if missing & VIEW_CHANNEL:
            raise Rejection(403, 50001, "Missing Access", "permissions.missing-access")
        if missing:
            names = ", ".join(n for bit, n in _PERMISSION_NAMES.items() if missing & bit)
            detail = f"the bot lacks {names} in #{channel.name}"
            raise Rejection(403, 50013, "Missing Permissions", "permissions.missing", detail=detail)

    @staticmethod
    def _send_permission(channel: Channel) -> int:
        """What sending needs here: Send Messages, or in a thread Send Messages in Threads."""
        return SEND_MESSAGES_IN_THREADS if channel.is_thread else SEND_MESSAGES

    def _thread(self, request: web.Request) -> Channel:
        """The thread a ``/channels/{channel_id}/thread-members`` route names (50024 if the
        channel is not one)."""
        channel = self._channel(request)
        if not channel.is_thread:
            raise Rejection(
                400,
                50024,
                "Cannot execute action on this channel type",
                "threads.channel-type",
                detail=f"#{channel.name or 'DM'} is not a thread",
            )
        return channel

    def _thread_user(self, request: web.Request, thread: Channel) -> int:
        """The user id of ``{user_id}`` (``@me``: the bot), a member of the thread's guild."""
        world = self.state.world
        raw = request.match_info["user_id"]
        if raw == "@me":
            return world.bot.id
        user = world.find_user(int(raw))
        if user is None:
            raise Rejection(404, 10013, "Unknown User", "http.unknown-resource")
        guild = world.guild_of(thread)
        if guild is None or user.id not in guild.members:
            raise Rejection(404, 10007, "Unknown Member", "http.unknown-resource")
        return user.id

    def _message(self, request: web.Request, channel: Channel) -> Message:
        message = self.state.messages.get(int(request.match_info["message_id"]))
        if message is None or message.channel_id != channel.id or not message.visible(None):
            raise Rejection(404, 10008, "Unknown Message", "http.unknown-resource")
        return message

    def _guild(self, request: web.Request) -> Guild:
        self._auth(request)
        world = self.state.world
        guild = next((g for g in world.guilds if str(g.id) == request.match_info["guild_id"]), None)
        if guild is None:
            raise Rejection(404, 10004, "Unknown Guild", "http.unknown-resource")
        return guild

    async def unknown(self, request: web.Request) -> web.Response:
        detail = f"{request.method} {request.path} is not emulated"
        raise Rejection(404, 0, "404: Not Found", "http.unknown-route", detail=detail)

    # Gateway, users, application --------------------------------------------------------------

    async def get_gateway(self, request: web.Request) -> web.Response:
        return _json({"url": self.gateway_url()})

    async def get_gateway_bot(self, request: web.Request) -> web.Response:
        self._auth(request)
        config = self.state.config
        limit = {
            "total": 1000,
            "remaining": max(0, 1000 - self.state.session_starts),
            "reset_after": 86_400_000,
            "max_concurrency": max(1, config.max_concurrency),
        }
        shards = max(1, config.recommended_shards)
        return _json({"url": self.gateway_url(), "shards": shards, "session_start_limit": limit})

    async def get_me(self, request: web.Request) -> web.Response:
        """The bot (with its ``Bot`` token), or the user of an OAuth2 ``Bearer`` token with the
        ``identify`` scope."""
        authorization = request.headers.get("Authorization", "")
        if authorization.startswith("Bearer "):
            grant = self.state.activities.access_tokens.get(authorization.removeprefix("Bearer "))
            if grant is None or "identify" not in grant.scopes:
                raise Rejection(401, 0, "401: Unauthorized", "oauth2.unknown-token")
            me = grant.user.to_json()
            me.update({"mfa_enabled": False, "locale": grant.user.locale, "premium_type": 0})
            return _json(me)
        self._auth(request)
        bot = self.state.world.bot
        me = bot.to_json()
        me.update({"verified": True, "mfa_enabled": False, "email": None, "locale": bot.locale})
        return _json(me)

    async def exchange_token(self, request: web.Request) -> web.Response:
        """POST /oauth2/token, form-encoded (Discord takes no JSON there): the app (``client_id``
        and ``client_secret`` in the form or as HTTP Basic credentials) exchanges an
        authorization code, once, or a refresh token for an access token. Refusals are OAuth2's
        ``{"error": ...}`` answers, Discord's normal ones (not broken rules), but for a body
        that is not form-encoded (``oauth2.content-type``)."""
        if request.content_type != FORM:
            detail = f"POST /oauth2/token takes {FORM}, not {request.content_type!r}"
            violation = Violation("oauth2.content-type", detail, 400, 0, "POST /oauth2/token")
            interactions.record(self.state, None, violation)
            return _oauth_error(400, "invalid_request", "Invalid content type")
        if self.state.activities.token_limits:  # rate limited (on demand): the code stays unused
            body, headers = rate_limited(self.state.activities.token_limits.pop(0))
            response = _json(body, 429)
            response.headers.update(headers)
            return response
        form = await request.post()
        client_id, secret = form.get("client_id"), form.get("client_secret")
        if "Authorization" in request.headers:
            client_id, secret = _basic_credentials(request.headers["Authorization"])
        config = self.state.config
        if client_id != str(self.state.application_id) or secret != config.client_secret:
            return _oauth_error(401, "invalid_client", "Invalid client")
        grants = self.state.activities
        grant: Grant | None
        if form.get("grant_type") == "authorization_code":
            grant = grants.codes.pop(str(form.get("code", "")), None)
            if grant is None:
                return _oauth_error(400, "invalid_grant", 'Invalid "code" in request.')
        elif form.get("grant_type") == "refresh_token":
            grant = grants.refresh_tokens.pop(str(form.get("refresh_token", "")), None)
            if grant is None:
                return _oauth_error(400, "invalid_grant", 'Invalid "refresh_token" in request.')
        else:
            return _oauth_error(400, "unsupported_grant_type", "Unsupported grant type")
        return _json(grants.issue(grant))

    async def get_user(self, request: web.Request) -> web.Response:
        self._auth(request)
        user = self.state.world.find_user(int(request.match_info["user_id"]))
        if user is None:
            raise Rejection(404, 10013, "Unknown User", "http.unknown-resource")
        return _json(user.to_json())

    async def create_dm(self, request: web.Request) -> web.Response:
        self._auth(request)
        body, _ = await read_body(request)
        user = self.state.world.find_user(int(body.get("recipient_id", 0)))
        if user is None or user.bot:
            raise Rejection(400, 50007, "Cannot send messages to this user", "http.dm")
        openapi.enforce()
        return _json(self.state.world.dm_with(user).to_json())

    async def get_application(self, request: web.Request) -> web.Response:
        self._auth(request)
        return _json(self.state.application_json())

    async def edit_application(self, request: web.Request) -> web.Response:
        """PATCH /applications/@me: keeps ``integration_types_config`` (guild and user install);
        other fields are checked and accepted, not emulated."""
        self._auth(request)
        body, _ = await read_body(request)
        errors = check_application(body)
        if errors:
            raise Rejection.form(errors)
        openapi.enforce()
        config = body.get("integration_types_config")
        if config is not None:
            self.state.application.integration_types_config = dict(config)
        return _json(self.state.application_json())

    async def get_activity_instance(self, request: web.Request) -> web.Response:
        """GET /applications/{app}/activity-instances/{instance_id}: a running instance (404
        once it ended, or for an id Discord never gave: a normal answer, not a broken rule)."""
        self._auth(request)
        if request.match_info["app_id"] != str(self.state.application_id):
            raise Rejection(403, 50001, "Missing Access", "permissions.missing-access")
        instance = self.state.activities.find(request.match_info["instance_id"])
        if instance is None:
            raise Rejection(404, 0, "404: Not Found", "activities.unknown", violation=False)
        return _json(instance.to_json())

    # Commands ---------------------------------------------------------------------------------

    def _scope(self, request: web.Request) -> int | None:
        self._auth(request)
        if request.match_info["app_id"] != str(self.state.application_id):
            raise Rejection(403, 50001, "Missing Access", "permissions.missing-access")
        if "guild_id" in request.match_info:
            return self._guild(request).id
        return None

    def _command(self, request: web.Request, scope: int | None) -> JSON:
        command = self.state.commands.by_id(scope, int(request.match_info["command_id"]))
        if command is None:
            raise Rejection(404, 10063, "Unknown application command", "http.unknown-resource")
        return command

    async def list_commands(self, request: web.Request) -> web.Response:
        return _json(self.state.commands.list(self._scope(request)))

    async def overwrite_commands(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        body = _parse(await request.text() or "null")
        _check_schema(request, body)
        if not isinstance(body, list):
            raise Rejection(400, 50035, "Invalid Form Body", "commands.schema")
        errors = check_commands(body)
        if errors:
            raise Rejection.form(errors)
        entry_point = self.state.commands.entry_point()
        if (
            scope is None
            and entry_point is not None
            and not any(c.get("type") == PRIMARY_ENTRY_POINT for c in body)
        ):
            detail = f"the list leaves out the Entry Point command {entry_point['name']!r}"
            raise Rejection(400, 50240, ENTRY_POINT_REMOVED, "commands.entry-point", detail=detail)
        openapi.enforce()
        return _json(self.state.commands.overwrite(scope, body))

    async def upsert_command(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        body, _ = await read_body(request)
        errors = check_commands([body])
        if errors:
            raise Rejection.form(errors)
        openapi.enforce()
        return _json(self.state.commands.upsert(scope, body), 201)

    async def get_command(self, request: web.Request) -> web.Response:
        return _json(self._command(request, self._scope(request)))

    async def patch_command(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        command = self._command(request, scope)
        body, _ = await read_body(request)
        merged = {**command, **body}
        errors = check_commands([merged])
        if errors:
            raise Rejection.form(errors)
        openapi.enforce()
        return _json(self.state.commands.replace(scope, command, merged))

    async def delete_command(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        self.state.commands.delete(scope, int(self._command(request, scope)["id"]))
        return _no_content()

    # Interactions -----------------------------------------------------------------------------

    async def interaction_callback(self, request: web.Request) -> web.Response:
        ix = self._interaction(request)
        with interactions.answering(self.state, ix):
            body, uploads = await read_body(request)
            ix.callbacks.append((body.get("type"), 0))
            try:
                answer = interactions.callback(self.state, ix, body, uploads, request[_ARRIVED])
            except Rejection as rejection:
                ix.callbacks[-1] = (body.get("type"), rejection.status)
                raise
        ix.callbacks[-1] = (body.get("type"), 200)
        if request.query.get("with_response") in ("1", "true", "True"):
            return _json(answer)
        return _no_content()

    async def create_followup(self, request: web.Request) -> web.Response:
        ix = self._interaction(request)
        body, uploads = await read_body(request)
        message = interactions.followup(self.state, ix, body, uploads)
        return _json(message.to_json(self.state.base_url))

    async def get_webhook_message(self, request: web.Request) -> web.Response:
        ix = self._interaction(request)
        message = interactions.target(ix, request.match_info["message_id"])
        return _json(message.to_json(self.state.base_url))

    async def edit_webhook_message(self, request: web.Request) -> web.Response:
        ix = self._interaction(request)
        body, uploads = await read_body(request)
        message = interactions.edit(self.state, ix, request.match_info["message_id"], body, uploads)
        return _json(message.to_json(self.state.base_url))

    async def delete_webhook_message(self, request: web.Request) -> web.Response:
        ix = self._interaction(request)
        self.state.delete(interactions.target(ix, request.match_info["message_id"]))
        return _no_content()

    # Channels and messages --------------------------------------------------------------------

    async def get_channel(self, request: web.Request) -> web.Response:
        return _json(self._channel(request).to_json(me=self.state.world.bot.id))

    async def typing(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self._require(channel, self._send_permission(channel))
        return _no_content()

    async def list_messages(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        found = [m for m in self.state.channel_messages(channel) if m.visible(None)]
        perms = self._bot_permissions(channel)
        if perms is not None and not perms & READ_MESSAGE_HISTORY:
            found = []  # Discord answers an empty list, not an error
        if "before" in request.query:
            found = [m for m in found if m.id < int(request.query["before"])]
        if "after" in request.query:
            found = [m for m in found if m.id > int(request.query["after"])]
        limit = max(1, min(100, int(request.query.get("limit", 50))))
        newest = sorted(found, key=lambda m: m.id, reverse=True)[:limit]
        return _json([m.to_json(self.state.base_url) for m in newest])

    async def create_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        body, uploads = await read_body(request)
        needed = self._send_permission(channel)
        if uploads:
            needed |= ATTACH_FILES
        if body.get("embeds"):
            needed |= EMBED_LINKS
        self._require(channel, needed)
        threads.check_writable(channel)
        self._check_dm_open(channel)
        errors = check_nonce(body)
        if errors:
            raise Rejection.form(errors)
        bot = self.state.world.bot
        message = Message(id=snowflake(), channel_id=channel.id, author=bot)
        compose(
            message,
            body,
            uploads,
            size_limit=self.state.config.attachment_size_limit,
            creating=True,
        )
        now = asyncio.get_running_loop().time()
        message.nonce = body.get("nonce")
        if message.nonce is not None:
            if body.get("enforce_nonce") is True:
                earlier = self.state.by_nonce(channel.id, bot.id, message.nonce, now)
                if earlier is not None:  # the same message again: Discord answers the first
                    return _json(earlier.to_json(self.state.base_url))
            self.state.remember_nonce(message, now)
        if channel.is_thread:  # posting unarchives the thread and joins the bot to it
            threads.touch(self.state, channel)
            threads.add_member(self.state, channel, bot.id)
        self.state.post(message)
        return _json(message.to_json(self.state.base_url))

    def _check_dm_open(self, channel: Channel) -> None:
        """A DM with a user who closed their DMs to the bot, or who neither shares a guild with
        it nor installed the app to their account, answers 403, 50007: Discord's normal answer,
        which a bot must handle (not a violation)."""
        user = channel.recipient
        if channel.type != DM or user is None:
            return
        reachable = self.state.world.shares_guild(user.id) or (
            self.state.application.installed_by(user.id)
        )
        if user.dms_closed or not reachable:
            why = "closed their DMs" if user.dms_closed else "shares no guild, no user install"
            raise Rejection(
                403,
                50007,
                "Cannot send messages to this user",
                "dm.closed",
                detail=f"{user.username} {why}",
                violation=False,
            )

    async def get_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self._require(channel, READ_MESSAGE_HISTORY)
        return _json(self._message(request, channel).to_json(self.state.base_url))

    async def edit_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        message = self._message(request, channel)
        if message.author is not self.state.world.bot:
            raise Rejection(
                403, 50005, "Cannot edit a message authored by another user", "http.not-author"
            )
        threads.check_not_archived(channel)
        body, uploads = await read_body(request)
        if uploads:
            self._require(channel, ATTACH_FILES)
        compose(
            message,
            body,
            uploads,
            size_limit=self.state.config.attachment_size_limit,
            creating=False,
        )
        self.state.edited(message)
        return _json(message.to_json(self.state.base_url))

    async def delete_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        message = self._message(request, channel)
        threads.check_not_archived(channel)
        self.state.delete(message)
        return _no_content()

    async def edit_channel(self, request: web.Request) -> web.Response:
        """PATCH /channels/{id}: a thread's name, archived, locked, auto_archive_duration and
        rate_limit_per_user (other channels are not emulated)."""
        thread = self._channel(request)
        if not thread.is_thread:
            detail = f"PATCH of channel type {thread.type} is not emulated (threads only)"
            raise Rejection(404, 0, "404: Not Found", "http.unknown-route", detail=detail)
        body, _ = await read_body(request)
        errors = check_thread_edit(body)
        if errors:
            raise Rejection.form(errors)
        openapi.enforce()
        keys = ("name", "archived", "locked", "auto_archive_duration", "rate_limit_per_user")
        changes = {k: body[k] for k in keys if body.get(k) is not None}
        unarchiving = changes.get("archived") is False
        if changes.get("locked", thread.locked) != thread.locked:
            self._require(thread, MANAGE_THREADS)  # only moderators lock and unlock
        if thread.archived and thread.locked and unarchiving:
            self._require(thread, MANAGE_THREADS)  # a locked thread stays archived for others
        if set(changes) == {"archived"} and unarchiving:
            self._require(thread, self._send_permission(thread))  # anyone who may post
        elif thread.owner_id != self.state.world.bot.id:
            self._require(thread, MANAGE_THREADS)
        if thread.archived and not unarchiving:
            raise threads.archived(thread)
        for key in ("name", "auto_archive_duration", "rate_limit_per_user"):
            if key in changes:
                setattr(thread, key, changes[key])
        threads.set_archived(
            self.state,
            thread,
            changes.get("archived", thread.archived),
            locked=changes.get("locked"),
        )
        return _json(thread.to_json(me=self.state.world.bot.id))

    async def delete_channel(self, request: web.Request) -> web.Response:
        """DELETE /channels/{id}: a thread (its owner, or Manage Threads) or a text channel
        (Manage Channels), answered with the channel; a DM is just closed."""
        channel = self._channel(request)
        data = channel.to_json()
        if channel.type == DM:
            return _json(data)
        if not channel.is_thread:
            self._require(channel, MANAGE_CHANNELS)
        elif channel.owner_id != self.state.world.bot.id:
            self._require(channel, MANAGE_THREADS)
        threads.delete(self.state, channel)
        return _json(data)

    # Threads ----------------------------------------------------------------------------------

    async def start_thread_from_message(self, request: web.Request) -> web.Response:
        parent = self._channel(request)
        body, _ = await read_body(request)
        errors = check_thread(body, with_type=False)
        if errors:
            raise Rejection.form(errors)
        openapi.enforce()
        threads.check_parent(parent)
        message = self._message(request, parent)
        return await self._start_thread(parent, body, message)

    async def start_thread(self, request: web.Request) -> web.Response:
        parent = self._channel(request)
        body, _ = await read_body(request)
        errors = check_thread(body, with_type=True)
        if errors:
            raise Rejection.form(errors)
        openapi.enforce()
        threads.check_parent(parent)
        if body["type"] == PRIVATE_THREAD:
            return await self._start_thread(parent, body, None, private=True)
        if body["type"] != PUBLIC_THREAD:  # announcement threads need an announcement channel
            raise Rejection(
                400,
                50024,
                "Cannot execute action on this channel type",
                "threads.channel-type",
                detail=f"a thread of type {body['type']} cannot be started in a text channel",
            )
        return await self._start_thread(parent, body, None)

    async def _start_thread(
        self, parent: Channel, body: JSON, message: Message | None, *, private: bool = False
    ) -> web.Response:
        self._require(parent, CREATE_PRIVATE_THREADS if private else CREATE_PUBLIC_THREADS)
        if message is not None and message.thread is not None:
            raise Rejection(
                400,
                160004,
                "A thread has already been created for this message",
                "threads.already-created",
                detail=f"message {message.id} already has the thread {message.thread.name!r}",
            )
        guild = self.state.world.guild_of(parent)
        assert guild is not None
        threads.check_limit(self.state, guild)
        bot = self.state.world.bot
        thread = threads.create(
            self.state,
            parent,
            name=body["name"],
            owner=bot,
            auto_archive_duration=body.get("auto_archive_duration"),
            rate_limit_per_user=body.get("rate_limit_per_user"),
            message=message,
            private=private,
        )
        return _json(thread.to_json(me=bot.id), 201)

    async def archived_threads(self, request: web.Request) -> web.Response:
        """GET /channels/{id}/threads/archived/public: newest archived first."""
        parent = self._channel(request)
        threads.check_parent(parent)
        self._require(parent, READ_MESSAGE_HISTORY)
        found = [t for t in self.state.world.threads_of(parent) if t.archived]
        found.sort(key=lambda t: t.archive_timestamp or "", reverse=True)
        if "before" in request.query:
            before = datetime.datetime.fromisoformat(request.query["before"])
            found = [
                t
                for t in found
                if datetime.datetime.fromisoformat(t.archive_timestamp or "") < before
            ]
        limit = max(2, min(100, int(request.query.get("limit", 50))))
        return _json(self._thread_list(found[:limit], has_more=len(found) > limit))

    async def active_threads(self, request: web.Request) -> web.Response:
        """GET /guilds/{id}/threads/active."""
        guild = self._guild(request)
        return _json(self._thread_list(guild.active_threads()))

    def _thread_list(self, found: list[Channel], *, has_more: bool | None = None) -> JSON:
        bot_id = self.state.world.bot.id
        data: JSON = {
            "threads": [t.to_json() for t in found],
            "members": [t.thread_member_json(bot_id) for t in found if bot_id in t.thread_members],
        }
        if has_more is not None:
            data["has_more"] = has_more
        return data

    async def list_thread_members(self, request: web.Request) -> web.Response:
        thread = self._thread(request)
        return _json([thread.thread_member_json(uid) for uid in thread.thread_members])

    async def get_thread_member(self, request: web.Request) -> web.Response:
        thread = self._thread(request)
        user_id = self._thread_user(request, thread)
        if user_id not in thread.thread_members:
            raise Rejection(404, 10007, "Unknown Member", "http.unknown-resource")
        return _json(thread.thread_member_json(user_id))

    async def add_thread_member(self, request: web.Request) -> web.Response:
        """PUT: the bot must be able to post in the thread, which must not be archived."""
        thread = self._thread(request)
        user_id = self._thread_user(request, thread)
        self._require(thread, SEND_MESSAGES_IN_THREADS)
        threads.check_not_archived(thread)
        threads.add_member(self.state, thread, user_id)
        return _no_content()

    async def remove_thread_member(self, request: web.Request) -> web.Response:
        """DELETE: the bot leaves (``@me``), or removes someone else with Manage Threads."""
        thread = self._thread(request)
        user_id = self._thread_user(request, thread)
        if user_id != self.state.world.bot.id:
            self._require(thread, MANAGE_THREADS)
        threads.check_not_archived(thread)
        threads.remove_member(self.state, thread, user_id)
        return _no_content()

    # Guild ------------------------------------------------------------------------------------

    async def get_guild(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        data = guild.to_json(members=[])
        for key in ("members", "channels", "threads", "presences", "voice_states", "joined_at"):
            data.pop(key)
        data["approximate_member_count"] = len(guild.members)
        return _json(data)

    async def get_guild_channels(self, request: web.Request) -> web.Response:
        return _json([c.to_json() for c in self._guild(request).channels.values()])

    async def get_roles(self, request: web.Request) -> web.Response:
        return _json([r.to_json() for r in self._guild(request).roles.values()])

    async def list_members(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        after = int(request.query.get("after", 0))
        limit = max(1, min(1000, int(request.query.get("limit", 1))))
        members = sorted(guild.members.values(), key=lambda m: m.id)
        return _json([m.to_json() for m in members if m.id > after][:limit])

    async def get_member(self, request: web.Request) -> web.Response:
        member = self._guild(request).members.get(int(request.match_info["user_id"]))
        if member is None:
            raise Rejection(404, 10007, "Unknown Member", "http.unknown-resource")
        return _json(member.to_json())

    # Scheduled events --------------------------------------------------------------------------

    def _require_events(self, guild: Guild) -> None:
        """Events need Manage Events or Create Events, guild-wide (50013 otherwise)."""
        if not guild.base_permissions(self.state.world.bot.id) & (MANAGE_EVENTS | CREATE_EVENTS):
            detail = "the bot lacks Create Events (or Manage Events) in the guild"
            raise Rejection(403, 50013, "Missing Permissions", "permissions.missing", detail=detail)

    async def create_scheduled_event(self, request: web.Request) -> web.Response:
        """POST /guilds/{id}/scheduled-events: an external event (somewhere given as
        ``entity_metadata.location``, with an end time), the only kind emulated."""
        guild = self._guild(request)
        body, _ = await read_body(request)
        openapi.enforce()
        self._require_events(guild)
        if body.get("entity_type") != 3:
            detail = "only external events (entity_type 3) are emulated"
            raise Rejection(404, 0, "404: Not Found", "http.unknown-route", detail=detail)
        location = (body.get("entity_metadata") or {}).get("location")
        if not location or not body.get("scheduled_end_time"):
            raise Rejection.form(
                [
                    FormError(
                        ("entity_metadata",),
                        "BASE_TYPE_REQUIRED",
                        "This field is required",
                        "events.external",
                        "an external event needs a location and an end time",
                    )
                ]
            )
        start = datetime.datetime.fromisoformat(body["scheduled_start_time"])
        if start < datetime.datetime.now(datetime.UTC):
            raise Rejection.form(
                [
                    FormError(
                        ("scheduled_start_time",),
                        "GUILD_SCHEDULED_EVENT_SCHEDULE_PAST",
                        "Cannot schedule event in the past.",
                        "events.past",
                    )
                ]
            )
        event = {
            "id": str(snowflake()),
            "guild_id": str(guild.id),
            "channel_id": None,
            "creator_id": str(self.state.world.bot.id),
            "name": body["name"],
            "description": body.get("description"),
            "scheduled_start_time": body["scheduled_start_time"],
            "scheduled_end_time": body["scheduled_end_time"],
            "privacy_level": body.get("privacy_level", 2),
            "status": 1,
            "entity_type": 3,
            "entity_id": None,
            "entity_metadata": {"location": location},
            "user_count": 0,
            "image": None,
        }
        guild.scheduled_events[int(event["id"])] = event
        return _json(event)

    async def delete_scheduled_event(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        self._require_events(guild)
        if guild.scheduled_events.pop(int(request.match_info["event_id"]), None) is None:
            raise Rejection(404, 10070, "Unknown Guild Scheduled Event", "http.unknown-resource")
        return web.Response(status=204)

    # Attachments ("CDN") ----------------------------------------------------------------------

    async def attachment(self, request: web.Request) -> web.Response:
        attachment_id = int(request.match_info["attachment_id"])
        found = self.state.loose_attachments.get(attachment_id)
        for message in self.state.messages.values():
            found = found or next((a for a in message.attachments if a.id == attachment_id), None)
        if found is None:
            raise Rejection(404, 0, "404: Not Found", "http.unknown-resource")
        return web.Response(body=found.data, content_type=found.content_type)
