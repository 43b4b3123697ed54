"""bot.features.play.feature."""
