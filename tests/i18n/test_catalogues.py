"""The catalogues: every marked message, in every language, with the same placeholders; slash
commands localised within Discord's rules; plural forms by each language's rule."""

from __future__ import annotations

import re

import discord
import pytest
from babel.messages.pofile import read_po
from discord import app_commands

from bot.discord.commands import slash_commands
from bot.features.installed import features
from bot.i18n.catalogues import (
    COMMAND_NAME,
    TEMPLATE,
    TRANSLATED,
    catalogue_path,
    extract,
    language_of,
    translator,
    translator_for,
    untranslated,
)
from bot.i18n.locales import CommandTranslator
from tests.discord_fakes import fake_app

PLACEHOLDER = re.compile(r"\{[^{}]*\}")
COMMAND_NAME_RULE = re.compile(r"[-_'\w]{1,32}")
"""Discord's rule for a localised command or option name (and: lowercase)."""
DISCORD_LOCALES = {"es": ("es-ES", "es-419"), "de": ("de",)}


def keys(catalog) -> set[tuple[str | None, object]]:
    return {(message.context, message.id) for message in catalog if message.id}


def load(language: str):
    with catalogue_path(language).open("rb") as source:
        return read_po(source, locale=language)


def test_the_template_holds_exactly_the_marked_messages():
    """``python -m bot.i18n.catalogues`` was run after the last change to a message."""
    with TEMPLATE.open("rb") as source:
        template = read_po(source)
    assert keys(template) == keys(extract())


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated_with_the_same_placeholders(language: str):
    """No message is missing, fuzzy or left over; each keeps its placeholders."""
    with TEMPLATE.open("rb") as source:
        template = read_po(source)
    catalog = load(language)
    assert keys(catalog) == keys(template)
    assert untranslated(catalog) == []
    for message in catalog:
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            _, plural = message.id
            forms = message.string
            assert len(forms) == 2, message.id
            wanted = set(PLACEHOLDER.findall(plural))
            for form in forms:
                assert set(PLACEHOLDER.findall(form)) <= wanted, (message.id, form)
            assert set(PLACEHOLDER.findall(forms[-1])) == wanted, (message.id, forms[-1])
        else:
            wanted = sorted(PLACEHOLDER.findall(message.id))
            assert sorted(PLACEHOLDER.findall(message.string)) == wanted, (
                message.id,
                message.string,
            )


@pytest.mark.parametrize("language", TRANSLATED)
def test_messages_format_in_every_language(language: str):
    """Every translation formats with its msgid's placeholders (no stray braces)."""
    catalog = load(language)
    for message in catalog:
        if not message.id or message.context == COMMAND_NAME:
            continue
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        source = message.id[-1] if isinstance(message.id, tuple) else message.id
        values = {
            name.split(":")[0].split("!")[0]: 1 for name in re.findall(r"\{([^{}]*)\}", source)
        }
        for form in forms:
            form.format(**({"count": 1} | values))


def test_plural_forms_follow_each_language():
    """One stone, three stones — in each language's own words."""
    for language in ("en", *TRANSLATED):
        t = translator(language)
        one = t.plural("{count} game", "{count} games", 1)
        three = t.plural("{count} game", "{count} games", 3)
        assert one.startswith("1 ") and three.startswith("3 ") and one[2:] != three[2:]
    assert translator("es").plural("{count} game", "{count} games", 3) != "3 games"


def test_discord_locales_map_onto_our_languages():
    assert [language_of(code) for code in ("es-ES", "es-419", "de", "en-GB", "fr", None)] == [
        "es",
        "es",
        "de",
        "en",
        "en",
        "en",
    ]
    assert translator_for("es-419") is translator("es") and translator_for("ja") is translator("en")


async def payloads(locale_codes: tuple[str, ...]) -> list[dict]:
    """The registration payloads of every command, with their localisations."""
    client = discord.Client(intents=discord.Intents.none())
    tree = app_commands.CommandTree(client)
    built = features(fake_app(None))  # type: ignore[arg-type]  # building reads nothing
    for command in slash_commands(command for feature in built for command in feature.commands()):
        tree.add_command(command)
    return [
        await command.get_translated_payload(tree, CommandTranslator())
        for command in tree.get_commands()
    ]


def walk(payload: dict):
    """The payload and every option below it, with its siblings."""
    yield payload, [payload]
    options = payload.get("options") or []
    for option in options:
        for item, _ in walk(option):
            yield item, options if item is option else None


@pytest.mark.parametrize("language", TRANSLATED)
async def test_slash_commands_are_localised_within_discords_rules(language: str):
    """Every command, option and choice has a name and description in the language; names are
    lowercase, without spaces, at most 32 characters, unique among siblings."""
    for payload in await payloads(DISCORD_LOCALES[language]):
        for item, siblings in walk(payload):
            for code in DISCORD_LOCALES[language]:
                name = item["name_localizations"][code]
                assert COMMAND_NAME_RULE.fullmatch(name) and name == name.lower(), name
                assert 1 <= len(item["description_localizations"][code]) <= 100
                for choice in item.get("choices") or []:
                    assert 1 <= len(choice["name_localizations"][code]) <= 100, choice
                if siblings:
                    names = [sibling["name_localizations"][code] for sibling in siblings]
                    assert len(set(names)) == len(names), names


SLASH_COMMAND = re.compile(r"/(?:tholos|leaderboard)\b")


@pytest.mark.parametrize("language", ["en", *TRANSLATED])
def test_no_message_names_a_command_by_hand(language: str):
    """A message that names a command takes it as a placeholder filled with a command mention
    (``phrases.command``), which Discord shows in each reader's language: never a ``/tholos …``
    written into the text, in English or in a translation."""
    with (TEMPLATE if language == "en" else catalogue_path(language)).open("rb") as source:
        catalog = read_po(source)
    named = [
        text
        for message in catalog
        if message.id
        for text in (message.id if isinstance(message.id, tuple) else (message.id,))
        + (message.string if isinstance(message.string, tuple) else (message.string,))
        if text and SLASH_COMMAND.search(text)
    ]
    assert named == []
