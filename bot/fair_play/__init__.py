"""Fair play: whether the engine may help with a position (``guard``), and the adviser's worker
shared fairly between members (``scheduler``)."""
