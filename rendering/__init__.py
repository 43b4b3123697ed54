"""The board as a PNG image and as text, drawn with Pillow and the bundled DejaVu fonts.

>>> from engine import Position
>>> png = render_board(Position.parse("-/-/-/-/-/-/- ww bb w -"), BoardView("Ana", "Bob"))
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from .board import render_board
from .describe import describe_board
from .view import BoardView

__all__ = ["BoardView", "describe_board", "render_board"]
