"""bot.health."""
