"""The bot's features, one module each: its slash commands, the handlers of its buttons and
its flows. :mod:`bot.client` builds them and registers their buttons with the router.

- :mod:`.play` — the turn: the board's buttons, ``/tholos board|resign|claim|rules``;
- :mod:`.challenges` — ``/tholos challenge|cancel``, Accept/Decline/Withdraw, Rematch;
- :mod:`.opponent` — the AI opponent: its turns searched in a worker process;
- :mod:`.games` — ``/tholos games``: the server's games being played;
- :mod:`.ratings` — ``/leaderboard`` and ``/tholos stats``;
- :mod:`.housekeeping` — what runs on its own: expiring challenges, reposting boards that a
  crash left unposted, resuming the AI.
"""
