"""What the bot says, for every face: languages, phrases, the board as one value."""
