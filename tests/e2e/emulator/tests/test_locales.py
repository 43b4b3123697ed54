"""Self-tests of localisation: members whose Discord client speaks Spanish or German, guilds
with a preferred locale, and the localizations of registered commands checked like Discord
(raw REST calls with the bot's token and raw gateway sessions; the tiny bot registers a command
through a discord.py ``Translator``).

Each test checks the exact list of rules it breaks on purpose.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from tests.e2e.bots import TINYBOT, SpawnBot
from tests.e2e.emulator import Emulator, Guild, Interaction, User
from tests.e2e.emulator.model import LOCALES
from tests.e2e.emulator.rules import check_commands, valid_name
from tests.e2e.emulator.state import DIRECT_MESSAGES, GUILD_MESSAGES, GUILDS
from tests.e2e.emulator.tests.raw import RawSession

JSON = dict[str, Any]
INTENTS = GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES
QUERY = "?v=10&encoding=json"
FORM = (400, 50035)
RULE = "commands.localization"


class Api:
    """REST calls with the bot's token, and raw gateway sessions."""

    def __init__(self, emulator: Emulator, http: aiohttp.ClientSession) -> None:
        self.emu = emulator
        self.http = http
        self.headers = {"Authorization": f"Bot {emulator.token}"}
        self.sessions: list[RawSession] = []
        self.commands = f"/applications/{emulator.bot_user.id}/guilds/{emulator.guild.id}/commands"

    async def call(self, method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
        url = self.emu.api_base + path
        async with self.http.request(method, url, headers=self.headers, **kwargs) as response:
            return response.status, (None if response.status == 204 else await response.json())

    async def connect(self) -> RawSession:
        ws = await self.http.ws_connect(self.emu.gateway.url() + QUERY)
        assert (await ws.receive_json())["op"] == 10
        identify: JSON = {"token": self.emu.token, "intents": INTENTS, "properties": {}}
        await ws.send_json({"op": 2, "d": identify})
        raw = RawSession(self.emu, ws)
        self.sessions.append(raw)
        await self.emu.wait_for(lambda: raw.got("GUILD_CREATE"), what="READY and GUILD_CREATE")
        return raw

    async def register(self, commands: list[JSON]) -> tuple[int, Any]:
        """Bulk-overwrite the first guild's commands."""
        return await self.call("PUT", self.commands, json=commands)

    async def answer(self, ix: Interaction) -> None:
        body = {"type": 4, "data": {"content": "ok"}}
        status, _ = await self.call("POST", f"/interactions/{ix.id}/{ix.token}/callback", json=body)
        assert status == 204


@pytest_asyncio.fixture
async def api(emulator: Emulator) -> AsyncIterator[Api]:
    async with aiohttp.ClientSession() as http:
        client = Api(emulator, http)
        yield client
        for raw in client.sessions:
            await raw.close()


def found(emulator: Emulator) -> list[tuple[str, int, int]]:
    return [(v.rule, v.status, v.code) for v in emulator.violations]


def tholos() -> JSON:
    """A command localized in Spanish and German at every level: the command, a subcommand and
    its options, a choice, a subcommand group and its subcommand (with Hindi, Thai and Japanese
    names too)."""
    return {
        "name": "tholos",
        "description": "Play Tholos",
        "name_localizations": {"es-ES": "tholos", "de": "tholos"},
        "description_localizations": {"es-ES": "Juega a Tholos", "de": "Spiele Tholos"},
        "options": [
            {
                "type": 1,
                "name": "challenge",
                "description": "Challenge someone",
                "name_localizations": {"es-ES": "desafiar", "de": "herausfordern"},
                "description_localizations": {"es-ES": "Desafía a alguien", "de": "Fordere"},
                "options": [
                    {
                        "type": 6,
                        "name": "opponent",
                        "description": "Who",
                        "required": True,
                        "name_localizations": {"es-ES": "rival", "de": "gegner"},
                        "description_localizations": {"es-ES": "Quién", "de": "Wer"},
                    },
                    {
                        "type": 3,
                        "name": "mode",
                        "description": "Rules",
                        "name_localizations": {"es-ES": "modo", "de": "modus"},
                        "choices": [
                            {
                                "name": "Basic",
                                "value": "basic",
                                "name_localizations": {"es-ES": "Básico", "de": "Grundspiel"},
                            },
                            {"name": "Full", "value": "full", "name_localizations": None},
                        ],
                    },
                ],
            },
            {
                "type": 2,
                "name": "admin",
                "description": "Administration",
                "name_localizations": {"es-ES": "administración", "de": "verwaltung"},
                "options": [
                    {
                        "type": 1,
                        "name": "reset",
                        "description": "Reset",
                        "name_localizations": {
                            "es-ES": "reiniciar",
                            "de": "zurücksetzen",
                            "hi": "रीसेट",
                            "th": "รีเซ็ต",
                            "ja": "リセット",
                            "fr": "l'effacer",
                        },
                        # one localized name in several places is fine: not siblings
                        "options": [
                            {
                                "type": 3,
                                "name": "mode",
                                "description": "Which",
                                "name_localizations": {"es-ES": "modo", "de": "modo"},
                            }
                        ],
                    }
                ],
            },
        ],
    }


def at(command: JSON, *path: int | str) -> JSON:
    """The node of ``command`` at ``path`` (option indexes; ``"c<k>"`` for a choice)."""
    node = command
    for step in path:
        node = node["choices"][int(step[1:])] if isinstance(step, str) else node["options"][step]
    return node


def errors_at(body: JSON, *keys: str | int) -> list[JSON]:
    """The ``_errors`` of an Invalid Form Body answer at ``keys``."""
    node = body["errors"]
    for key in keys:
        node = node[str(key)]
    return node["_errors"]


# Locales of members and guilds ---------------------------------------------------------------


def test_set_locale_accepts_discords_locales_only(emulator: Emulator) -> None:
    bob, guild = emulator.member("bob"), emulator.guild
    assert len(LOCALES) == 32 and {"es-ES", "es-419", "de", "en-US", "zh-TW"} <= set(LOCALES)
    assert bob.user.locale == "en-US" and guild.locale == "en-US"
    for bad in ("xx", "es", "en", "EN-US", "en_US", "", None):
        with pytest.raises(ValueError, match="not a Discord locale"):
            emulator.set_locale(bob, bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="not a Discord locale"):
            emulator.set_locale(guild, bad)  # type: ignore[arg-type]
    assert bob.user.locale == "en-US" and guild.locale == "en-US"
    with pytest.raises(TypeError):
        emulator.set_locale("bob", "de")  # type: ignore[arg-type]
    stranger = Guild(id=1, name="Elsewhere", owner_id=bob.id)
    with pytest.raises(ValueError, match="not a guild"):
        emulator.set_locale(stranger, "de")
    for locale in LOCALES:
        emulator.set_locale(bob, locale)
        assert bob.user.locale == locale
    emulator.set_locale(bob.user, "es-419")
    assert bob.user.locale == "es-419"
    assert "locale" not in bob.user.to_json()  # not part of the user object others see
    emulator.set_locale(guild, "de")
    assert guild.to_json(members=[])["preferred_locale"] == "de"
    assert emulator.violations == []


async def test_an_interaction_carries_the_members_and_the_guilds_locale(
    emulator: Emulator, api: Api
) -> None:
    raw = await api.connect()
    status, _ = await api.call(
        "PUT",
        f"/applications/{emulator.bot_user.id}/commands",
        json=[{"name": "hola", "description": "Say hello"}],
    )
    assert status == 200
    alice, bob, guild = emulator.member("alice"), emulator.member("bob"), emulator.guild
    emulator.set_locale(bob, "es-ES")
    emulator.set_locale(guild, "de")
    emulator.set_locale(guild, "de")  # unchanged: no second GUILD_UPDATE
    await emulator.wait_for(lambda: raw.got("GUILD_UPDATE"), what="GUILD_UPDATE")
    (update,) = raw.got("GUILD_UPDATE")
    assert update["id"] == str(guild.id) and update["preferred_locale"] == "de"
    assert update["name"] == guild.name and len(update["roles"]) == len(guild.roles)
    assert not {"members", "channels", "threads", "joined_at", "member_count"} & set(update)

    other = emulator.add_guild()
    made = [
        await emulator.slash(bob, "hola", wait=False),
        await emulator.slash(alice, "hola", wait=False),
        await emulator.slash(bob, "hola", channel=emulator.dm_channel(bob), wait=False),
        await emulator.slash(bob, "hola", channel=emulator.channel("general", other), wait=False),
    ]
    await emulator.wait_for(lambda: len(raw.got("INTERACTION_CREATE")) == len(made))
    by_id = {int(d["id"]): d for d in raw.got("INTERACTION_CREATE")}
    in_guild, of_alice, in_dm, elsewhere = (by_id[ix.id] for ix in made)
    assert in_guild["locale"] == "es-ES" and in_guild["guild_locale"] == "de"
    assert in_guild["guild"]["locale"] == "de"
    assert of_alice["locale"] == "en-US" and of_alice["guild_locale"] == "de"
    assert in_dm["locale"] == "es-ES" and "guild_locale" not in in_dm and "guild" not in in_dm
    assert elsewhere["locale"] == "es-ES" and elsewhere["guild_locale"] == "en-US"
    (created,) = raw.got("GUILD_CREATE", id=str(other.id))
    assert created["preferred_locale"] == "en-US"
    for ix in made:
        await api.answer(ix)
    assert raw.names().count("GUILD_UPDATE") == 1
    assert emulator.violations == []


# Localizations at registration ---------------------------------------------------------------


def test_names_follow_discords_naming() -> None:
    for good in (
        "desafiar",
        "zurücksetzen",
        "l'effacer",
        "रीसेट",
        "รีเซ็ต",
        "リセット",
        "ß",
        "a" * 32,
    ):
        assert valid_name(good, chat_input=True), good
    for bad in ("", "a" * 33, "Desafiar", "des afiar", "¿qué?", "ÜBER", None, 3):
        assert not valid_name(bad, chat_input=True), bad
    assert valid_name("Nutzer Melden", chat_input=False)
    assert not valid_name("N" * 33, chat_input=False)
    assert check_commands([tholos()]) == []


async def test_valid_localizations_are_accepted_and_stored(emulator: Emulator, api: Api) -> None:
    command = tholos()
    at(command, 0, 1, "c0")["name_localizations"]["fr"] = "x" * 100
    at(command, 0)["description_localizations"]["it"] = "d" * 100
    report = {
        "type": 2,
        "name": "Report",
        "description": "",
        "name_localizations": {"de": "Nutzer Melden", "es-ES": "Denunciar Usuario"},
    }
    status, answer = await api.register([command, report])
    assert status == 200, answer
    assert answer[0]["name_localizations"] == command["name_localizations"]
    stored = emulator.state.commands.find("tholos", emulator.guild.id)
    assert stored is not None
    assert stored["description_localizations"] == {"es-ES": "Juega a Tholos", "de": "Spiele Tholos"}
    assert stored["options"][0]["name_localizations"] == {
        "es-ES": "desafiar",
        "de": "herausfordern",
    }
    assert at(stored, 0, 0)["name_localizations"] == {"es-ES": "rival", "de": "gegner"}
    assert at(stored, 0, 1, "c0")["name_localizations"]["de"] == "Grundspiel"
    assert at(stored, 1, 0)["name_localizations"]["hi"] == "रीसेट"
    status, listed = await api.call("GET", api.commands)
    assert status == 200 and listed[1]["name_localizations"]["de"] == "Nutzer Melden"
    ix = await emulator.slash(
        emulator.member("bob"), "tholos challenge", wait=False, opponent=emulator.member("alice")
    )
    assert ix.data["options"][0]["name"] == "challenge"  # invoked by its default names
    await api.answer(ix)
    assert emulator.violations == []


def _localize(path: tuple[int | str, ...], key: str, locale: str, text: Any) -> JSON:
    command = tholos()
    node = at(command, *path)
    node[key] = {**(node.get(key) or {}), locale: text}
    return command


NAME_CASES = {
    "space": ("es-ES", "desafiar ya"),
    "uppercase": ("de", "Herausfordern"),
    "33 characters": ("es-ES", "a" * 33),
    "empty": ("de", ""),
    "not a string": ("de", 7),
}


@pytest.mark.parametrize("case", list(NAME_CASES))
@pytest.mark.parametrize(
    "path", [(), (0,), (0, 1), (1, 0)], ids=["command", "sub", "option", "grouped"]
)
async def test_a_bad_localized_name_is_refused_and_recorded(
    emulator: Emulator, api: Api, case: str, path: tuple[int, ...]
) -> None:
    status, _ = await api.register([tholos()])
    assert status == 200
    before = emulator.state.commands.find("tholos", emulator.guild.id)
    locale, text = NAME_CASES[case]
    status, body = await api.register([_localize(path, "name_localizations", locale, text)])
    assert (status, body["code"]) == FORM and body["message"] == "Invalid Form Body"
    keys: list[int | str] = [0]
    for index in path:
        keys += ["options", index]
    keys.append("name_localizations")
    if path or case == "not a string":  # Discord names the locale of an option's bad name
        keys.append(locale)
    (error,) = errors_at(body, *keys)
    expected = "BASE_TYPE_STRING" if case == "not a string" else "APPLICATION_COMMAND_INVALID_NAME"
    assert error["code"] == expected
    assert found(emulator) == [(RULE, *FORM)]
    assert emulator.state.commands.find("tholos", emulator.guild.id) is before  # unchanged


@pytest.mark.parametrize("locale", ["xx", "es", "en", "EN-US", "en_US"])
@pytest.mark.parametrize(
    ("path", "key"),
    [
        ((), "name_localizations"),
        ((), "description_localizations"),
        ((0, 0), "name_localizations"),
        ((0, 0), "description_localizations"),
        ((0, 1, "c0"), "name_localizations"),
    ],
)
async def test_an_unknown_locale_is_refused_and_recorded(
    emulator: Emulator, api: Api, locale: str, path: tuple[int | str, ...], key: str
) -> None:
    status, body = await api.register([_localize(path, key, locale, "hola")])
    assert (status, body["code"]) == FORM
    keys: list[int | str] = [0]
    for step in path:
        keys += ["choices", int(step[1:])] if isinstance(step, str) else ["options", step]
    (error,) = errors_at(body, *keys, key, locale)
    assert error["code"] == "BASE_TYPE_CHOICES" and "es-ES" in error["message"]
    assert found(emulator) == [(RULE, *FORM)]
    assert emulator.commands() == []


async def test_a_localization_dictionary_must_be_an_object(emulator: Emulator, api: Api) -> None:
    command = tholos()
    command["name_localizations"] = ["es-ES", "tholos"]
    status, body = await api.register([command])
    assert status == 400
    assert errors_at(body, 0, "name_localizations")[0]["code"] == "DICT_TYPE_CONVERT"
    command["name_localizations"] = None  # null: no localizations
    status, _ = await api.register([command])
    assert status == 200
    assert found(emulator) == [(RULE, *FORM)]


async def test_sibling_options_need_distinct_localized_names(emulator: Emulator, api: Api) -> None:
    """Two options of one subcommand may not share a name in one locale; the same localized
    name in another locale, or at another level, is fine."""
    command = tholos()
    at(command, 0, 1)["name_localizations"]["es-ES"] = "rival"
    status, body = await api.register([command])
    assert (status, body["code"]) == FORM
    (error,) = errors_at(body, 0, "options", 0, "options", 1, "name_localizations", "es-ES")
    assert error["code"] == "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME"
    subs = tholos()
    at(subs, 1)["name_localizations"]["de"] = "herausfordern"  # same as the challenge subcommand
    status, body = await api.register([subs])
    assert (status, body["code"]) == FORM
    assert "de" in body["errors"]["0"]["options"]["1"]["name_localizations"]
    fine = tholos()
    at(fine, 0, 1)["name_localizations"]["de"] = "rival"  # es-ES "rival" is another locale's
    status, _ = await api.register([fine])
    assert status == 200
    assert found(emulator) == [(RULE, *FORM)] * 2


@pytest.mark.parametrize("path", [(), (0,), (0, 0), (1, 0, 0)])
@pytest.mark.parametrize("text", ["d" * 101, ""], ids=["101", "empty"])
async def test_a_bad_description_localization_is_refused(
    emulator: Emulator, api: Api, path: tuple[int, ...], text: str
) -> None:
    status, body = await api.register([_localize(path, "description_localizations", "de", text)])
    assert (status, body["code"]) == FORM
    keys: list[int | str] = [0]
    for index in path:
        keys += ["options", index]
    (error,) = errors_at(body, *keys, "description_localizations", "de")
    assert error["code"] == "BASE_TYPE_BAD_LENGTH"
    assert found(emulator) == [(RULE, *FORM)]


@pytest.mark.parametrize("text", ["x" * 101, ""], ids=["101", "empty"])
async def test_a_bad_choice_name_localization_is_refused(
    emulator: Emulator, api: Api, text: str
) -> None:
    status, body = await api.register(
        [_localize((0, 1, "c1"), "name_localizations", "es-ES", text)]
    )
    assert (status, body["code"]) == FORM
    path = (0, "options", 0, "options", 1, "choices", 1, "name_localizations", "es-ES")
    (error,) = errors_at(body, *path)
    assert error["code"] == "BASE_TYPE_BAD_LENGTH"
    assert found(emulator) == [(RULE, *FORM)]


async def test_context_menu_names_may_have_capitals_and_spaces_but_32_characters(
    emulator: Emulator, api: Api
) -> None:
    menu = {"type": 3, "name": "Quote", "description": "", "name_localizations": {"de": "N" * 33}}
    status, body = await api.register([menu])
    assert (status, body["code"]) == FORM
    assert "name_localizations" in body["errors"]["0"]
    menu["name_localizations"] = {"de": "Zitat Speichern", "es-ES": "Guardar Cita"}
    status, _ = await api.register([menu])
    assert status == 200
    assert found(emulator) == [(RULE, *FORM)]


async def test_one_command_routes_check_localizations_too(emulator: Emulator, api: Api) -> None:
    """POST (create one) and PATCH (edit one) are checked like the bulk overwrite."""
    status, body = await api.call(
        "POST", api.commands, json=_localize((0,), "name_localizations", "de", "Mit Leerzeichen")
    )
    assert (status, body["code"]) == FORM
    status, created = await api.call("POST", api.commands, json=tholos())
    assert status == 201
    path = f"{api.commands}/{created['id']}"
    bad = {"description_localizations": {"de": "x" * 101}}
    status, body = await api.call("PATCH", path, json=bad)
    assert (status, body["code"]) == FORM
    assert "de" in body["errors"]["0"]["description_localizations"]
    good = {"description_localizations": {"es-419": "Juega a Tholos", "pt-BR": "Jogue Tholos"}}
    status, edited = await api.call("PATCH", path, json=good)
    assert (
        status == 200 and edited["description_localizations"] == good["description_localizations"]
    )
    stored = emulator.state.commands.find("tholos", emulator.guild.id)
    assert stored is not None and stored["description_localizations"]["pt-BR"] == "Jogue Tholos"
    assert stored["options"][0]["name_localizations"]["de"] == "herausfordern"
    assert found(emulator) == [(RULE, *FORM)] * 2


# discord.py ---------------------------------------------------------------------------------


async def test_discord_py_registers_localizations_and_reads_the_locales(
    emulator: Emulator, spawn_bot: SpawnBot
) -> None:
    """The tiny bot's ``Translator`` localizes ``/tiny locale`` in Spanish and German; its
    answer tells ``interaction.locale``, ``guild_locale`` and (after GUILD_UPDATE) the cached
    guild's ``preferred_locale``."""
    bot = spawn_bot(emulator, TINYBOT)
    await bot.start(sync=True)
    tiny = emulator.state.commands.find("tiny", emulator.guild.id)
    assert tiny is not None
    sub = next(o for o in tiny["options"] if o["name"] == "locale")
    assert sub["name_localizations"] == {"es-ES": "idioma", "de": "sprache"}
    assert sub["description_localizations"]["de"] == "Nennt die Sprachen dieser Interaktion"
    (detail,) = sub["options"]
    assert detail["name_localizations"] == {"es-ES": "detalle", "de": "detail"}
    assert detail["choices"][0]["name_localizations"] == {"es-ES": "Breve", "de": "Kurz"}
    assert not next(o for o in tiny["options"] if o["name"] == "ping").get("name_localizations")

    bob, alice = emulator.member("bob"), emulator.member("alice")
    emulator.set_locale(bob, "es-ES")
    ix = await emulator.slash(bob, "tiny locale")
    assert ix.original is not None and ix.original.content == "locale=es-ES guild_locale=en-US"
    emulator.set_locale(emulator.guild, "de")
    emulator.set_locale(alice.user, "es-419")
    ix = await emulator.slash(alice, "tiny locale", detail="full")
    assert ix.original is not None
    assert ix.original.content == "locale=es-419 guild_locale=de preferred=de"
    assert await bot.stop() == 0
    bot.assert_clean_log()
    assert emulator.violations == []


def test_the_user_type_has_a_locale() -> None:
    assert User(id=1, username="x").locale == "en-US"
