"""What the bot says that every feature shares: the board as one value (``board``) and its
controls (``choices``), the turn being composed (``steps``, ``presses``), members' names made
safe (``names``), and the phrases several features say (``phrases``)."""
