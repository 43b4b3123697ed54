"""bot.features.challenges.feature."""
