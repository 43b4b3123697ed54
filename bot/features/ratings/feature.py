"""Ratings: ``/leaderboard`` with its Previous / Next buttons, and ``/tholos stats``."""

from __future__ import annotations

import asyncio
import dataclasses

import discord
from discord import app_commands
from discord.ext.commands import Cog

from bot.base.refusals import Refusal
from bot.discord.answers import Interaction, answers
from bot.discord.app import App
from bot.discord.commands import Command, Tholos
from bot.discord.controls import FLOAT, PAGE, SNOWFLAKE, WAY, CustomId, Router, pager
from bot.discord.feature import Feature
from bot.discord.visibility import Questions, verdicts
from bot.features.lessons import LessonService, course_line
from bot.features.puzzles import PuzzlePlayer, PuzzleStore
from bot.features.ratings.stats import Played, Record, Stats, player_stats
from bot.features.ratings.store import PAGE_SIZE, Mark, PlayerRating, RatingStore
from bot.i18n.catalogues import NC_
from bot.i18n.locales import reader
from bot.words.names import mention
from bot.words.phrases import LEVEL_NAMES, SANDSTONE, WIN_LOSS_DRAW_MARK, command, reason_text
from engine.vocabulary import N_, points
from rendering.translator import Translator

LEADERBOARD = CustomId("lb", (("page", PAGE, int), ("way", WAY, str)))
"""Show that page of the server's leaderboard (Previous / Next; posted before keyset paging)."""
LEADERBOARD_SEEK = CustomId(
    "lbs",
    (("page", PAGE, int), ("way", WAY, str), ("rating", FLOAT, float), ("user", SNOWFLAKE, int)),
)
"""Previous / Next on the leaderboard: the page to show, and the first (Previous) or last (Next)
row of the page shown — its exact rating and user id — to seek from."""


class Ratings(Feature):
    """The handlers of the server's ratings."""

    def __init__(self, app: App, puzzles: PuzzleStore, lessons: LessonService) -> None:
        """``puzzles`` and ``lessons``: a member's puzzles and course, for their stats."""
        super().__init__(app)
        self.store = RatingStore(app.database)
        self.puzzles = puzzles
        self.lessons = lessons
        self.visibility = app.visibility
        """Who may see the games another member's stats name."""

    def commands(self) -> list[Command]:
        return RatingCommands(self).get_app_commands()

    def register(self, router: Router) -> None:
        """Route Previous / Next here (and those posted before keyset paging, by page)."""
        router.add(
            LEADERBOARD,
            lambda interaction, page, way: self.leaderboard(interaction, page, edit=True),
        )
        router.add(
            LEADERBOARD_SEEK,
            lambda interaction, page, way, rating, user: self.leaderboard(
                interaction,
                page,
                edit=True,
                seek=(way, Mark(rating, user)),
            ),
        )

    @answers()
    async def leaderboard(
        self,
        interaction: Interaction,
        page: int,
        *,
        edit: bool,
        seek: tuple[str, Mark] | None = None,
    ) -> None:
        """``/leaderboard`` (a new message) or its Previous / Next buttons (the same message).

        A button with a ``seek`` (Previous or Next, and the row of the page shown to go from)
        shows the rows next to that row, found in the rank index at the same cost on every
        page; their ranks are counted from the page number. Without one, or when the seek
        comes back short (the ratings changed since), the page is read by its number.
        """
        guild_id = interaction.guild_id
        if guild_id is None:
            raise Refusal(
                "Leaderboards belong to servers — run {leaderboard} in a server.",
                leaderboard=command("leaderboard"),
            )
        ratings = self.store
        players = await ratings.players(guild_id)
        if not players:
            raise Refusal(
                "No rated games have finished on this server yet — {challenge} someone!",
                challenge=command("tholos challenge"),
            )
        pages = -(-players // PAGE_SIZE)
        page = min(page, pages - 1)
        rows = await self._seek(guild_id, page, seek) if seek is not None else []
        if not rows:
            rows = await ratings.page(guild_id, page, players)
        me = await ratings.player(guild_id, interaction.user.id)
        t = reader(interaction)
        embed = leaderboard_embed(t, rows, page, pages, interaction.user.id, me)
        first, last = Mark.of(rows[0][1]), Mark.of(rows[-1][1])
        marks = {"p": first, "n": last}  # Previous seeks back from the first row, Next on
        view = pager(
            t,
            LEADERBOARD_SEEK,
            page,
            pages,  # from the last
            rating=lambda way: marks[way].rating,
            user=lambda way: marks[way].user_id,
        )
        if edit:
            await interaction.response.edit_message(embed=embed, view=view)
        else:
            await interaction.response.send_message(embed=embed, view=view)

    async def _seek(
        self, guild_id: int, page: int, seek: tuple[str, Mark]
    ) -> list[tuple[int, PlayerRating]]:
        """Page ``page`` as the rows next to the seek's mark, ranked from the page number; empty
        when that is not a whole page's worth (Previous short of a page, Next past the end)."""
        way, mark = seek
        found = await self.store.seek(guild_id, mark, way)
        if way == "p" and len(found) < PAGE_SIZE:
            return []
        return [(page * PAGE_SIZE + number + 1, player) for number, player in enumerate(found)]

    @answers(server_only=True)
    async def stats(self, interaction: Interaction, user: discord.abc.User) -> None:
        """``/tholos stats [member]``."""
        guild_id = interaction.guild_id or 0
        ratings = self.store
        history = await ratings.history(guild_id, user.id)
        rated = await ratings.player(guild_id, user.id)
        players = await ratings.players(guild_id)
        stats = player_stats(user.id, history)
        if user.id != interaction.user.id:
            stats = await self._seen_by(interaction, stats)
        t = reader(interaction)
        embed = stats_embed(t, user.id, rated, players, stats)
        puzzles = await self.puzzles.player(user.id)
        if puzzles.attempts:
            embed.insert_field_at(1, name=t("Puzzles"), value=puzzle_text(t, puzzles), inline=False)
        course = course_line(t, await self.lessons.progress(user.id))
        if course is not None:
            embed.insert_field_at(1, name=t("Lessons"), value=course, inline=False)
        await interaction.response.send_message(embed=embed)

    async def _seen_by(self, interaction: Interaction, stats: Stats) -> Stats:
        """Another member's ``stats`` as the caller may see them: the last games and the
        biggest win only where the caller may open the game (the records and the rating, counts
        the leaderboard shows anyway, stay whole)."""
        named = [played.game.id for played in stats.recent]
        if stats.biggest_win is not None:
            named.append(stats.biggest_win.game.id)
        read = await asyncio.gather(
            *(self.app.stores.games.game(id) for id in dict.fromkeys(named))
        )
        games = [game for game in read if game is not None]
        seen = await verdicts(
            self.visibility,
            games,
            interaction.user.id,
            interaction.user,
            seen_in=interaction.channel_id,
            questions=Questions(),
        )
        shown = {game.id for game, sees in zip(games, seen, strict=True) if sees}
        best = stats.biggest_win
        return dataclasses.replace(
            stats,
            recent=[played for played in stats.recent if played.game.id in shown],
            biggest_win=best if best is not None and best.game.id in shown else None,
        )


class RatingCommands(Cog):
    """``/tholos stats`` and ``/leaderboard``."""

    tholos = Tholos()

    def __init__(self, ratings: Ratings) -> None:
        self.ratings = ratings

    @tholos.command(
        name=NC_("command", "stats"),
        description=N_("A player's Tholos rating, record and recent games"),
    )
    @app_commands.describe(member=N_("Whose stats (default: yours)"))
    async def stats(self, interaction: Interaction, member: discord.User | None = None) -> None:
        """``/tholos stats [member]``."""
        await self.ratings.stats(interaction, member or interaction.user)

    @app_commands.command(
        name=NC_("command", "leaderboard"),
        description=N_("This server's Tholos players ranked by rating"),
    )
    @app_commands.guild_only()
    @app_commands.guild_install()
    @app_commands.describe(page=N_("Which page (10 players a page)"))
    async def leaderboard(
        self, interaction: Interaction, page: app_commands.Range[int, 1, 100000] = 1
    ) -> None:
        """``/leaderboard [page]``."""
        await self.ratings.leaderboard(interaction, page - 1, edit=False)


# -- what it says -------------------------------------------------------------------------------


def rating_text(t: Translator, player: PlayerRating) -> str:
    """``1612 ±85`` (with ``provisional`` for a player with few rated games)."""
    rating = player.rating
    text = f"**{rating.rating:.0f}** ±{rating.deviation:.0f}"
    return t("{rating} (provisional)", rating=text) if player.provisional else text


def leaderboard_embed(
    t: Translator,
    rows: list[tuple[int, PlayerRating]],
    page: int,
    pages: int,
    caller_id: int,
    caller: tuple[int, PlayerRating] | None,
) -> discord.Embed:
    """One page of the server's leaderboard, and where the caller stands."""
    embed = discord.Embed(title=t("Tholos leaderboard"), colour=SANDSTONE)
    embed.description = "\n".join(
        f"`#{rank}` {mention(player.user_id)} {rating_text(t, player)} · "
        + t.plural("{count} game", "{count} games", player.games)
        + f" · {player.wins}–{player.losses}–{player.draws}"
        for rank, player in rows
    ) or t("Nobody on this page.")
    if caller is None:
        you = t(
            "{member}: not rated yet — finish a game to join the board.", member=mention(caller_id)
        )
    else:
        rank, player = caller
        you = f"{mention(caller_id)}: #{rank} · {rating_text(t, player)}"
    embed.add_field(name=t("You"), value=you, inline=False)
    embed.set_footer(
        text=t("Page {page} of {pages}", page=page + 1, pages=pages)
        + " · "
        + t("Glicko-2 ratings; ± is one rating deviation; W–L–D counts rated games")
    )
    return embed


def record_text(record: Record) -> str:
    """``3–1–0``: wins, losses, draws."""
    return f"{record.wins}–{record.losses}–{record.draws}"


def opponent_text(t: Translator, game: Played) -> str:
    """The opponent of a game in a stats line: a mention, or the AI and its level."""
    level = game.game.ai_level
    if level is None:
        return mention(game.opponent_id)
    return t("the AI ({level}, unrated)", level=t(LEVEL_NAMES[level]))


def streak_text(t: Translator, outcome: str, length: int) -> str:
    """``3 wins``, ``1 loss``, ``2 draws``."""
    if outcome == "win":
        return t.plural("{count} win", "{count} wins", length)
    if outcome == "loss":
        return t.plural("{count} loss", "{count} losses", length)
    return t.plural("{count} draw", "{count} draws", length)


def puzzle_text(t: Translator, player: PuzzlePlayer) -> str:
    """A member's puzzles in a line: rating, solved of tried, streaks."""
    return t(
        "Rating {rating} · solved {solved} of {attempts} · streak {streak} (best {best})",
        rating=round(player.rating.rating),
        solved=player.solved,
        attempts=player.attempts,
        streak=player.streak,
        best=player.best_streak,
    )


def stats_embed(
    t: Translator, user_id: int, rated: tuple[int, PlayerRating] | None, players: int, stats: Stats
) -> discord.Embed:
    """``/tholos stats``: rating and rank, records, points, streak, the last games."""
    embed = discord.Embed(title=t("Tholos stats"), colour=SANDSTONE, description=mention(user_id))
    if rated is None:
        embed.add_field(name=t("Rating"), value=t("Not rated yet."), inline=False)
    else:
        rank, player = rated
        embed.add_field(
            name=t("Rating"),
            value=t("#{rank} of {players}", rank=rank, players=players)
            + " · "
            + rating_text(t, player),
            inline=False,
        )
    if not stats.overall.games and not stats.against_ai:
        embed.add_field(
            name=t("Games"), value=t("No finished games on this server yet."), inline=False
        )
        return embed
    if stats.overall.games:
        _add_record(embed, t, stats)
    if stats.against_ai:
        embed.add_field(
            name=t("Against the AI (unrated)"),
            value=" · ".join(
                f"{t(LEVEL_NAMES[level])} {record_text(record)}"
                for level, record in stats.against_ai.items()
            ),
            inline=False,
        )
    if stats.biggest_win is not None:
        best = stats.biggest_win
        embed.add_field(
            name=t("Biggest win"),
            value=t(
                "{scored}–{conceded} vs {opponent} {date}",
                scored=points(best.points_for),
                conceded=points(best.points_against),
                opponent=mention(best.opponent_id),
                date=f"<t:{int(best.game.finished_at)}:d>",
            ),
            inline=False,
        )
    if stats.streak is not None:
        outcome, length = stats.streak
        embed.add_field(
            name=t("Current streak"), value=streak_text(t, outcome, length), inline=False
        )
    if stats.recent:  # another member's, those the reader may see
        embed.add_field(name=t("Last games"), value=last_games_text(t, stats), inline=False)
    return embed


def _add_record(embed: discord.Embed, t: Translator, stats: Stats) -> None:
    """The rated record: wins, losses, draws and win rate, by colour, and the points a game."""
    overall = stats.overall
    embed.add_field(
        name=t("Record"),
        value=t(
            "{wins} W · {losses} L · {draws} D · win rate {rate}",
            wins=overall.wins,
            losses=overall.losses,
            draws=overall.draws,
            rate=f"{overall.win_rate:.0%}",
        ),
        inline=False,
    )
    mean_for, mean_against = stats.mean_points_for, stats.mean_points_against
    assert mean_for is not None and mean_against is not None  # games were counted
    for name, record in ((N_("As White"), stats.as_white), (N_("As Black"), stats.as_black)):
        embed.add_field(name=t(name), value=record_text(record), inline=True)
    embed.add_field(
        name=t("Points per game"),
        value=t(
            "{scored} for · {conceded} against",
            scored=points(mean_for, digits=1),
            conceded=points(mean_against, digits=1),
        ),
        inline=False,
    )


def last_games_text(t: Translator, stats: Stats) -> str:
    """The last games, one a line: the outcome, the opponent, the score, how it ended, when."""
    return "\n".join(
        t(
            "{mark} vs {opponent} {scored}–{conceded} {reason} {date}",
            mark=t(WIN_LOSS_DRAW_MARK[game.win_loss_draw]),
            opponent=opponent_text(t, game),
            scored=points(game.points_for),
            conceded=points(game.points_against),
            reason=reason_text(t, game.game.reason, game.game.time_control),
            date=f"<t:{int(game.game.finished_at)}:d>",
        )
        for game in stats.recent
    )
