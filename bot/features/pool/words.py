"""What the pool says on both faces."""

from __future__ import annotations

from engine.vocabulary import N_

CONSENT = N_(
    "The pool pairs you with a member of any server who waits for the same pace ({pace}), "
    "close to your rating. Your opponents see your Discord display name ({name}), never your "
    "nickname in a server, and your server's name only if its admins allow it. Pool games "
    "are rated. You can leave the pool any time with {leave}."
)
"""What the pool is and what others see, before a member joins it."""
