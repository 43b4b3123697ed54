"""Ratings: ``/leaderboard`` with its Previous / Next buttons, and ``/tholos stats``."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext.commands import Cog

from bot.base.refusals import Refusal
from bot.discord.answers import Interaction, answers
from bot.discord.app import App
from bot.discord.commands import Command, Tholos
from bot.discord.controls import FLOAT, PAGE, SNOWFLAKE, WAY, CustomId, Router, pager
from bot.discord.feature import Feature
from bot.features.lessons import LessonService
from bot.features.puzzles import PuzzleStore
from bot.features.ratings.member_stats import MemberStats, rating_text
from bot.features.ratings.store import PAGE_SIZE, Mark, PlayerRating, RatingStore
from bot.i18n.catalogues import NC_
from bot.i18n.locales import reader
from bot.words.names import mention
from bot.words.phrases import SANDSTONE, command
from engine.vocabulary import N_
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
    """The handlers of the servers' ratings and of a member's stats."""

    def __init__(self, app: App, puzzles: PuzzleStore, lessons: LessonService) -> None:
        """``puzzles`` and ``lessons``: a member's puzzles and course, for their stats."""
        super().__init__(app)
        self.store = RatingStore(app.database)
        self.member_stats = MemberStats(app, self.store, puzzles, lessons)

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

    @answers()
    async def stats(self, interaction: Interaction, user: discord.abc.User) -> None:
        """``/tholos stats [member]``, wherever it is used (:mod:`.member_stats`)."""
        embed, ephemeral = await self.member_stats.embed(interaction, user)
        await interaction.response.send_message(embed=embed, ephemeral=ephemeral)


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
