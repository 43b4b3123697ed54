"""The rendering package is pure: no Discord, database or bot code is loaded with it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_rendering_loads_no_bot_discord_or_database_module():
    script = (
        "import sys\n"
        "import rendering, rendering.__main__, rendering.board, rendering.describe\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'discord', 'bot', 'sqlite3', 'aiohttp'})\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert result.stdout.strip() == ""
