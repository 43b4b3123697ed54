"""The languages of Discord's side: the translator of the member who typed or pressed, the
server's language, and the slash commands' names and descriptions in Spanish and German."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.base.languages import Language
from bot.i18n.catalogues import COMMAND_NAME, language_of, translator, translator_for
from rendering.translator import Translator


def reader(interaction: discord.Interaction) -> Translator:
    """The translator of the member who typed or pressed (their Discord client's language)."""
    return translator_for(interaction.locale)


def server_language(interaction: discord.Interaction) -> Language:
    """The server's language (its community locale), as a new game or challenge keeps it; in a
    direct message, the member's own."""
    if interaction.guild_id is None:
        return language_of(interaction.locale)
    return language_of(interaction.guild_locale)


class CommandTranslator(app_commands.Translator):
    """Slash commands in Spanish and German: names from the ``command`` context, descriptions
    and choices from the plain messages (a name the same in both languages is sent too), or
    words put together from several messages by the string's ``translate`` (a function of the
    language's translator); ``None`` (Discord shows English) for other locales."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        language = language_of(locale)
        if language == "en":
            return None
        translate = string.extras.get("translate")
        if translate is not None:
            return translate(translator(language))
        translations = translator(language).translations
        message = string.message
        if context.location in _NAMES:
            return translations.pgettext(COMMAND_NAME, message)
        return translations.gettext(message)


_NAMES = {
    app_commands.TranslationContextLocation.command_name,
    app_commands.TranslationContextLocation.group_name,
    app_commands.TranslationContextLocation.parameter_name,
}
