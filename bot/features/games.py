"""``/tholos games``: the server's games being played, the caller's first, with Previous /
Next."""

from __future__ import annotations

from engine.vocabulary import N_

from ..answers import Interaction, answers
from ..app import Feature, feature_of
from ..commands import tholos
from ..controls import GamesButton, Router, pager_view
from ..i18n import NC_, reader
from ..presenter import GAMES_PAGE, games_embed


class Games(Feature):
    """The handlers of the list of games."""

    def register(self, router: Router) -> None:
        """Route Previous / Next here."""
        router.add(GamesButton, lambda interaction, button: self.show(interaction, button.page))

    @answers(server_only=True)
    async def show(self, interaction: Interaction, page: int | None = None) -> None:
        """The list (``page`` ``None``: a new message at the first page; else the same message
        at that page)."""
        guild_id, user_id = interaction.guild_id or 0, interaction.user.id
        total = await self.app.games.playing(guild_id)
        pages = max(1, -(-total // GAMES_PAGE))
        shown = min(page or 0, pages - 1)
        games = await self.app.games.playing_page(guild_id, user_id, shown, GAMES_PAGE)
        t = reader(interaction)
        embed = games_embed(t, games, shown, pages, total, user_id)
        view = pager_view(t, GamesButton, shown, pages)
        if page is None:
            await interaction.response.send_message(embed=embed, view=view, ephemeral=True)
        else:
            await interaction.response.edit_message(embed=embed, view=view)


@tholos.command(
    name=NC_("command", "games"),
    description=N_("The games being played on this server, yours first"),
)
async def games_command(interaction: Interaction) -> None:
    """``/tholos games``."""
    await feature_of(interaction, Games).show(interaction)
