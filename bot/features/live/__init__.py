"""bot.features.live."""
