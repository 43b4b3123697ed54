"""Tournaments, a feature that is a package: the commands, the organiser's controls and the
standings' message (``feature``), the tournaments and their pairings stored (``store``), their
flow without Discord (``service``), the announcement with its Join / Leave and the scheduled
event (``announcement``), the loop that runs the rounds (``rounds``), the pairings
(``pairing``, ``matching``) and the standings (``standings``); what other features may use of
them."""

from bot.features.tournaments.store import PairingStore

__all__ = ["PairingStore"]
