"""bot.features.games.feature."""
