"""Self-tests of the places a user-installed app reaches without its bot: a DM between two
members, a group DM, a guild that never added the bot.

Discord's rules, as the emulator keeps them (sources: Discord's docs "Receiving and Responding"
— Interaction Context Types: 0 GUILD, 1 BOT_DM "DMs with the app's bot user", 2 PRIVATE_CHANNEL
"Group DMs and DMs other than the app's bot user", and ``authorizing_integration_owners``,
"mapping of installation contexts that the interaction was authorized for to related user or
guild IDs"; "Installing apps to users": a user install is usable in every DM, group DM and
server, the bot need not be there, and it can only answer interactions; the June 2024
changelog "User-Installed Apps General Availability" (discord-api-docs PR #6958):
``app_permissions`` represents the permissions of a user-installed app, at most 5 follow-ups
when only the user install authorized the interaction; JSON error code 50001 "Missing Access"
for a channel the bot cannot see; discord-api-docs issue #7108: a command with null
``contexts`` is not offered in PRIVATE_CHANNEL):

- in a DM between users or a group DM: ``context`` 2, owners ``{"1": "<installing user>"}``
  only, ``user`` and no ``member``/``guild_id``/``guild``, ``channel`` the DM (type 1) or group
  DM (type 3) with its recipients;
- in a guild without the bot: ``context`` 0, owners ``{"1": ...}`` only, ``guild_id``,
  ``guild`` and ``member`` sent as in any guild; ``app_permissions`` is the user install's set
  (Attach Files, Embed Links, Mention Everyone, Use External Emojis: the emulator's choice,
  the same set as in DMs), not a member's role permissions;
- the bot hears no gateway event from those channels, and its REST calls there (post, fetch,
  edit a message, read the channel) answer 403, 50001 Missing Access; the interaction's
  callback and its webhook (follow-ups, the original response) work;
- the Activity launches there (handler 2, or a LAUNCH_ACTIVITY answer) for a user install;
- the bot may DM a user who installed the app to their account though they share no guild
  (discord-api-docs issues #7275, #7666: bots DMing the users who added them), unless they
  closed their DMs: 403, 50007 otherwise, as for anyone sharing no guild with it.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.emulator import Emulator, Interaction, Member
from tests.e2e.emulator.activities import ActivityInstance
from tests.e2e.emulator.tests.raw import RawApi, RawSession, rules

JSON = dict[str, Any]
GO = {"type": 2, "style": 1, "label": "Go", "custom_id": "go"}
BOTH = {
    "0": {},
    "1": {"oauth2_install_params": {"scopes": ["applications.commands"], "permissions": 0}},
}
USER_INSTALL_PERMISSIONS = str((1 << 15) | (1 << 14) | (1 << 17) | (1 << 18))
MISSING_ACCESS = (403, 50001)


def command(name: str, **fields: Any) -> JSON:
    return {"name": name, "description": name.title(), **fields}


async def user_installable(emulator: Emulator, raw_api: RawApi) -> RawSession:
    """The app offers both installs, ``play`` works everywhere for both, ``servers`` only in
    guilds, ``legacy`` has null contexts, ``ours`` is guild-install only; bob installed it."""
    raw = await raw_api.connect()
    await raw_api.call("PATCH", "/applications/@me", json={"integration_types_config": BOTH})
    await raw_api.register(
        [
            command("play", contexts=[0, 1, 2], integration_types=[0, 1]),
            command("servers", contexts=[0], integration_types=[0, 1]),
            command("legacy", integration_types=[0, 1]),
            command("ours", contexts=[0, 1, 2], integration_types=[0]),
        ]
    )
    emulator.install_for_user(emulator.member("bob"))
    return raw


async def dispatched(emulator: Emulator, raw: RawSession, ix: Interaction) -> JSON:
    await emulator.wait_for(lambda: raw.got("INTERACTION_CREATE", id=str(ix.id)))
    return raw.got("INTERACTION_CREATE", id=str(ix.id))[0]


async def answered_with_button(
    emulator: Emulator, raw_api: RawApi, member: Member, channel: Any
) -> Interaction:
    """``member`` runs ``/play`` in ``channel``; the app answers with a message and a button."""
    ix = await emulator.slash(member, "play", channel=channel, wait=False)
    body = {
        "type": 4,
        "data": {"content": "board", "components": [{"type": 1, "components": [GO]}]},
    }
    assert (await raw_api.answer(ix, body))[0] == 204
    assert ix.original is not None
    return ix


async def test_a_dm_between_members_and_a_group_dm(emulator: Emulator, raw_api: RawApi) -> None:
    """Context 2, owners of the user install only, a guild-less payload with the channel and
    its recipients; only its recipients who installed the app run commands there, every
    recipient presses the buttons of the app's message; the bot hears none of it."""
    raw = await user_installable(emulator, raw_api)
    alice, bob, carol = (emulator.member(n) for n in ("alice", "bob", "carol"))
    dm = emulator.dm_between(bob, alice)
    group = emulator.dm_between(bob, alice, carol)
    assert (dm.type, group.type) == (1, 3) and emulator.dm_between(alice, bob) is dm
    for channel, people in ((dm, {alice, bob}), (group, {alice, bob, carol})):
        ix = await emulator.slash(bob, "play", channel=channel, wait=False)
        payload = await dispatched(emulator, raw, ix)
        assert payload["context"] == 2 and ix.context == 2
        assert payload["authorizing_integration_owners"] == {"1": str(bob.id)}
        assert payload["user"]["id"] == str(bob.id)
        assert not {"member", "guild_id", "guild"} & set(payload)
        assert payload["channel"]["type"] == channel.type
        recipients = {r["id"] for r in payload["channel"]["recipients"]}
        assert recipients == {str(m.id) for m in people}
        assert payload["app_permissions"] == USER_INSTALL_PERMISSIONS
        assert (await raw_api.answer(ix, {"type": 4, "data": {"content": "hi"}}))[0] == 204

    refusals = [
        (alice, "play", group, "not installed"),
        (bob, "servers", group, r"exclude 2 \(PRIVATE_CHANNEL\)"),
        (bob, "legacy", dm, "null"),
        (bob, "ours", dm, r"integration_types \[0\] are not installed"),
        (emulator.add_user("dave"), "play", dm, "not in that DM"),
    ]
    for member, name, channel, reason in refusals:
        with pytest.raises(ValueError, match=reason):
            await emulator.slash(member, name, channel=channel)

    ix = await answered_with_button(emulator, raw_api, bob, group)
    message = ix.original
    assert message is not None and emulator.messages(group)[-1] is message
    click = await emulator.click(carol, message, "go", wait=False)
    payload = await dispatched(emulator, raw, click)
    assert payload["type"] == 3 and payload["context"] == 2
    assert payload["user"]["id"] == str(carol.id) and "guild_id" not in payload
    assert payload["authorizing_integration_owners"] == {"1": str(bob.id)}
    update = {"type": 7, "data": {"content": "pressed", "components": []}}
    assert (await raw_api.answer(click, update))[0] == 204
    assert message.content == "pressed"
    with pytest.raises(ValueError, match="not in that DM"):
        await emulator.click(emulator.member("dave"), message, "go")
    heard = {str(dm.id), str(group.id)}
    assert not [
        e
        for name in ("MESSAGE_CREATE", "MESSAGE_UPDATE")
        for e in raw.got(name)
        if e.get("channel_id") in heard
    ]
    assert emulator.violations == []


async def test_a_guild_without_the_bot(emulator: Emulator, raw_api: RawApi) -> None:
    """Context 0 with the guild and the member, owners of the user install only, the user
    install's ``app_permissions``; the guild's own commands and guild-install-only commands
    are not there; the bot is never told of the guild nor of its messages."""
    raw = await user_installable(emulator, raw_api)
    await raw_api.register([command("local")], guild_id=emulator.guild.id)
    alice, bob = emulator.member("alice"), emulator.member("bob")
    elsewhere = emulator.add_guild_without_bot("Elsewhere")
    general = emulator.channel("general", elsewhere)
    ix = await emulator.slash(bob, "play", channel=general, wait=False)
    payload = await dispatched(emulator, raw, ix)
    assert payload["context"] == 0 and payload["guild_id"] == str(elsewhere.id)
    assert payload["guild"]["id"] == str(elsewhere.id)
    assert payload["member"]["user"]["id"] == str(bob.id)
    assert payload["authorizing_integration_owners"] == {"1": str(bob.id)}
    assert payload["app_permissions"] == USER_INSTALL_PERMISSIONS
    body = {
        "type": 4,
        "data": {"content": "board", "components": [{"type": 1, "components": [GO]}]},
    }
    assert (await raw_api.answer(ix, body))[0] == 204
    assert ix.original is not None
    click = await emulator.click(alice, ix.original, "go", wait=False)
    clicked = await dispatched(emulator, raw, click)
    assert clicked["context"] == 0 and clicked["authorizing_integration_owners"] == {
        "1": str(bob.id)
    }
    assert (await raw_api.answer(click, {"type": 6}))[0] == 204

    for member, name, reason in (
        (alice, "play", "not installed"),
        (bob, "ours", r"integration_types \[0\] are not installed"),
        (bob, "local", "not registered"),
    ):
        with pytest.raises(ValueError, match=reason):
            await emulator.slash(member, name, channel=general)
    with pytest.raises(ValueError, match="not a member"):
        await emulator.slash(emulator.add_user("dave"), "play", channel=general)
    assert not [e for e in raw.got("GUILD_CREATE") if e["id"] == str(elsewhere.id)]
    assert not [e for e in raw.got("MESSAGE_CREATE") if e.get("channel_id") == str(general.id)]
    assert emulator.violations == []


async def test_the_bot_may_not_call_places_it_is_not_in(
    emulator: Emulator, raw_api: RawApi
) -> None:
    """Posting, fetching and editing by channel in a DM between members, a group DM or a guild
    without the bot answer 403, 50001 (a broken rule); the interaction's callback, follow-ups
    and original response work there."""
    await user_installable(emulator, raw_api)
    alice, bob, carol = (emulator.member(n) for n in ("alice", "bob", "carol"))
    elsewhere = emulator.add_guild_without_bot("Elsewhere")
    places = [
        emulator.dm_between(bob, alice),
        emulator.dm_between(bob, alice, carol, name="friends"),
        emulator.channel("general", elsewhere),
    ]
    app = emulator.bot_user.id
    for channel in places:
        ix = await answered_with_button(emulator, raw_api, bob, channel)
        assert ix.original is not None
        posted = f"/channels/{channel.id}/messages"
        message = f"{posted}/{ix.original.id}"
        calls = [
            ("POST", posted, {"content": "hello"}),
            ("GET", posted, None),
            ("GET", message, None),
            ("PATCH", message, {"content": "edited"}),
            ("GET", f"/channels/{channel.id}", None),
        ]
        for method, path, body in calls:
            status, answer = await raw_api.call(method, path, json=body)
            assert (status, answer["code"]) == MISSING_ACCESS, (method, path)
        webhook = f"/webhooks/{app}/{ix.token}"
        status, followup = await raw_api.call("POST", webhook, json={"content": "next"})
        assert status == 200 and followup["channel_id"] == str(channel.id)
        edit = {"content": "edited by its token"}
        assert (await raw_api.call("PATCH", f"{webhook}/messages/@original", json=edit))[0] == 200
        assert ix.original.content == "edited by its token"
    assert rules(emulator) == ["permissions.not-in-channel"] * 15
    assert [m.content for m in emulator.messages(places[0])] == ["edited by its token", "next"]


async def test_the_activity_launches_in_dms_for_a_user_install(
    emulator: Emulator, raw_api: RawApi
) -> None:
    """The Entry Point in a group DM or a DM between members: launched by Discord (handler 2)
    or by a LAUNCH_ACTIVITY answer to its interaction (handler 1, context 2); refused to a
    member without the user install."""
    raw = await user_installable(emulator, raw_api)
    entry_point = emulator.enable_activities()
    assert entry_point["integration_types"] == [0, 1]
    alice, bob, carol = (emulator.member(n) for n in ("alice", "bob", "carol"))
    group = emulator.dm_between(bob, alice, carol)
    instance = await emulator.launch_entry_point(bob, group)
    assert isinstance(instance, ActivityInstance) and instance.users == [bob.id]
    assert instance.id.endswith(f"pc-{group.id}")
    with pytest.raises(ValueError, match="not installed"):
        await emulator.launch_entry_point(alice, group)

    path = f"/applications/{emulator.bot_user.id}/commands/{entry_point['id']}"
    assert (await raw_api.call("PATCH", path, json={"handler": 1}))[0] == 200
    dm = emulator.dm_between(bob, carol)
    ix = await emulator.launch_entry_point(bob, dm, wait=False)
    assert isinstance(ix, Interaction)
    payload = await dispatched(emulator, raw, ix)
    assert payload["context"] == 2 and payload["authorizing_integration_owners"] == {
        "1": str(bob.id)
    }
    callback = f"/interactions/{ix.id}/{ix.token}/callback"
    assert (await raw_api.call("POST", callback, json={"type": 12}))[0] == 204
    started = emulator.activity_instance(dm)
    assert started is not None and started.users == [bob.id]
    assert emulator.violations == []


async def test_the_bot_may_dm_a_user_who_installed_the_app(
    emulator: Emulator, raw_api: RawApi
) -> None:
    """A user sharing no guild with the bot: its DM to them answers 403, 50007 until they
    install the app to their account, then it is delivered; closed DMs or an uninstall refuse
    it again (Discord's normal answer, never a violation)."""
    await user_installable(emulator, raw_api)
    dave = emulator.add_user("dave")
    code, channel = await raw_api.call(
        "POST", "/users/@me/channels", json={"recipient_id": dave.id}
    )
    assert code == 200
    path = f"/channels/{channel['id']}/messages"

    async def post() -> tuple[int, int | None]:
        status, answer = await raw_api.call("POST", path, json={"content": "your turn"})
        return status, answer.get("code")

    assert await post() == (403, 50007)
    emulator.install_for_user(dave)
    assert await post() == (200, None)
    emulator.close_dms(dave)
    assert await post() == (403, 50007)
    emulator.open_dms(dave)
    emulator.uninstall_for_user(dave)
    assert await post() == (403, 50007)
    assert [m.content for m in emulator.messages(emulator.dm_channel(dave))] == ["your turn"]
    assert emulator.violations == []
