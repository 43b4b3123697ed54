"""Housekeeping: what a restart left behind, repaired, and the boards still to post
(``feature``)."""
