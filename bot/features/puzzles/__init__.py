"""Puzzles, a feature that is a package: ``/tholos puzzle`` and the answer's buttons
(``feature``), what a puzzle's message says (``face``), the server's puzzle of the day
(``daily``), and the verified set that ships with the bot (``shipped.jsonl``)."""
