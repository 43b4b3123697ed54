"""Self-tests of interaction contexts and install types: where Discord's client offers a
command (``contexts``, ``integration_types``, guild or global), the app's guild and user
install (``PATCH /applications/@me``, ``install_for_user``), ``authorizing_integration_owners``
and ``context`` of interactions and of buttons in DMs; raw REST calls and gateway sessions, and
the tiny bot (discord.py) registering globally and declaring user install."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.bots import TINYBOT, SpawnBot
from tests.e2e.emulator import Emulator, Interaction, Member
from tests.e2e.emulator.tests.raw import RawApi, RawSession

JSON = dict[str, Any]
GO = {"type": 2, "style": 1, "label": "Go", "custom_id": "go"}
USER_INSTALL = {"oauth2_install_params": {"scopes": ["applications.commands"], "permissions": 0}}
BOTH = {"0": {}, "1": USER_INSTALL}


def command(name: str, **fields: Any) -> JSON:
    return {"name": name, "description": name.title(), **fields}


async def dispatched(emu: Emulator, raw: RawSession, ix: Interaction) -> JSON:
    """The INTERACTION_CREATE of ``ix`` as the session read it."""
    await emu.wait_for(lambda: raw.got("INTERACTION_CREATE", id=str(ix.id)))
    return raw.got("INTERACTION_CREATE", id=str(ix.id))[0]


async def invoke(emu: Emulator, raw: RawSession, member: Member, name: str, dm: bool) -> JSON:
    """``member`` runs ``/name`` in their DM with the bot (or in #general): its payload."""
    channel = emu.dm_channel(member) if dm else emu.channel("general")
    ix = await emu.slash(member, name, channel=channel, wait=False)
    return await dispatched(emu, raw, ix)


async def test_contexts_decide_where_a_command_is_offered(
    emulator: Emulator, raw_api: RawApi
) -> None:
    """Global commands by ``contexts`` (null: everywhere; ``dm_permission: false`` keeps a null
    one out of DMs); guild commands only in their guild, never in DMs."""
    await raw_api.register(
        [
            command("anywhere"),
            command("servers", contexts=[0]),
            command("dms", contexts=[1, 2]),
            command("legacy", dm_permission=False),
        ]
    )
    await raw_api.register([command("local")], guild_id=emulator.guild.id)
    alice = emulator.member("alice")
    dm, general = emulator.dm_channel(alice), emulator.channel("general")
    for name in ("anywhere", "dms"):
        ix = await emulator.slash(alice, name, channel=dm, wait=False)
        assert ix.context == 1 and ix.owners == {"0": "0"}
    for name in ("anywhere", "servers", "legacy", "local"):
        ix = await emulator.slash(alice, name, channel=general, wait=False)
        assert ix.context == 0 and ix.owners == {"0": str(emulator.guild.id)}
    refusals = [
        ("servers", dm, "contexts \\[0\\] exclude 1"),
        ("legacy", dm, "dm_permission false"),
        ("local", dm, "not registered in DMs \\(a guild command"),
        ("dms", general, "contexts \\[1, 2\\] exclude 0"),
    ]
    for name, channel, reason in refusals:
        with pytest.raises(ValueError, match=reason):
            await emulator.slash(alice, name, channel=channel)
    with pytest.raises(ValueError, match="not in that DM"):
        await emulator.slash(emulator.member("bob"), "anywhere", channel=dm)
    assert emulator.command("servers")["contexts"] == [0]
    assert emulator.command("local", guild=True)["guild_id"] == str(emulator.guild.id)
    assert emulator.violations == []


async def test_the_app_declares_guild_and_user_install(emulator: Emulator, raw_api: RawApi) -> None:
    """``PATCH /applications/@me`` keeps ``integration_types_config`` (GET answers it); a
    member can install the app only once it offers user install; commands registered without
    ``integration_types`` get the app's."""
    alice = emulator.member("alice")
    status, app = await raw_api.call("GET", "/applications/@me")
    assert status == 200 and app["integration_types_config"] == {"0": {}}
    await raw_api.register([command("before")])
    with pytest.raises(ValueError, match="does not offer user install"):
        emulator.install_for_user(alice)
    body = {"integration_types_config": BOTH}
    status, app = await raw_api.call("PATCH", "/applications/@me", json=body)
    assert status == 200 and app["integration_types_config"] == BOTH
    assert emulator.application["integration_types_config"] == BOTH
    assert (await raw_api.call("GET", "/oauth2/applications/@me"))[1][
        "integration_types_config"
    ] == BOTH
    assert emulator.command("before")["integration_types"] == [0]
    await raw_api.register([command("after"), command("guilds", integration_types=[0])])
    assert emulator.command("after")["integration_types"] == [0, 1]
    assert emulator.command("guilds")["integration_types"] == [0]
    emulator.install_for_user(alice)
    assert emulator.state.application.user_installs == {alice.id}
    emulator.uninstall_for_user(alice)
    assert emulator.state.application.user_installs == set()
    assert emulator.violations == []


async def test_contexts_and_integration_types_are_checked(
    emulator: Emulator, raw_api: RawApi
) -> None:
    path = f"/applications/{emulator.bot_user.id}/commands"
    bad = [
        command("a", contexts=[0, 3]),
        command("b", integration_types=[1, 1]),
        command("c", contexts=[]),
    ]
    status, body = await raw_api.call("PUT", path, json=bad)
    assert (status, body["code"]) == (400, 50035)
    assert set(body["errors"]) == {"0", "1", "2"}
    assert [(v.rule, v.message.split(":")[0]) for v in emulator.violations] == [
        ("commands.contexts", "0.contexts.1"),
        ("commands.integration-types", "1.integration_types"),
        ("commands.contexts", "2.contexts"),
    ]
    assert emulator.commands(guild=False) == []


async def test_authorizing_integration_owners(emulator: Emulator, raw_api: RawApi) -> None:
    """Guild install: ``"0"`` is the guild's id, ``"0"`` in the bot's DM; user install:
    ``"1"`` is the member's id when they installed the app and the command allows it. A user
    sharing no guild with the bot reaches user-installable commands in its DM only."""
    raw = await raw_api.connect()
    await raw_api.call("PATCH", "/applications/@me", json={"integration_types_config": BOTH})
    await raw_api.register(
        [
            command("both", integration_types=[0, 1]),
            command("mine", integration_types=[1]),
            command("ours", integration_types=[0]),
        ]
    )
    alice, bob, dave = emulator.member("alice"), emulator.member("bob"), emulator.add_user("dave")
    emulator.install_for_user(bob)
    emulator.install_for_user(dave)
    guild = str(emulator.guild.id)

    in_guild = await invoke(emulator, raw, bob, "both", dm=False)
    assert in_guild["authorizing_integration_owners"] == {"0": guild, "1": str(bob.id)}
    assert in_guild["context"] == 0 and in_guild["member"]["user"]["id"] == str(bob.id)
    not_installed = await invoke(emulator, raw, alice, "both", dm=False)
    assert not_installed["authorizing_integration_owners"] == {"0": guild}
    in_dm = await invoke(emulator, raw, bob, "both", dm=True)
    assert in_dm["authorizing_integration_owners"] == {"0": "0", "1": str(bob.id)}
    assert in_dm["context"] == 1 and in_dm["user"]["id"] == str(bob.id)
    assert "member" not in in_dm and "guild_id" not in in_dm
    guild_only = await invoke(emulator, raw, alice, "ours", dm=True)
    assert guild_only["authorizing_integration_owners"] == {"0": "0"}
    user_only = await invoke(emulator, raw, bob, "mine", dm=False)
    assert user_only["authorizing_integration_owners"] == {"1": str(bob.id)}
    for name in ("mine", "both"):
        stranger = await invoke(emulator, raw, dave, name, dm=True)
        assert stranger["authorizing_integration_owners"] == {"1": str(dave.id)}
        assert stranger["context"] == 1 and stranger["user"]["username"] == "dave"

    with pytest.raises(ValueError, match=r"integration_types \[1\] are not installed"):
        await emulator.slash(alice, "mine", channel=emulator.dm_channel(alice))
    with pytest.raises(ValueError, match=r"integration_types \[0\] are not installed"):
        await emulator.slash(dave, "ours", channel=emulator.dm_channel(dave))
    with pytest.raises(ValueError, match="not a member"):
        await emulator.slash(dave, "both", channel=emulator.channel("general"))
    emulator.uninstall_for_user(bob)
    with pytest.raises(ValueError, match="not installed"):
        await emulator.slash(bob, "mine", channel=emulator.dm_channel(bob))


async def test_a_button_in_a_dm(emulator: Emulator, raw_api: RawApi) -> None:
    """A click on a message in the bot's DM is a guild-less component interaction: context 1,
    ``user`` and no ``member``, no ``guild_id``, the owners of the interaction that made the
    message; only the DM's member can click."""
    raw = await raw_api.connect()
    await raw_api.call("PATCH", "/applications/@me", json={"integration_types_config": BOTH})
    await raw_api.register([command("both", integration_types=[0, 1])])
    bob = emulator.member("bob")
    emulator.install_for_user(bob)
    dm = emulator.dm_channel(bob)
    ix = await emulator.slash(bob, "both", channel=dm, wait=False)
    body = {
        "type": 4,
        "data": {"content": "press", "components": [{"type": 1, "components": [GO]}]},
    }
    assert (await raw_api.answer(ix, body))[0] == 204
    message = ix.original
    assert message is not None and emulator.messages(dm, bob) == [message]
    assert message.interaction_metadata is not None
    assert message.interaction_metadata["authorizing_integration_owners"] == ix.owners
    click = await emulator.click(bob, message, "go", wait=False)
    payload = await dispatched(emulator, raw, click)
    assert payload["type"] == 3 and payload["context"] == 1
    assert payload["user"]["id"] == str(bob.id) and "member" not in payload
    assert "guild_id" not in payload and payload["channel_id"] == str(dm.id)
    assert payload["authorizing_integration_owners"] == {"0": "0", "1": str(bob.id)}
    assert payload["message"]["id"] == str(message.id)
    pressed = {"type": 7, "data": {"content": "pressed", "components": []}}
    assert (await raw_api.answer(click, pressed))[0] == 204
    assert message.content == "pressed" and message.buttons == []

    row = {"type": 1, "components": [GO]}
    path = f"/channels/{dm.id}/messages"
    assert (await raw_api.call("POST", path, json={"content": "hi", "components": [row]}))[0] == 200
    plain = emulator.last_message(dm)
    click = await emulator.click(bob, plain, "go", wait=False)
    assert (await dispatched(emulator, raw, click))["authorizing_integration_owners"] == {"0": "0"}
    assert (await raw_api.answer(click, {"type": 6}))[0] == 204
    with pytest.raises(ValueError, match="not in that DM"):
        await emulator.click(emulator.member("alice"), plain, "go")
    assert emulator.violations == []


async def test_discord_py_declares_user_install_and_runs_in_dms(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """The tiny bot registered globally with TINYBOT_USER_INSTALL=1: discord.py's
    ``AppInfo.edit`` declares both installs, its ``allowed_contexts``/``allowed_installs`` and
    ``guild_only`` become ``contexts``/``integration_types``; in the DM discord.py sees a DM
    context, a User, and a user integration once the member installed the app; a button it DMs
    works there."""
    bot = spawn_bot(emulator, TINYBOT, env={"TINYBOT_USER_INSTALL": "1"}, guild_commands=False)
    await bot.start(sync=True)
    assert set(emulator.application["integration_types_config"]) == {"0", "1"}
    where = emulator.command("tiny-where")
    assert sorted(where["contexts"]) == [0, 1, 2] and sorted(where["integration_types"]) == [0, 1]
    assert emulator.command("tiny-here")["contexts"] == [0]
    assert emulator.commands() == []
    carol = emulator.member("carol")
    dm = emulator.dm_channel(carol)
    ix = await emulator.slash(carol, "tiny-where", channel=dm)
    assert ix.original is not None and ix.original.content == (
        "guild=False dm=True guild_id=None user=User guild_integration=False user_integration=False"
    )
    emulator.install_for_user(carol)
    ix = await emulator.slash(carol, "tiny-where", channel=dm)
    assert ix.original is not None and ix.original.content.endswith("user_integration=True")
    ix = await emulator.slash(carol, "tiny-where")
    assert ix.original is not None and ix.original.content == (
        "guild=True dm=False guild_id="
        f"{emulator.guild.id} user=Member guild_integration=True user_integration=True"
    )
    with pytest.raises(ValueError, match="exclude 1"):
        await emulator.slash(carol, "tiny-here", channel=dm)
    assert (await emulator.slash(carol, "tiny-here")).original is not None

    bob = emulator.member("bob")
    await emulator.slash(carol, "tiny dmbutton", who=bob)
    bob_dm = emulator.dm_channel(bob)
    await emulator.wait_for(lambda: emulator.messages(bob_dm), what="the DM with a button")
    (sent,) = emulator.messages(bob_dm)
    clicked = await emulator.click(bob, sent, "tiny:dmok")
    assert clicked.original is not None and clicked.original.content.startswith(
        "guild=False dm=True guild_id=None user=User"
    )
    assert emulator.violations == []
    assert await bot.stop() == 0
    bot.assert_clean_log()
