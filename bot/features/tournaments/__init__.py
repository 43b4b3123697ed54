"""Tournaments, a feature that is a package: the commands, the organiser's controls and the
standings (``feature``), the announcement with its Join / Leave and the scheduled event
(``announcement``), the loop that runs the rounds (``rounds``), the pairings (``pairing``,
``matching``); what other features may use of them."""

from bot.features.tournaments.store import PairingStore

__all__ = ["PairingStore"]
