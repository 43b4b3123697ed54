"""bot.features.admin.feature."""
