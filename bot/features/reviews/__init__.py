"""bot.features.reviews."""
