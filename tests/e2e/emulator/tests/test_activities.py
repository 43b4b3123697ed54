"""Self-tests of Activities: LAUNCH_ACTIVITY answers and the instances they start or join, the
Entry Point command (its handlers, and the bulk overwrite that must keep it), the activity
instance look-up, and the Embedded App SDK's OAuth2 (``authorize``, ``POST /oauth2/token``,
``GET /users/@me`` with a Bearer token); raw REST calls and gateway sessions, the tiny bot
(discord.py's ``launch_activity``) and the real bot's command sync."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from tests.e2e.bots import TINYBOT, SpawnBot
from tests.e2e.emulator import ActivityInstance, Emulator, Interaction
from tests.e2e.emulator.openapi import schemas
from tests.e2e.emulator.rest import ENTRY_POINT_REMOVED
from tests.e2e.emulator.tests.raw import RawApi, rules

JSON = dict[str, Any]
INSTANCE = "/applications/{application_id}/activity-instances/{instance_id}"
PLAY = {"name": "play", "description": "Play", "contexts": [0, 1]}
GO = {"type": 2, "style": 1, "label": "Go", "custom_id": "go"}
FORM = "application/x-www-form-urlencoded"


async def launch(raw_api: RawApi, ix: Interaction) -> tuple[int, Any]:
    """Answer ``ix`` with LAUNCH_ACTIVITY, asking for the callback's answer."""
    path = f"/interactions/{ix.id}/{ix.token}/callback?with_response=true"
    return await raw_api.call("POST", path, json={"type": 12})


def instance_path(emulator: Emulator, instance_id: str) -> str:
    return f"/applications/{emulator.bot_user.id}/activity-instances/{instance_id}"


async def exchange(
    raw_api: RawApi, form: dict[str, str], *, basic: tuple[str, str] | None = None
) -> tuple[int, JSON]:
    """``POST /oauth2/token`` with ``form`` (form-encoded), as the app's web server does; with
    ``basic``, those HTTP Basic credentials."""
    url = raw_api.emu.api_base + "/oauth2/token"
    headers = {}
    if basic is not None:
        headers["Authorization"] = "Basic " + base64.b64encode(":".join(basic).encode()).decode()
    async with raw_api.http.post(url, data=form, headers=headers) as response:
        return response.status, await response.json()


def code_form(emulator: Emulator, code: str, secret: str | None = None) -> dict[str, str]:
    return {
        "client_id": str(emulator.bot_user.id),
        "client_secret": secret if secret is not None else emulator.client_secret,
        "grant_type": "authorization_code",
        "code": code,
    }


async def me(raw_api: RawApi, access_token: str) -> tuple[int, JSON]:
    """``GET /users/@me`` with a user's Bearer token."""
    headers = {"Authorization": f"Bearer {access_token}"}
    async with raw_api.http.get(raw_api.emu.api_base + "/users/@me", headers=headers) as response:
        return response.status, await response.json()


async def test_launch_activity_starts_or_joins_the_channels_instance(
    emulator: Emulator, raw_api: RawApi
) -> None:
    """LAUNCH_ACTIVITY answers a slash command or a button (once, like any answer): the
    channel's instance starts with the member, a later launch there joins it, another channel
    (a DM: ``pc``) gets its own; the callback's answer names it."""
    await raw_api.register([PLAY])
    emulator.enable_activities()
    alice, bob = emulator.member("alice"), emulator.member("bob")
    general = emulator.channel("general")
    ix = await emulator.slash(alice, "play", wait=False)
    status, answer = await launch(raw_api, ix)
    instance = emulator.activity_instance(general)
    assert status == 200 and instance is not None and ix.activity is instance
    assert ix.ack_type == 12 and ix.acknowledged and not ix.failed and ix.messages == []
    assert answer == {
        "interaction": {"id": str(ix.id), "type": 2, "activity_instance_id": instance.id},
        "resource": {"type": 12, "activity_instance": {"id": instance.id}},
    }
    assert instance.users == [alice.id]
    guild = emulator.guild.id
    assert instance.id == f"i-{instance.launch_id}-gc-{guild}-{general.id}"
    assert instance.location == {
        "id": f"gc-{guild}-{general.id}",
        "kind": "gc",
        "channel_id": str(general.id),
        "guild_id": str(guild),
    }
    assert (await launch(raw_api, ix))[0] == 400, "a second answer"
    assert rules(emulator) == ["interaction.double-ack"]

    row = {"type": 1, "components": [GO]}
    path = f"/channels/{general.id}/messages"
    assert (await raw_api.call("POST", path, json={"content": "go", "components": [row]}))[0] == 200
    click = await emulator.click(bob, emulator.last_message(general), "go", wait=False)
    assert (await launch(raw_api, click))[0] == 200
    assert click.activity is instance and instance.users == [alice.id, bob.id]

    dm = emulator.dm_channel(bob)
    private = await emulator.slash(bob, "play", channel=dm, wait=False)
    assert (await launch(raw_api, private))[0] == 200
    other = emulator.activity_instance(dm)
    assert other is not None and other is not instance and other.users == [bob.id]
    assert other.location == {"id": f"pc-{dm.id}", "kind": "pc", "channel_id": str(dm.id)}
    for found in (instance, other):
        assert schemas().check_answer("GET", INSTANCE, found.to_json()) == []
    assert emulator.activity_instance(emulator.channel("games")) is None
    assert rules(emulator) == ["interaction.double-ack"]


async def test_launch_activity_needs_activities_and_a_command_or_button(
    emulator: Emulator, raw_api: RawApi
) -> None:
    """An app without Activities cannot launch one; an autocomplete cannot be answered with
    a launch; neither starts an instance."""
    await raw_api.register([PLAY])
    ix = await emulator.slash(emulator.member("alice"), "play", wait=False)
    status, answer = await launch(raw_api, ix)
    assert (status, answer["code"]) == (400, 50035)
    assert answer["errors"]["type"]["_errors"][0]["code"] == "INTERACTION_RESPONSE_TYPE_INVALID"
    assert rules(emulator) == ["interaction.launch-activity"] and not ix.acknowledged
    assert emulator.activity_instance(emulator.channel("general")) is None
    assert emulator.application["flags"] & (1 << 17) == 0

    emulator.enable_activities()
    assert emulator.application["flags"] & (1 << 17), "the EMBEDDED flag"
    option = {"type": 3, "name": "what", "description": "What", "autocomplete": True}
    await raw_api.register([{**PLAY, "options": [option]}, emulator.command("launch")])
    typing = await emulator.autocomplete(emulator.member("bob"), "play", focused="what", wait=False)
    assert (await launch(raw_api, typing))[0] == 400
    assert rules(emulator)[-1] == "interaction.response-type"
    assert emulator.activity_instance(emulator.channel("general")) is None


def test_answers_are_checked_against_discords_documented_answers() -> None:
    """``check_answer`` finds what the documented answer of a route would not hold (a missing
    field, a location of an unknown kind, a user's id of the wrong type), and refuses a route
    whose answers the document does not keep."""
    good = {
        "application_id": "1",
        "instance_id": "i-2-gc-3-4",
        "launch_id": "2",
        "location": {"id": "gc-3-4", "kind": "gc", "channel_id": "4", "guild_id": "3"},
        "users": ["5"],
    }
    check = schemas().check_answer
    assert check("GET", INSTANCE, good) == []
    assert [e.path for e in check("GET", INSTANCE, {**good, "users": None})] == [("users",)]
    missing = {k: v for k, v in good.items() if k != "launch_id"}
    assert [e.code for e in check("GET", INSTANCE, missing)] == ["BASE_TYPE_REQUIRED"]
    assert check("GET", INSTANCE, {**good, "location": {**good["location"], "kind": "vc"}})
    assert check("GET", "/users/@me", {"id": 5, "username": "bob"})
    with pytest.raises(KeyError):
        check("POST", "/channels/{channel_id}/messages", {})


async def test_the_activity_instance_is_looked_up_with_the_bot_token(
    emulator: Emulator, raw_api: RawApi
) -> None:
    """``GET /applications/{app}/activity-instances/{id}`` answers a running instance (as the
    schema says); an unknown one, or one whose last user left, 404 (Discord's normal answer,
    not a broken rule); without the bot token 401."""
    emulator.enable_activities()
    alice, bob = emulator.member("alice"), emulator.member("bob")
    games = emulator.channel("games")
    instance = await emulator.launch_entry_point(alice, games)
    assert isinstance(instance, ActivityInstance)
    emulator.join_activity(bob, instance)
    status, found = await raw_api.call("GET", instance_path(emulator, instance.id))
    assert status == 200 and found == instance.to_json()
    assert found["users"] == [str(alice.id), str(bob.id)]
    assert found["application_id"] == str(emulator.bot_user.id)
    assert found["launch_id"] == str(instance.launch_id)
    assert found["location"]["channel_id"] == str(games.id)
    assert schemas().check_answer("GET", INSTANCE, found) == []

    forged = instance.id.replace("i-", "i-1", 1)
    assert await raw_api.call("GET", instance_path(emulator, forged)) == (
        404,
        {"message": "404: Not Found", "code": 0},
    )
    assert emulator.violations == []
    emulator.leave_activity(alice, instance)
    assert (await raw_api.call("GET", instance_path(emulator, instance.id)))[1]["users"] == [
        str(bob.id)
    ]
    emulator.leave_activity(bob, instance)
    assert emulator.activity_instance(games) is None
    assert (await raw_api.call("GET", instance_path(emulator, instance.id)))[0] == 404
    with pytest.raises(ValueError, match="has ended"):
        emulator.join_activity(alice, instance)
    url = raw_api.emu.api_base + instance_path(emulator, instance.id)
    async with raw_api.http.get(url) as response:
        assert response.status == 401
    assert rules(emulator) == ["http.unauthorized"]


async def test_an_authorization_code_is_exchanged_once_for_a_users_token(
    emulator: Emulator, raw_api: RawApi
) -> None:
    """The SDK's ``authorize`` gives a one-time code; ``POST /oauth2/token`` (form-encoded,
    the app's id and secret in the form or as HTTP Basic credentials) exchanges it for a
    Bearer token, with which ``GET /users/@me`` answers the member (their locale too); a
    wrong secret, a used or unknown code are refused as Discord does; the bot's own token
    still reads the bot."""
    emulator.enable_activities()
    bob = emulator.member("bob")
    emulator.set_locale(bob, "de")
    instance = await emulator.launch_entry_point(emulator.member("alice"))
    assert isinstance(instance, ActivityInstance)
    code = emulator.authorize(bob, instance)
    assert instance.users == [emulator.member("alice").id, bob.id], "authorizing joins"

    status, answer = await exchange(raw_api, code_form(emulator, code, secret="wrong"))
    assert (status, answer["error"]) == (401, "invalid_client")
    status, token = await exchange(raw_api, code_form(emulator, code))
    assert status == 200, token
    assert set(token) == {"access_token", "token_type", "expires_in", "refresh_token", "scope"}
    assert token["token_type"] == "Bearer" and token["scope"] == "identify"
    assert token["expires_in"] > 0
    status, user = await me(raw_api, token["access_token"])
    assert status == 200 and user["id"] == str(bob.id) and user["username"] == "bob"
    assert user["locale"] == "de" and "bot" not in user
    assert schemas().check_answer("GET", "/users/@me", user) == []

    for used in (code, "forged"):
        status, answer = await exchange(raw_api, code_form(emulator, used))
        assert (status, answer["error"]) == (400, "invalid_grant")
    carol = emulator.member("carol")
    basic = (str(emulator.bot_user.id), emulator.client_secret)
    form = {"grant_type": "authorization_code", "code": emulator.authorize(carol)}
    status, token = await exchange(raw_api, form, basic=basic)
    assert status == 200 and (await me(raw_api, token["access_token"]))[1]["id"] == str(carol.id)
    refresh = {**code_form(emulator, ""), "grant_type": "refresh_token"}
    refresh["refresh_token"] = token["refresh_token"]
    status, renewed = await exchange(raw_api, refresh)
    assert status == 200 and renewed["access_token"] != token["access_token"]
    assert (await me(raw_api, renewed["access_token"]))[1]["id"] == str(carol.id)
    assert (await exchange(raw_api, refresh))[1]["error"] == "invalid_grant", "used once"
    assert emulator.violations == [], "refusals of codes are Discord's normal answers"

    status, bot = await raw_api.call("GET", "/users/@me")
    assert status == 200 and bot["id"] == str(emulator.bot_user.id) and bot["bot"] is True
    assert (await me(raw_api, "forged"))[0] == 401
    guild_only = emulator.authorize(bob, scopes=("guilds",))
    status, token = await exchange(raw_api, code_form(emulator, guild_only))
    assert status == 200 and token["scope"] == "guilds"
    assert (await me(raw_api, token["access_token"]))[0] == 401, "no identify scope"
    url = raw_api.emu.api_base + "/oauth2/token"
    async with raw_api.http.post(url, json=code_form(emulator, emulator.authorize(bob))) as r:
        assert r.status == 400
    assert rules(emulator) == [
        "oauth2.unknown-token",
        "oauth2.unknown-token",
        "oauth2.content-type",
    ]
    assert emulator.env()["DISCORD_CLIENT_SECRET"] == emulator.client_secret


async def test_a_bulk_overwrite_must_keep_the_entry_point(
    emulator: Emulator, raw_api: RawApi
) -> None:
    """Once Activities are enabled, a global bulk overwrite that leaves out the Entry Point
    command is refused (400, 50240) and changes nothing; one that includes it (as Discord
    listed it) keeps it, id and handler; guild overwrites and a separate delete are free."""
    entry_point = emulator.enable_activities()
    assert entry_point["type"] == 4 and entry_point["handler"] == 2
    assert entry_point["name"] == "launch" and "guild_id" not in entry_point
    path = f"/applications/{emulator.bot_user.id}/commands"
    status, answer = await raw_api.call("PUT", path, json=[PLAY])
    assert (status, answer) == (400, {"message": ENTRY_POINT_REMOVED, "code": 50240})
    assert rules(emulator) == ["commands.entry-point"]
    assert emulator.commands(guild=False) == [entry_point]

    status, listed = await raw_api.call("GET", path)
    assert status == 200 and listed == [entry_point]
    stored = await raw_api.register([PLAY, *listed])
    assert [c["name"] for c in stored] == ["play", "launch"]
    assert emulator.command("launch")["id"] == entry_point["id"]
    assert emulator.command("launch")["handler"] == 2
    await raw_api.register([PLAY], guild_id=emulator.guild.id)

    status, _ = await raw_api.call("DELETE", f"{path}/{entry_point['id']}")
    assert status == 204
    assert [c["name"] for c in await raw_api.register([PLAY])] == ["play"]
    assert rules(emulator) == ["commands.entry-point"]


async def test_the_entry_point_launches_by_its_handler(emulator: Emulator, raw_api: RawApi) -> None:
    """Handler 2: Discord launches the Activity itself, no interaction reaches the app.
    Handler 1: the app gets an APPLICATION_COMMAND interaction with ``data.type`` 4 and
    launches it with its answer. Without Activities there is no Entry Point to open."""
    alice, bob = emulator.member("alice"), emulator.member("bob")
    with pytest.raises(ValueError, match="no Entry Point"):
        await emulator.launch_entry_point(alice)
    raw = await raw_api.connect()
    emulator.enable_activities()
    instance = await emulator.launch_entry_point(alice)
    assert isinstance(instance, ActivityInstance) and instance.users == [alice.id]
    assert emulator.interactions == [] and raw.got("INTERACTION_CREATE") == []

    entry_point = emulator.command("launch")
    path = f"/applications/{emulator.bot_user.id}/commands/{entry_point['id']}"
    status, patched = await raw_api.call("PATCH", path, json={"handler": 1})
    assert status == 200 and patched["handler"] == 1 and patched["id"] == entry_point["id"]
    games = emulator.channel("games")
    ix = await emulator.launch_entry_point(bob, games, wait=False)
    assert isinstance(ix, Interaction)
    await emulator.wait_for(lambda: raw.got("INTERACTION_CREATE", id=str(ix.id)))
    (payload,) = raw.got("INTERACTION_CREATE", id=str(ix.id))
    assert payload["type"] == 2 and payload["channel_id"] == str(games.id)
    assert payload["data"] == {"id": entry_point["id"], "name": "launch", "type": 4}
    assert (await launch(raw_api, ix))[0] == 200
    started = emulator.activity_instance(games)
    assert started is not None and started is not instance and started.users == [bob.id]
    assert emulator.violations == []


async def test_discord_py_launches_the_activity(emulator: Emulator, spawn_bot: SpawnBot) -> None:
    """The tiny bot's ``launch_activity()`` (discord.py) passes the schema and reads the
    instance it launched from the callback's answer."""
    emulator.enable_activities()
    bot = spawn_bot(emulator, TINYBOT)
    await bot.start(sync=True)
    alice = emulator.member("alice")
    ix = await emulator.slash(alice, "tiny activity")
    instance = emulator.activity_instance(emulator.channel("general"))
    assert ix.ack_type == 12 and instance is not None and instance.users == [alice.id]
    await emulator.wait_for(lambda: instance.id in bot.log(), what="the bot's log line")
    assert f"launched activity instance {instance.id} (resource {instance.id})" in bot.log()
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert emulator.violations == []


@pytest.mark.parametrize("activities", [True, False], ids=["entry-point", "plain"])
async def test_the_bot_registers_its_global_commands_beside_the_entry_point(
    emulator: Emulator, spawn_bot: SpawnBot, activities: bool
) -> None:
    """The real bot's global command sync keeps the app's Entry Point command (same id) when
    Activities are enabled, and registers as before without; a restart with unchanged
    commands registers nothing."""
    entry_point = emulator.enable_activities() if activities else None
    bot = spawn_bot(emulator, guild_commands=False)
    await bot.start(sync=True)
    names = [c["name"] for c in emulator.commands(guild=False)]
    assert "tholos" in names and ("launch" in names) == activities
    if entry_point is not None:
        kept = emulator.command("launch")
        for key in ("id", "type", "handler", "description", "contexts"):
            assert kept[key] == entry_point[key], key
    assert await bot.restart() == 0
    assert emulator.command_syncs == 1, "unchanged commands are not registered again"
    ix = await emulator.slash(emulator.member("alice"), "tholos rules")
    assert ix.acknowledged and not ix.failed
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert emulator.violations == []


async def test_the_code_exchange_is_rate_limited_on_demand(
    emulator: Emulator, raw_api: RawApi
) -> None:
    """``rate_limit_token`` answers the next exchanges 429 as Discord does (the wait in the
    body to the millisecond, ``Retry-After`` in whole seconds); the code stays unused, so the
    exchange tried again after the wait succeeds."""
    emulator.enable_activities()
    bob = emulator.member("bob")
    code = emulator.authorize(bob)
    emulator.rate_limit_token(0.25, 2.5)
    url = raw_api.emu.api_base + "/oauth2/token"
    for retry_after, header in ((0.25, "1"), (2.5, "3")):
        async with raw_api.http.post(url, data=code_form(emulator, code)) as response:
            assert (response.status, response.headers["Retry-After"]) == (429, header)
            assert await response.json() == {
                "message": "You are being rate limited.",
                "retry_after": retry_after,
                "global": False,
            }
    status, token = await exchange(raw_api, code_form(emulator, code))
    assert status == 200 and (await me(raw_api, token["access_token"]))[1]["id"] == str(bob.id)
    assert emulator.violations == []
