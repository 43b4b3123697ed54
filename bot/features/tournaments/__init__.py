"""Tournaments, a feature that is a package: the commands, the organiser's controls and the
standings (``feature``), the announcement with its Join / Leave and the scheduled event
(``announcement``), and the loop that runs the rounds (``rounds``)."""
