"""The pool: quick pairing across servers. A wave of those waiting for one pace is paired by
rating, within windows that widen with the wait (``matching``), over the pool's tables
(``store``), by the waves (``waves``); what a member does in it (``service``); what other
features may use of it."""

from bot.features.pool.service import AiOffer, PoolService, PoolState
from bot.features.pool.store import POOL_TOPIC, BlockStore

__all__ = ["POOL_TOPIC", "AiOffer", "BlockStore", "PoolService", "PoolState"]
