"""Games: ``/tholos games``, the server's games and open challenges (``feature``)."""
