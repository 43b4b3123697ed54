"""bot.features.ratings.feature."""
