"""bot.features.reminders.feature."""
