"""How a game ends: its result, as a record writes it, and why. No I/O."""

from __future__ import annotations

from typing import Literal

Result = Literal["white", "black", "draw"]
RESULTS: dict[Result, str] = {"white": "1-0", "black": "0-1", "draw": "1/2-1/2"}
"""Each result as a record writes it."""
Reason = Literal["points", "columns", "tie", "resignation", "timeout"]
