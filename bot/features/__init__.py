"""The bot's features, one module (or package) each: its slash commands, the handlers of its
buttons, its background loops, its flows (:class:`~bot.face.feature.Feature`). The client
builds every feature of :data:`FEATURES`, in this order: adding a feature is adding it here.

- :mod:`.play` — the turn: the board's buttons, ``/tholos board|resign|claim|rules``;
- :mod:`.challenges` — ``/tholos challenge|cancel``, ``/tholos-ai``, Accept/Decline/Withdraw,
  Rematch, and challenges expiring on time;
- :mod:`.games` — ``/tholos games``: the server's games being played;
- :mod:`.ratings` — ``/leaderboard`` and ``/tholos stats``;
- :mod:`.history` — ``/tholos history|replay|record``, the final board's Replay and Record;
- :mod:`.review` — the AI's review of a finished game;
- :mod:`.admin` — ``/tholos-admin``: a server's settings, ending a stuck game;
- :mod:`.reminders` — turn reminders and ``/tholos settings``;
- :mod:`.housekeeping` — boards a crash left unposted, posted (or recorded);
- :mod:`.clocks` — live games ended on time;
- :mod:`.tournaments` — ``/tholos-tournament``, ``/tholos tournament``, and their rounds;
- :mod:`.puzzles` — ``/tholos puzzle``, the puzzle of the day, puzzles from finished games;
- :mod:`.lessons` — ``/tholos learn``: the course of lessons played, and its first game;
- :mod:`.hints` — the Hint button of a game against the AI that allows hints;
- :mod:`bot.web` — the live board (a Discord Activity) and the Entry Point command.
"""

from bot.face.feature import Feature
from bot.features.admin import Admin
from bot.features.challenges import Challenges
from bot.features.clocks import Clocks
from bot.features.games import Games
from bot.features.hints import Hints
from bot.features.history import History
from bot.features.housekeeping import Housekeeping
from bot.features.lessons.feature import Lessons
from bot.features.play import Play
from bot.features.puzzles.feature import Puzzles
from bot.features.ratings import Ratings
from bot.features.reminders import Reminders
from bot.features.review import Reviews
from bot.features.tournaments.feature import Tournaments
from bot.web.feature import LiveBoard

FEATURES: tuple[type[Feature], ...] = (
    Play,
    Challenges,
    Games,
    Ratings,
    History,
    Reviews,
    Admin,
    Reminders,
    Housekeeping,
    Clocks,
    Tournaments,
    Puzzles,
    Lessons,
    Hints,
    LiveBoard,
)
"""Every feature of the bot."""
