"""Clocks: the loop that ends live games on time (``feature``)."""
