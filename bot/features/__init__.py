"""The bot's features, one package each: its slash commands, the handlers of its buttons, its
background loops, its store and service, its part of the live page
(:class:`~bot.discord.feature.Feature`). :func:`bot.features.installed.features` builds and
wires them all, in the order the client starts them.

- :mod:`.play` — the turn: the board's buttons, ``/tholos board|resign|claim|rules``; the AI
  opponent's turns; the page's games;
- :mod:`.challenges` — ``/tholos challenge|cancel``, ``/tholos-ai``, Accept/Decline/Withdraw,
  Rematch, and challenges expiring on time;
- :mod:`.games` — ``/tholos games``: the server's games being played;
- :mod:`.ratings` — ``/leaderboard`` and ``/tholos stats``;
- :mod:`.analysis` — the analysis board of the live page, and the games members ask it for;
- :mod:`.history` — ``/tholos history|replay|record|analyse``, the final board's Replay, Record
  and Analyse;
- :mod:`.reviews` — the AI's review of a finished game;
- :mod:`.admin` — ``/tholos-admin``: a server's settings, ending a stuck game; backups and
  ``copy-db``;
- :mod:`.reminders` — turn reminders and ``/tholos settings``;
- :mod:`.housekeeping` — boards a crash left unposted, posted (or recorded);
- :mod:`.clocks` — live games ended on time;
- :mod:`.tournaments` — ``/tholos-tournament``, ``/tholos tournament``, and their rounds;
- :mod:`.puzzles` — ``/tholos puzzle``, the puzzle of the day, puzzles from finished games,
  the page's puzzles;
- :mod:`.lessons` — ``/tholos learn``: the course of lessons played, and its first game; the
  page's lessons;
- :mod:`.hints` — the Hint button of a game against the AI that allows hints;
- :mod:`.live` — the live board's web server (a Discord Activity) and the Entry Point command.
"""
