"""bot.features.clocks.feature."""
