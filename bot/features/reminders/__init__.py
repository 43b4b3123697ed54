"""Reminders: a player's turn reminders, stored (``store``) and sent (``feature``); what
other features may use of them."""

from bot.features.reminders.store import ReminderStore

__all__ = ["ReminderStore"]
