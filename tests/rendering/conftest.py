"""Fixtures of the rendering tests."""

from __future__ import annotations

import pytest

from engine import Position
from rendering import BoardView
from tests.rendering.cases import KNOWN, case


@pytest.fixture(params=sorted(KNOWN))
def known(request: pytest.FixtureRequest) -> tuple[Position, BoardView]:
    """Each known position with its view."""
    return case(request.param)
