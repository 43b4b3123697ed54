"""bot.fair_play."""
