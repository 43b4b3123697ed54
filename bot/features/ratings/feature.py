"""Ratings: ``/leaderboard [pace] [scope]`` with its Previous / Next buttons, ``/tholos stats``,
and the replay migration 19 asks for at start."""

from __future__ import annotations

import time
from typing import Literal

import discord
from discord import app_commands
from discord.ext.commands import Cog

from bot.base.paces import CORRESPONDENCE, RatingPool
from bot.base.refusals import Refusal
from bot.discord.answers import Interaction, answers
from bot.discord.app import App
from bot.discord.commands import Command, Tholos
from bot.discord.controls import FLOAT, PAGE, SNOWFLAKE, WAY, CustomId, Router, pager
from bot.discord.feature import Feature
from bot.discord.venues import venue_of
from bot.features.lessons import LessonService
from bot.features.puzzles import PuzzleStore
from bot.features.ratings.member_stats import POOL_NAMES, MemberStats, rating_text
from bot.features.ratings.pools import RANKED_DEVIATION, RANKED_GAMES
from bot.features.ratings.rebuild import replay_if_asked
from bot.features.ratings.store import PAGE_SIZE, Board, Mark, PlayerRating, RatingStore
from bot.i18n.catalogues import NC_
from bot.i18n.locales import reader
from bot.words.names import escaped_name, mention
from bot.words.phrases import SANDSTONE, command
from engine.vocabulary import N_
from rendering.translator import Translator

LEADERBOARD = CustomId("lb", (("page", PAGE, int), ("way", WAY, str)))
"""A page of a server's leaderboard, posted before keyset paging (the correspondence pool's)."""
LEADERBOARD_SEEK = CustomId(
    "lbs",
    (("page", PAGE, int), ("way", WAY, str), ("rating", FLOAT, float), ("user", SNOWFLAKE, int)),
)
"""Previous / Next on a server's leaderboard posted before the pools (the correspondence one's)."""
LEADERBOARD_POOL = CustomId(
    "lbp",
    (
        ("pool", "live|correspondence", str),
        ("scope", "server|global", str),
        ("page", PAGE, int),
        ("way", WAY, str),
        ("rating", FLOAT, float),
        ("user", SNOWFLAKE, int),
    ),
)
"""Previous / Next on a leaderboard: its pool and scope, the page to show, and the first
(Previous) or last (Next) row of the page shown — its exact rating and user id — to seek from."""
Scope = Literal["server", "global"]
"""A leaderboard's members: the server's, or everyone who joined the pool."""


class Ratings(Feature):
    """The handlers of the leaderboards and of a member's stats."""

    def __init__(self, app: App, puzzles: PuzzleStore, lessons: LessonService) -> None:
        """``puzzles`` and ``lessons``: a member's puzzles and course, for their stats."""
        super().__init__(app)
        self.store = RatingStore(app.database)
        self.member_stats = MemberStats(app, self.store, puzzles, lessons)

    def commands(self) -> list[Command]:
        return RatingCommands(self).get_app_commands()

    async def start(self) -> None:
        """Replay the stored games into the pools if migration 19 asked for it."""
        await replay_if_asked(self.app.database)

    def register(self, router: Router) -> None:
        """Route Previous / Next here (and those posted before the pools and keyset paging)."""
        router.add(
            LEADERBOARD_POOL,
            lambda interaction, pool, scope, page, way, rating, user: self.leaderboard(
                interaction, pool, scope, page, edit=True, seek=(way, Mark(rating, user))
            ),
        )
        router.add(
            LEADERBOARD,
            lambda interaction, page, way: self.leaderboard(
                interaction, CORRESPONDENCE, "server", page, edit=True
            ),
        )
        router.add(
            LEADERBOARD_SEEK,
            lambda interaction, page, way, rating, user: self.leaderboard(
                interaction,
                CORRESPONDENCE,
                "server",
                page,
                edit=True,
                seek=(way, Mark(rating, user)),
            ),
        )

    @answers()
    async def leaderboard(
        self,
        interaction: Interaction,
        pool: RatingPool,
        scope: Scope,
        page: int,
        *,
        edit: bool,
        seek: tuple[str, Mark] | None = None,
    ) -> None:
        """``/leaderboard`` (a new message) or its Previous / Next buttons (the same message).

        A button with a ``seek`` (Previous or Next, and the row of the page shown to go from)
        shows the rows next to that row, found in the rank index; their ranks are counted from
        the page number. Without one, or when the seek comes back short (the ratings changed
        since), the page is read by its number.
        """
        in_server = venue_of(interaction) == "server"  # elsewhere, the global board
        guild_id = interaction.guild_id if in_server and scope == "server" else None
        board = Board(pool, guild_id, time.time())
        boards = self.store.boards
        players = await boards.players(board)
        if not players:
            raise Refusal(
                "Nobody is on this leaderboard yet: a member joins it once their rating has "
                "settled (± {deviation} or less, some {games} rated games) — {challenge} "
                "someone!",
                deviation=f"{RANKED_DEVIATION:.0f}",
                games=RANKED_GAMES,
                challenge=command("tholos challenge"),
            )
        pages = -(-players // PAGE_SIZE)
        page = min(page, pages - 1)
        rows = await self._seek(board, page, seek) if seek is not None else []
        if not rows:
            rows = await boards.page(board, page, players)
        me = await self.store.member(pool, interaction.user.id, board.now)
        rank = await boards.rank(board, interaction.user.id)
        t = reader(interaction)
        embed = leaderboard_embed(t, board, rows, (page, pages), interaction.user.id, (rank, me))
        first, last = Mark.of(rows[0][1]), Mark.of(rows[-1][1])
        marks = {"p": first, "n": last}  # Previous seeks back from the first row, Next on
        view = pager(
            t,
            LEADERBOARD_POOL,
            page,
            pages,  # from the last
            pool=pool,
            scope=scope,
            rating=lambda way: marks[way].rating,
            user=lambda way: marks[way].user_id,
        )
        if edit:
            await interaction.response.edit_message(embed=embed, view=view)
        else:
            await interaction.response.send_message(embed=embed, view=view)

    async def _seek(
        self, board: Board, page: int, seek: tuple[str, Mark]
    ) -> list[tuple[int, PlayerRating]]:
        """Page ``page`` as the rows next to the seek's mark, ranked from the page number; empty
        when that is not a whole page's worth (Previous short of a page, Next past the end)."""
        way, mark = seek
        found = await self.store.boards.seek(board, mark, way)
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
        description=N_("Tholos players ranked by rating: this server's, or everyone's in the pool"),
    )
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.describe(
        pace=N_("Which rating: live games (any clock) or correspondence (the default)"),
        scope=N_("This server's members (the default), or everyone who joined the pool"),
        page=N_("Which page (10 players a page)"),
    )
    async def leaderboard(
        self,
        interaction: Interaction,
        pace: RatingPool = CORRESPONDENCE,
        scope: Scope = "server",
        page: app_commands.Range[int, 1, 100000] = 1,
    ) -> None:
        """``/leaderboard [pace] [scope] [page]``."""
        await self.ratings.leaderboard(interaction, pace, scope, page - 1, edit=False)


# -- what it says -------------------------------------------------------------------------------


def leaderboard_embed(
    t: Translator,
    board: Board,
    rows: list[tuple[int, PlayerRating]],
    pages: tuple[int, int],
    caller_id: int,
    caller: tuple[int | None, PlayerRating | None],
) -> discord.Embed:
    """One page (of ``pages``: the page, how many) of a leaderboard, and where the caller
    stands (their rank on it, and their rating in its pool)."""
    title = t("Tholos leaderboard") + " · " + t(POOL_NAMES[board.pool])
    if board.guild_id is None:
        title += " · " + t("global")
    embed = discord.Embed(title=title, colour=SANDSTONE)
    embed.description = "\n".join(
        f"`#{rank}` {shown_name(player)} {rating_text(t, player)} · "
        + t.plural("{count} game", "{count} games", player.games)
        + f" · {player.wins}–{player.losses}–{player.draws}"
        for rank, player in rows
    ) or t("Nobody on this page.")
    embed.add_field(name=t("You"), value=caller_text(t, board, caller_id, caller), inline=False)
    page, count = pages
    embed.set_footer(
        text=t("Page {page} of {pages}", page=page + 1, pages=count)
        + " · "
        + t("Glicko-2 ratings; ± is one rating deviation; W–L–D counts rated games")
    )
    return embed


def shown_name(player: PlayerRating) -> str:
    """A member on a leaderboard: their global display name on the global one (they may be
    in no server of the reader's), a mention on a server's."""
    return mention(player.user_id) if player.name is None else escaped_name(player.name)


def caller_text(
    t: Translator, board: Board, caller_id: int, caller: tuple[int | None, PlayerRating | None]
) -> str:
    """Where the caller stands: their rank, or why they are not on the board."""
    rank, player = caller
    member = mention(caller_id)
    if player is None:
        return t("{member}: not rated yet — finish a game to join the board.", member=member)
    rating = rating_text(t, player)
    if rank is not None:
        return f"{member}: #{rank} · {rating}"
    if not player.ranked:
        return t(
            "{member}: {rating} — on the board once ± is {deviation} or less.",
            member=member,
            rating=rating,
            deviation=f"{RANKED_DEVIATION:.0f}",
        )
    if board.guild_id is None:
        return t(
            "{member}: {rating} — the global board lists the members who joined the pool ({play}).",
            member=member,
            rating=rating,
            play=command("tholos play"),
        )
    return t(
        "{member}: {rating} — play a rated game on this server to join its board.",
        member=member,
        rating=rating,
    )
