"""bot.features.housekeeping.feature."""
