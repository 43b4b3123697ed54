"""Every feature of the bot, wired: the one place that knows them all. Each feature builds its
own stores and service over the shared :class:`~bot.discord.app.App`; one that uses another's
gets it here, handed to its constructor. Adding a feature is adding it here."""

from bot.discord.app import App
from bot.discord.feature import Feature
from bot.features.admin.feature import Admin
from bot.features.analysis.feature import Analysis
from bot.features.analysis.web import AnalysisPages
from bot.features.challenges.feature import Challenges
from bot.features.clocks.feature import Clocks
from bot.features.games.feature import Games
from bot.features.hints.feature import Hints
from bot.features.history.feature import History
from bot.features.housekeeping.feature import Housekeeping
from bot.features.lessons.feature import Lessons
from bot.features.lessons.web import LessonPages
from bot.features.live.feature import LiveBoard
from bot.features.play.feature import Play
from bot.features.play.web import PlayPages, SeatPages
from bot.features.pool.feature import Pool
from bot.features.pool.web import PoolPages
from bot.features.puzzles.feature import Puzzles
from bot.features.puzzles.web import PuzzlePages
from bot.features.ratings.feature import Ratings
from bot.features.reminders.feature import Reminders
from bot.features.reviews.feature import Reviews
from bot.features.tournaments.feature import Tournaments
from bot.workers.ai import AiPlayer


def features(app: App, ai: AiPlayer | None = None) -> list[Feature]:
    """Every feature over ``app``, in the order the client starts them, each built once and
    handed what it uses of the others (``ai``: the AI's search, by default in a worker
    process)."""
    play = Play(app, ai)
    lessons, puzzles = Lessons(app), Puzzles(app)
    ratings = Ratings(app, puzzles.store, lessons.service)
    challenges = Challenges(app, play.opponent, ratings.store.rating)
    tournaments = Tournaments(app, play.service, ratings.store.rating)
    analysis, reviews, reminders = Analysis(app), Reviews(app), Reminders(app)
    pool = Pool(app, challenges.play_the_ai, ratings.store.pool_ratings)
    play_pages = PlayPages(app, play.service, play.opponent, challenges.service.new_games)
    pages = [
        play_pages,
        SeatPages(challenges.service),
        PoolPages(app, pool.service, play_pages.play_ai),
        PuzzlePages(puzzles.service),
        LessonPages(lessons.service),
        AnalysisPages(app, analysis.store, reviews.store),
    ]
    return [
        play,
        challenges,
        pool,
        Games(app, challenges.store),
        ratings,
        analysis,
        History(app, tournaments.store.pairings, analysis.store),
        reviews,
        Admin(app, play.service, reminders.store),
        reminders,
        Housekeeping(app, play.opponent),
        Clocks(app, play.service),
        tournaments,
        puzzles,
        lessons,
        Hints(app),
        LiveBoard(app, pages),
    ]
