"""Reviews: a finished game's review, searched in a worker and shown as a chart (``feature``,
``store``); what other features may use of them."""

from bot.features.reviews.store import ReviewRecord, ReviewStore

__all__ = ["ReviewRecord", "ReviewStore"]
