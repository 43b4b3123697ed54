"""History: a member's finished games, their replay and record (``feature``)."""
