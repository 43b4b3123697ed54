"""Ratings: ``/leaderboard`` with its Previous / Next buttons, and ``/tholos stats``."""

from __future__ import annotations

import discord
from discord import app_commands

from engine.vocabulary import N_

from ..answers import Interaction, answers
from ..app import Feature, feature_of
from ..commands import tholos
from ..controls import LeaderboardButton, LeaderboardSeekButton, Router, leaderboard_view
from ..domain import Refusal
from ..i18n import NC_, reader
from ..presenter import leaderboard_embed, stats_embed
from ..stats import player_stats
from ..storage.ratings import PAGE_SIZE, Mark, PlayerRating


class Ratings(Feature):
    """The handlers of the server's ratings."""

    def register(self, router: Router) -> None:
        """Route Previous / Next here (and those posted before keyset paging, by page)."""
        router.add(
            LeaderboardButton,
            lambda interaction, button: self.leaderboard(interaction, button.page, edit=True),
        )
        router.add(
            LeaderboardSeekButton,
            lambda interaction, button: self.leaderboard(
                interaction, button.page, edit=True,
                seek=(button.way, Mark(button.rating, button.user)),
            ),
        )  # fmt: skip

    @answers()
    async def leaderboard(
        self, interaction: Interaction, page: int, *, edit: bool,
        seek: tuple[str, Mark] | None = None,
    ) -> None:
        """``/leaderboard`` (a new message) or its Previous / Next buttons (the same message).

        A button with a ``seek`` (Previous or Next, and the row of the page shown to go from)
        shows the rows next to that row, found in the rank index at the same cost on every
        page; their ranks are counted from the page number. Without one, or when the seek
        comes back short (the ratings changed since), the page is read by its number.
        """  # fmt: skip
        guild_id = interaction.guild_id
        if guild_id is None:
            raise Refusal("Leaderboards belong to servers — run `/leaderboard` in a server.")
        ratings = self.app.ratings
        players = await ratings.players(guild_id)
        if not players:
            raise Refusal(
                "No rated games have finished on this server yet — `/tholos challenge` someone!"
            )
        pages = -(-players // PAGE_SIZE)
        page = min(page, pages - 1)
        rows = await self._seek(guild_id, page, seek) if seek is not None else []
        if not rows:
            rows = await ratings.page(guild_id, page, players)
        me = await ratings.player(guild_id, interaction.user.id)
        t = reader(interaction)
        embed = leaderboard_embed(t, rows, page, pages, interaction.user.id, me)
        view = leaderboard_view(t, page, pages, Mark.of(rows[0][1]), Mark.of(rows[-1][1]))
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
        found = await self.app.ratings.seek(guild_id, mark, way)
        if way == "p" and len(found) < PAGE_SIZE:
            return []
        return [(page * PAGE_SIZE + number + 1, player) for number, player in enumerate(found)]

    @answers(server_only=True)
    async def stats(self, interaction: Interaction, user: discord.abc.User) -> None:
        """``/tholos stats [member]``."""
        guild_id = interaction.guild_id or 0
        ratings = self.app.ratings
        history = await ratings.history(guild_id, user.id)
        rated = await ratings.player(guild_id, user.id)
        players = await ratings.players(guild_id)
        stats = player_stats(user.id, history)
        embed = stats_embed(reader(interaction), user.id, rated, players, stats)
        await interaction.response.send_message(embed=embed)


@tholos.command(
    name=NC_("command", "stats"),
    description=N_("A player's Tholos rating, record and recent games"),
)
@app_commands.describe(member=N_("Whose stats (default: yours)"))
async def stats_command(interaction: Interaction, member: discord.User | None = None) -> None:
    """``/tholos stats [member]``."""
    await feature_of(interaction, Ratings).stats(interaction, member or interaction.user)


@app_commands.command(
    name=NC_("command", "leaderboard"),
    description=N_("This server's Tholos players ranked by rating"),
)
@app_commands.guild_only()
@app_commands.guild_install()
@app_commands.describe(page=N_("Which page (10 players a page)"))
async def leaderboard_command(
    interaction: Interaction, page: app_commands.Range[int, 1, 100000] = 1
) -> None:
    """``/leaderboard [page]``."""
    await feature_of(interaction, Ratings).leaderboard(interaction, page - 1, edit=False)
