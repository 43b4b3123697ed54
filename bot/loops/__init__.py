"""bot.loops."""
