"""Every feature of the bot, in the order the client builds them: adding a feature is adding it
here."""

from bot.discord.feature import Feature
from bot.features.admin.feature import Admin
from bot.features.challenges.feature import Challenges
from bot.features.clocks.feature import Clocks
from bot.features.games.feature import Games
from bot.features.hints.feature import Hints
from bot.features.history.feature import History
from bot.features.housekeeping.feature import Housekeeping
from bot.features.lessons.feature import Lessons
from bot.features.live.feature import LiveBoard
from bot.features.play.feature import Play
from bot.features.puzzles.feature import Puzzles
from bot.features.ratings.feature import Ratings
from bot.features.reminders.feature import Reminders
from bot.features.reviews.feature import Reviews
from bot.features.tournaments.feature import Tournaments

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
