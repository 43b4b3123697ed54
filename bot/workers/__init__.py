"""bot.workers."""
