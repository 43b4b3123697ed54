"""Self-tests of an interaction token's rules: it works for 15 minutes by Discord's clock (moved
with ``Emulator.clock_offset``), then every webhook request with it answers 401, code 50027;
an interaction only the member's user install authorized may have 5 follow-ups, one the guild
install authorized more. Raw REST calls, as the bot would make them."""

from __future__ import annotations

from typing import Any

from tests.e2e.emulator import Emulator, Interaction, Member
from tests.e2e.emulator.tests.raw import RawApi, rules

USER_INSTALL = {"oauth2_install_params": {"scopes": ["applications.commands"], "permissions": 0}}
BOTH = {"0": {}, "1": USER_INSTALL}


async def answered(emulator: Emulator, raw_api: RawApi, member: Member, name: str) -> Interaction:
    """``member`` runs ``/name`` in #general and the bot answers it with a message."""
    ix = await emulator.slash(member, name, wait=False)
    status, _ = await raw_api.answer(ix, {"type": 4, "data": {"content": "Hello"}})
    assert status == 204
    return ix


async def followup(emulator: Emulator, raw_api: RawApi, ix: Interaction) -> tuple[int, Any]:
    path = f"/webhooks/{emulator.bot_user.id}/{ix.token}"
    return await raw_api.call("POST", path, json={"content": "More"})


async def test_a_token_works_for_15_minutes(emulator: Emulator, raw_api: RawApi) -> None:
    """Follow-ups and the original response's webhook work until the token is 15 minutes old
    (by Discord's clock), then each answers 401 "Invalid Webhook Token" and is recorded."""
    await raw_api.register([{"name": "hello", "description": "Hello"}])
    ix = await answered(emulator, raw_api, emulator.member("alice"), "hello")
    original = f"/webhooks/{emulator.bot_user.id}/{ix.token}/messages/@original"
    emulator.clock_offset = 14 * 60 + 50
    status, message = await followup(emulator, raw_api, ix)
    assert status == 200, message
    assert (await raw_api.call("PATCH", original, json={"content": "Edited"}))[0] == 200
    assert rules(emulator) == []

    emulator.clock_offset = 15 * 60 + 10
    status, error = await followup(emulator, raw_api, ix)
    assert (status, error["code"], error["message"]) == (401, 50027, "Invalid Webhook Token")
    mine = f"/webhooks/{emulator.bot_user.id}/{ix.token}/messages/{message['id']}"
    for method, path, body in (
        ("GET", original, None),
        ("PATCH", original, {"content": "Too late"}),
        ("DELETE", mine, None),
    ):
        status, error = await raw_api.call(method, path, json=body)
        assert (status, error["code"]) == (401, 50027), (method, path)
    assert rules(emulator) == ["interaction.token-expired"] * 4
    assert [m.content for m in ix.messages] == ["Edited", "More"]


async def test_a_user_install_only_interaction_has_five_followups(
    emulator: Emulator, raw_api: RawApi
) -> None:
    """The sixth follow-up of an interaction whose ``authorizing_integration_owners`` hold only
    the user install is refused; one the guild install also authorized has a sixth."""
    await raw_api.call("PATCH", "/applications/@me", json={"integration_types_config": BOTH})
    await raw_api.register(
        [
            {"name": "mine", "description": "Mine", "integration_types": [1]},
            {"name": "both", "description": "Both", "integration_types": [0, 1]},
        ]
    )
    bob = emulator.member("bob")
    emulator.install_for_user(bob)
    user_only = await answered(emulator, raw_api, bob, "mine")
    guild_too = await answered(emulator, raw_api, bob, "both")
    assert user_only.owners == {"1": str(bob.id)}
    assert guild_too.owners == {"0": str(emulator.guild.id), "1": str(bob.id)}
    for _ in range(5):
        assert (await followup(emulator, raw_api, user_only))[0] == 200
        assert (await followup(emulator, raw_api, guild_too))[0] == 200
    assert rules(emulator) == []

    status, error = await followup(emulator, raw_api, user_only)
    assert status == 400 and "follow-up" in error["message"], error
    assert (await followup(emulator, raw_api, guild_too))[0] == 200
    assert rules(emulator) == ["interaction.followup-limit"]
    assert (len(user_only.followups), len(guild_too.followups)) == (5, 6)
