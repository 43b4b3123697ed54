"""bot.features.analysis."""
