"""bot.features.hints.feature."""
