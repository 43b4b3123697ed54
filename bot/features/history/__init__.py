"""bot.features.history.feature."""
