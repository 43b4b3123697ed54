"""Self-tests of the request bodies checked against Discord's OpenAPI schema (``openapi.py``):
a good and a bad body per route kind, the quirks handled, the emulator's own rules speaking
first, and the answer a bot gets over HTTP."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from aiohttp import web

from tests.e2e.emulator import Emulator
from tests.e2e.emulator.openapi import RULE, SPEC, RequestSchemas, schemas
from tests.e2e.emulator.rest import API, Rest, spec_path
from tests.e2e.emulator.rules import IS_COMPONENTS_V2
from tests.e2e.emulator.tests.raw import rules

JSON = dict[str, Any]
MESSAGES = "/channels/{channel_id}/messages"
MESSAGE = "/channels/{channel_id}/messages/{message_id}"
CALLBACK = "/interactions/{interaction_id}/{interaction_token}/callback"
WEBHOOK = "/webhooks/{webhook_id}/{webhook_token}"
ORIGINAL = "/webhooks/{webhook_id}/{webhook_token}/messages/@original"
FOLLOWUP = "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"
COMMANDS = "/applications/{application_id}/commands"
GUILD_COMMANDS = "/applications/{application_id}/guilds/{guild_id}/commands"
GO = {"type": 2, "style": 1, "label": "Go", "custom_id": "go"}
V2 = {
    "flags": IS_COMPONENTS_V2,
    "components": [
        {
            "type": 17,
            "components": [
                {"type": 10, "content": "# Board"},
                {"type": 12, "items": [{"media": {"url": "attachment://board.png"}}]},
                {"type": 1, "components": [GO]},
            ],
        }
    ],
}
COMMAND = {
    "name": "play",
    "description": "Play",
    "contexts": [0, 1],
    "integration_types": [0, 1],
    "default_member_permissions": 32,
    "options": [{"type": 3, "name": "level", "description": "How hard", "required": False}],
}

# (method, path, a body Discord accepts, a body it refuses, the refused field's path and code)
CASES: list[tuple[str, str, object, object, tuple[str | int, ...], str]] = [
    (
        "POST",
        MESSAGES,
        {"content": "hi", "nonce": 7, "attachments": [{"id": 0, "filename": "a.png"}]},
        {"content": "hi", "tts": "loud"},
        ("tts",),
        "BASE_TYPE_BOOLEAN",
    ),
    (
        "PATCH",
        MESSAGE,
        {"content": None, "embeds": [], **V2},
        {"components": [{"type": 1, "components": [{**GO, "style": 9}]}]},
        ("components", 0, "components", 0, "style"),
        "BASE_TYPE_CHOICES",
    ),
    (
        "POST",
        CALLBACK,
        {"type": 4, "data": {"content": "pong", "flags": 64}},
        {"type": 4, "data": {"embeds": [{"title": "t", "color": -1}]}},
        ("data", "embeds", 0, "color"),
        "NUMBER_TYPE_MIN",
    ),
    (
        "POST",
        CALLBACK,
        {"type": 7, "data": V2},
        {"type": 7, "data": {**V2, "components": [{"type": 17, "components": [{"type": 12}]}]}},
        ("data", "components", 0, "components", 0, "items"),
        "BASE_TYPE_REQUIRED",
    ),
    (
        "POST",
        CALLBACK,
        {"type": 8, "data": {"choices": [{"name": "Apple", "value": "apple"}]}},
        {"type": 3},
        ("type",),
        "BASE_TYPE_CHOICES",
    ),
    (
        "POST",
        WEBHOOK,
        {"content": "follow-up", "flags": 64, "attachments": [{"id": "0"}]},
        {"content": 5},
        ("content",),
        "BASE_TYPE_STRING",
    ),
    (
        "PATCH",
        ORIGINAL,
        {"content": "edited", "attachments": []},
        {"attachments": [{"filename": "a.png"}]},
        ("attachments", 0, "id"),
        "BASE_TYPE_REQUIRED",
    ),
    (
        "PATCH",
        FOLLOWUP,
        {"embeds": [{"title": "t"}]},
        {"flags": "ephemeral"},
        ("flags",),
        "NUMBER_TYPE_COERCE",
    ),
    (
        "POST",
        "/channels/{channel_id}/threads",
        {"name": "game", "type": 11, "auto_archive_duration": 60},
        {"name": 3, "type": 11},
        ("name",),
        "BASE_TYPE_STRING",
    ),
    (
        "POST",
        "/channels/{channel_id}/messages/{message_id}/threads",
        {"name": "game"},
        {"name": "game", "rate_limit_per_user": -1},
        ("rate_limit_per_user",),
        "NUMBER_TYPE_MIN",
    ),
    (
        "PATCH",
        "/channels/{channel_id}",
        {"archived": True, "locked": False},
        {"name": 5},
        ("name",),
        "BASE_TYPE_STRING",
    ),
    (
        "PUT",
        COMMANDS,
        [COMMAND],
        [{**COMMAND, "contexts": [3]}],
        (0, "contexts", 0),
        "BASE_TYPE_CHOICES",
    ),
    (
        "PUT",
        GUILD_COMMANDS,
        [COMMAND],
        [{**COMMAND, "integration_types": []}],
        (0, "integration_types"),
        "BASE_TYPE_MIN_LENGTH",
    ),
    ("POST", COMMANDS, COMMAND, {"description": "no name"}, ("name",), "BASE_TYPE_REQUIRED"),
    (
        "PATCH",
        "/applications/{application_id}/commands/{command_id}",
        {"description": "Play a game"},
        {"name": "x" * 33},
        ("name",),
        "BASE_TYPE_MAX_LENGTH",
    ),
    (
        "PATCH",
        "/applications/@me",
        {"integration_types_config": {"0": {}, "1": {"oauth2_install_params": None}}},
        {"integration_types_config": {}},
        ("integration_types_config",),
        "BASE_TYPE_MIN_LENGTH",
    ),
    (
        "POST",
        "/users/@me/channels",
        {"recipient_id": "80351110224678912"},
        {"recipient_id": "bob"},
        ("recipient_id",),
        "STRING_TYPE_REGEX",
    ),
]


@pytest.mark.parametrize(("method", "path", "good", "bad", "where", "code"), CASES)
def test_a_good_and_a_bad_body_per_route(
    method: str, path: str, good: object, bad: object, where: tuple[str | int, ...], code: str
) -> None:
    assert schemas().check(method, path, good) == []
    (error,) = schemas().check(method, path, bad)
    assert (error.path, error.code, error.rule) == (where, code, RULE)
    assert error.detail, "the violation names the schema error"


def test_snowflakes_are_strings_or_integers() -> None:
    """The schema's SnowflakeType is a string of digits; Discord (and discord.py) also use
    integers. Anything else still fails."""
    check = schemas().check
    assert check("POST", "/users/@me/channels", {"recipient_id": 80351110224678912}) == []
    assert check("POST", MESSAGES, {"content": "x", "attachments": [{"id": 0}]}) == []
    for wrong in (-1, "12a", 1.5, True):
        assert check("POST", "/users/@me/channels", {"recipient_id": wrong}), wrong


def test_permissions_are_integers_or_digit_strings() -> None:
    """Discord documents permission bit sets as strings and accepts integers (discord.py's
    choice): commands' ``default_member_permissions``, install params' ``permissions``."""
    check = schemas().check
    for value in (32, "32", None):
        assert check("POST", COMMANDS, {**COMMAND, "default_member_permissions": value}) == []
        params = {"scopes": ["applications.commands", "bot"], "permissions": value}
        config = {"0": {"oauth2_install_params": params}}
        assert check("PATCH", "/applications/@me", {"integration_types_config": config}) == []
    (error,) = check("POST", COMMANDS, {**COMMAND, "default_member_permissions": "x"})
    assert error.path == ("default_member_permissions",)
    (error,) = check("POST", COMMANDS, {**COMMAND, "default_member_permissions": 1 << 54})
    assert error.code == "NUMBER_TYPE_MAX"


def test_a_union_reports_the_branch_meant_for_the_value() -> None:
    """Components, options and callbacks are unions told apart by ``type``: the error is that
    of the component the body meant (here a section in a container), not of another kind."""
    section = {
        "type": 9,
        "components": [{"type": 10, "content": "hi"}],
        "accessory": {"type": 11, "media": {"url": 3}},
    }
    body = {"type": 4, "data": {**V2, "components": [{"type": 17, "components": [section]}]}}
    (error,) = schemas().check("POST", CALLBACK, body)
    path = ("data", "components", 0, "components", 0, "accessory", "media", "url")
    assert (error.path, error.code) == (path, "BASE_TYPE_STRING")
    assert str(error).startswith("data.components.0.components.0.accessory.media.url: ")


def test_every_write_route_is_validated() -> None:
    """Each POST, PUT and PATCH route the emulator serves maps to an operation of the pruned
    document that has a JSON body (but typing and joining a thread, which take none, and the
    OAuth2 token exchange, form-encoded and not in the document), and the document holds no
    operation the emulator does not serve."""
    app = web.Application()
    rest = Rest(Emulator().state)
    rest.routes(app, lambda: "")
    bodiless = {
        ("POST", f"{API}/channels/{{channel_id}}/typing"),
        ("PUT", f"{API}/channels/{{channel_id}}/thread-members/{{user_id}}"),
        ("POST", f"{API}/oauth2/token"),
    }
    served: set[tuple[str, str]] = set()
    for route in app.router.routes():
        resource = route.resource
        assert resource is not None
        if (
            route.method not in ("POST", "PUT", "PATCH")
            or (route.method, resource.canonical) in bodiless
        ):
            continue
        path = spec_path(resource.canonical)
        assert schemas().validator(route.method, path) is not None, (route.method, path)
        served.add((route.method, path))
    served.add(("PATCH", ORIGINAL))  # the same route as FOLLOWUP, for message_id @original
    assert schemas().operations() == served


def test_the_pruning_keeps_the_referenced_schemas_only() -> None:
    """``discord_openapi/prune.py`` keeps the listed operations' request bodies and 200
    answers and the schemas they reference, transitively, and nothing else."""
    spec = importlib.util.spec_from_file_location("prune", SPEC.with_name("prune.py"))
    assert spec is not None and spec.loader is not None
    prune = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(prune)
    ref = {"$ref": "#/components/schemas/A"}
    body = {"content": {"application/json": {"schema": ref}}}
    paths: JSON = {
        p: {m: {"operationId": "op", "requestBody": body} for m in ms}
        for p, ms in prune.OPERATIONS.items()
    }
    answer = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/D"}}}}
    for p, ms in prune.RESPONSES.items():
        for m in ms:
            paths.setdefault(p, {})[m] = {"operationId": "get", "responses": {"200": answer}}
    paths["/unused"] = {"get": {"operationId": "x"}}
    document = {
        "openapi": "3.1.0",
        "info": {},
        "paths": paths,
        "components": {
            "schemas": {
                "A": {"properties": {"b": {"$ref": "#/components/schemas/B"}}},
                "B": {"items": [{"$ref": "#/components/schemas/C"}]},
                "C": {"type": "string"},
                "D": {"type": "object"},
                "Unused": {"type": "integer"},
            }
        },
    }
    pruned = prune.prune(document)
    assert set(pruned["components"]["schemas"]) == {"A", "B", "C", "D"}
    listed = set(prune.OPERATIONS) | set(prune.RESPONSES)
    assert set(pruned["paths"]) == listed
    kept = json.loads(SPEC.read_text(encoding="utf-8"))
    assert set(kept["paths"]) == listed, "openapi.json was pruned with these lists"
    instance = "/applications/{application_id}/activity-instances/{instance_id}"
    assert set(kept["paths"][instance]["get"]) == {"operationId", "responses"}


def test_validators_are_compiled_once_per_route() -> None:
    local = RequestSchemas.load()
    first = local.validator("POST", MESSAGES)
    assert first is not None and local.validator("POST", MESSAGES) is first
    assert local.validator("GET", MESSAGES) is None


# Over HTTP -----------------------------------------------------------------------------------


class Api:
    """REST calls with the bot's token."""

    def __init__(self, emulator: Emulator, http: aiohttp.ClientSession) -> None:
        self.emu = emulator
        self.http = http
        self.headers = {"Authorization": f"Bot {emulator.token}"}

    async def call(self, method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
        url = self.emu.api_base + path
        async with self.http.request(method, url, headers=self.headers, **kwargs) as response:
            return response.status, (None if response.status == 204 else await response.json())


@pytest_asyncio.fixture
async def api(emulator: Emulator) -> AsyncIterator[Api]:
    async with aiohttp.ClientSession() as http:
        yield Api(emulator, http)


async def test_a_refused_body_is_answered_like_discord(emulator: Emulator, api: Api) -> None:
    general = emulator.channel("general")
    path = f"/channels/{general.id}/messages"
    status, body = await api.call("POST", path, json={"content": "hi", "tts": "loud"})
    assert (status, body["code"], body["message"]) == (400, 50035, "Invalid Form Body")
    assert body["errors"] == {
        "tts": {
            "_errors": [{"code": "BASE_TYPE_BOOLEAN", "message": "Must be either true or false."}]
        }
    }
    (violation,) = emulator.violations
    assert violation.rule == RULE and (violation.status, violation.code) == (400, 50035)
    assert violation.message.startswith("tts: Must be either true or false. (type ")
    assert violation.request == f"POST /api/v10{path}"
    assert emulator.messages(general) == [], "nothing was posted"


async def test_multipart_bodies_are_checked_on_payload_json(emulator: Emulator, api: Api) -> None:
    general = emulator.channel("general")
    form = aiohttp.FormData(quote_fields=False)
    form.add_field(
        "payload_json", json.dumps({"content": "a file", "attachments": [{"filename": "a.png"}]})
    )
    form.add_field("files[0]", b"\x89PNG-ish", filename="a.png")
    status, body = await api.call("POST", f"/channels/{general.id}/messages", data=form)
    assert (status, body["code"]) == (400, 50035)
    assert "attachments" in body["errors"]
    assert rules(emulator) == [RULE]
    assert "attachments.0.id: This field is required" in emulator.violations[0].message


async def test_the_emulators_own_rules_speak_first(emulator: Emulator, api: Api) -> None:
    """A body that breaks a documented limit is reported under that limit's rule; the schema
    errors of the same body are not added (the request is refused once), nor carried over to
    the next requests (here an attachment download and a good message)."""
    general = emulator.channel("general")
    path = f"/channels/{general.id}/messages"
    form = aiohttp.FormData(quote_fields=False)
    form.add_field("payload_json", json.dumps({"content": "a file"}))
    form.add_field("files[0]", b"file bytes", filename="a.txt")
    status, posted = await api.call("POST", path, data=form)
    assert status == 200
    status, _ = await api.call("POST", path, json={"content": "x" * 2001, "tts": "loud"})
    assert status == 400 and rules(emulator) == ["content.length"]
    async with api.http.get(posted["attachments"][0]["url"]) as response:
        assert response.status == 200 and await response.read() == b"file bytes"
    status, _ = await api.call("POST", path, json={"content": "fine", "tts": False})
    assert status == 200 and rules(emulator) == ["content.length"]


async def test_command_registration_is_checked(emulator: Emulator, api: Api) -> None:
    path = f"/applications/{emulator.bot_user.id}/commands"
    status, stored = await api.call(
        "PUT", path, json=[{**COMMAND, "default_member_permissions": "32"}]
    )
    assert status == 200 and stored[0]["default_member_permissions"] == "32"
    status, body = await api.call("PUT", path, json=[{**COMMAND, "handler": 7}])
    assert (status, body["code"]) == (400, 50035)
    assert rules(emulator) == [RULE] and "0.handler" in emulator.violations[0].message
    assert [c["name"] for c in emulator.commands(guild=False)] == ["play"]


async def test_an_interaction_answer_is_checked(emulator: Emulator, api: Api) -> None:
    """The violation belongs to the interaction; the bot may still answer correctly."""
    await api.call("PUT", f"/applications/{emulator.bot_user.id}/commands", json=[COMMAND])
    ix = await emulator.slash(emulator.member("alice"), "play", wait=False)
    callback = f"/interactions/{ix.id}/{ix.token}/callback"
    wrong = {"type": 4, "data": {"content": "x", "tts": "loud"}}
    status, _ = await api.call("POST", callback, json=wrong)
    assert status == 400 and not ix.acknowledged
    assert [v.rule for v in ix.violations] == [RULE] and str(ix) in ix.violations[0].message
    status, _ = await api.call("POST", callback, json={"type": 4, "data": {"content": "ok"}})
    assert status == 204 and ix.original is not None and ix.original.content == "ok"
    assert rules(emulator) == [RULE]


async def test_an_application_edit_is_checked(emulator: Emulator, api: Api) -> None:
    status, body = await api.call("PATCH", "/applications/@me", json={"flags": "none"})
    assert (status, body["code"]) == (400, 50035) and rules(emulator) == [RULE]
    bad = {"integration_types_config": {"2": {}}}
    status, body = await api.call("PATCH", "/applications/@me", json=bad)
    assert status == 400 and "2" in body["errors"]["integration_types_config"]
    assert rules(emulator) == [RULE, "application.integration-types"]
    assert emulator.application["integration_types_config"] == {"0": {}}
