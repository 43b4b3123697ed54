"""Tournaments, a feature that is a package: the commands, the announcement's buttons and the
standings (``feature``), and the loop that runs the rounds (``rounds``)."""
