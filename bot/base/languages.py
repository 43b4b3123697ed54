"""The languages the bot speaks."""

from __future__ import annotations

from typing import Literal

Language = Literal["en", "es", "de"]
"""The languages the bot speaks (English is the fallback for every other locale)."""
