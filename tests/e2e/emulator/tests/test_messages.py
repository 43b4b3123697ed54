"""Self-tests of ``nonce``/``enforce_nonce`` on ``POST /channels/{id}/messages`` and of DMs a
member closed to the bot (403, 50007: Discord's normal answer, not a violation); raw REST calls
and gateway sessions, and the tiny bot (discord.py) handling a closed DM."""

from __future__ import annotations

from typing import Any

from tests.e2e.bots import TINYBOT, SpawnBot
from tests.e2e.emulator import Emulator
from tests.e2e.emulator.tests.raw import RawApi, rules

JSON = dict[str, Any]


async def test_enforce_nonce_returns_the_first_message(emulator: Emulator, raw_api: RawApi) -> None:
    """With ``enforce_nonce``, the same nonce from the same author in the same channel within
    the window creates nothing: the answer is the first message."""
    raw = await raw_api.connect()
    general, games = emulator.channel("general"), emulator.channel("games")
    path = f"/channels/{general.id}/messages"
    body = {"content": "one", "nonce": "turn-7", "enforce_nonce": True}
    code, first = await raw_api.call("POST", path, json=body)
    assert code == 200 and first["nonce"] == "turn-7"
    code, again = await raw_api.call("POST", path, json={**body, "content": "one, again"})
    assert code == 200 and again == first
    assert [m.content for m in emulator.messages(general)] == ["one"]
    await emulator.wait_for(lambda: raw.got("MESSAGE_CREATE", id=first["id"]))
    assert raw.got("MESSAGE_CREATE", id=first["id"])[0]["nonce"] == "turn-7"
    assert len(raw.sent("MESSAGE_CREATE")) == 1

    code, elsewhere = await raw_api.call("POST", f"/channels/{games.id}/messages", json=body)
    assert code == 200 and elsewhere["id"] != first["id"], "another channel"
    code, unenforced = await raw_api.call("POST", path, json={**body, "enforce_nonce": False})
    assert code == 200 and unenforced["id"] != first["id"], "without enforce_nonce: a new one"
    number = {"content": "two", "nonce": 1234567, "enforce_nonce": True}
    first_number = (await raw_api.call("POST", path, json=number))[1]
    assert first_number["nonce"] == 1234567
    assert (await raw_api.call("POST", path, json=number))[1]["id"] == first_number["id"]

    assert (await raw_api.call("DELETE", f"{path}/{first['id']}"))[0] == 204
    code, after_delete = await raw_api.call("POST", path, json=body)
    assert code == 200 and after_delete["id"] != first["id"], "the first one is gone"
    emulator.config.nonce_window = 0.0
    code, later = await raw_api.call("POST", path, json=body)
    assert code == 200 and later["id"] != after_delete["id"], "the window has passed"
    assert emulator.violations == []


async def test_a_nonce_is_an_integer_or_a_short_string(emulator: Emulator, raw_api: RawApi) -> None:
    path = f"/channels/{emulator.channel('general').id}/messages"
    for fine in ("x" * 25, 0, -5):
        assert (await raw_api.call("POST", path, json={"content": "ok", "nonce": fine}))[0] == 200
    for wrong in ("x" * 26, 1.5, True, ["x"]):
        code, body = await raw_api.call("POST", path, json={"content": "no", "nonce": wrong})
        assert (code, body["code"]) == (400, 50035) and "nonce" in body["errors"], wrong
    assert rules(emulator) == ["message.nonce"] * 4
    assert len(emulator.messages(emulator.channel("general"))) == 3


async def test_closed_dms(emulator: Emulator, raw_api: RawApi) -> None:
    """The DM channel is still answered; posting in it is refused 403, 50007, recorded in the
    requests but not as a violation. A user who shares no guild with the bot gets the same."""
    bob = emulator.member("bob")
    emulator.close_dms(bob)
    code, channel = await raw_api.call("POST", "/users/@me/channels", json={"recipient_id": bob.id})
    assert code == 200 and channel["id"] == str(emulator.dm_channel(bob).id)
    path = f"/channels/{channel['id']}/messages"
    code, body = await raw_api.call("POST", path, json={"content": "psst"})
    assert (code, body) == (403, {"message": "Cannot send messages to this user", "code": 50007})
    assert emulator.violations == []
    assert emulator.requests[-1].status == 403 and emulator.requests[-1].path.endswith(path)
    assert emulator.messages(emulator.dm_channel(bob)) == []

    emulator.open_dms(bob)
    code, sent = await raw_api.call("POST", path, json={"content": "psst"})
    assert code == 200
    (message,) = emulator.messages(emulator.dm_channel(bob))
    assert message.content == "psst" and str(message.id) == sent["id"]

    dave = emulator.add_user("dave")
    code, channel = await raw_api.call(
        "POST", "/users/@me/channels", json={"recipient_id": dave.id}
    )
    assert code == 200
    code, body = await raw_api.call(
        "POST", f"/channels/{channel['id']}/messages", json={"content": "hello?"}
    )
    assert (code, body["code"]) == (403, 50007) and emulator.violations == []

    code, body = await raw_api.call("POST", "/users/@me/channels", json={"recipient_id": 1})
    assert (code, body["code"]) == (400, 50007) and rules(emulator) == ["http.dm"]


async def test_discord_py_handles_a_closed_dm(emulator: Emulator, spawn_bot: SpawnBot) -> None:
    """discord.py raises Forbidden (50007) for a closed DM; the tiny bot says so, and nothing
    counts as a broken rule; once open, its DM is visible."""
    bot = spawn_bot(emulator, TINYBOT)
    await bot.start(sync=True)
    alice, bob = emulator.member("alice"), emulator.member("bob")
    emulator.close_dms(bob)
    ix = await emulator.slash(alice, "tiny dm", who=bob)
    assert ix.original is not None and ix.original.content == "refused 50007"
    assert [r.status for r in emulator.requests if r.path.endswith("/messages")] == [403]
    emulator.open_dms(bob)
    ix = await emulator.slash(alice, "tiny dm", who=bob)
    assert ix.original is not None and ix.original.content == "sent"
    (dm,) = emulator.messages(emulator.dm_channel(bob))
    assert dm.content == "psst, Bob"
    assert emulator.violations == []
    assert await bot.stop() == 0
    bot.assert_clean_log()


async def test_who_a_message_pings(emulator: Emulator, raw_api: RawApi) -> None:
    """A message pings the users its content and v2 text displays mention (never its embeds),
    as its ``allowed_mentions`` allow (none given: all); an edit notifies nobody new."""
    await raw_api.connect()
    alice, bob, carol = (emulator.member(name) for name in ("alice", "bob", "carol"))
    path = f"/channels/{emulator.channel('general').id}/messages"
    both = f"<@{alice.id}> and <@!{bob.id}>"
    code, _ = await raw_api.call("POST", path, json={"content": both})
    assert code == 200 and emulator.last_message(emulator.channel("general")).pinged == [
        alice.id,
        bob.id,
    ]
    only_bob = {"parse": [], "users": [str(bob.id)]}
    await raw_api.call("POST", path, json={"content": both, "allowed_mentions": only_bob})
    assert emulator.last_message(emulator.channel("general")).pinged == [bob.id]
    layout = {
        "flags": 1 << 15,
        "allowed_mentions": {"parse": ["users"]},
        "components": [{"type": 17, "components": [{"type": 10, "content": f"<@{carol.id}>"}]}],
        "embeds": [],
    }
    code, posted = await raw_api.call("POST", path, json=layout)
    assert code == 200 and emulator.last_message(emulator.channel("general")).pinged == [carol.id]
    embedded = {"embeds": [{"description": f"<@{alice.id}>"}], "allowed_mentions": {"parse": []}}
    await raw_api.call("POST", path, json=embedded)
    assert emulator.last_message(emulator.channel("general")).pinged == []
    code, _ = await raw_api.call(
        "PATCH",
        f"{path}/{posted['id']}",
        json={
            "components": [{"type": 17, "components": [{"type": 10, "content": f"<@{alice.id}>"}]}],
            "allowed_mentions": {"parse": ["users"]},
        },
    )
    edited = next(
        m for m in emulator.messages(emulator.channel("general")) if m.id == int(posted["id"])
    )
    assert code == 200 and edited.mentions == [alice.id] and edited.pinged == [carol.id]
    assert emulator.violations == []
