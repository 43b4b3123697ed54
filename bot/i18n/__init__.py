"""bot.i18n."""
