"""The live board: its web server and the Entry Point command (``feature``, ``entry_point``)."""
