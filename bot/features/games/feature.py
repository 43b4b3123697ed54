"""``/tholos games``: the server's open challenges, then its games being played (the caller's
first), with Previous / Next — only those the caller may see (:mod:`bot.discord.visibility`).
Outside the servers with the bot (a DM, a group DM, a server without the bot) those of the
channel it is used in."""

from __future__ import annotations

import asyncio
import time

import discord
from discord.ext.commands import Cog

from bot.base.game import Game
from bot.base.shards import DIRECT_MESSAGES
from bot.discord.answers import Interaction, answers
from bot.discord.app import App
from bot.discord.commands import Command, Tholos
from bot.discord.controls import PAGE, WAY, CustomId, Router, pager
from bot.discord.feature import Feature
from bot.discord.venues import venue_of
from bot.discord.visibility import Questions, visible
from bot.features.challenges import Challenge, ChallengeStore
from bot.features.pool import BlockStore
from bot.i18n.catalogues import NC_
from bot.i18n.locales import reader
from bot.words.names import mention
from bot.words.phrases import MODE_NAMES, SANDSTONE, channel_url
from engine.vocabulary import N_
from rendering.translator import Translator

GAMES = CustomId("games", (("page", PAGE, int), ("way", WAY, str)))
"""Show that page of the server's games being played (Previous / Next)."""


class Games(Feature):
    """The handlers of the list of games."""

    def __init__(self, app: App, challenges: ChallengeStore) -> None:
        super().__init__(app)
        self.visibility = app.visibility
        """Who may see a game or a challenge listed."""
        self.challenges = challenges
        """The open challenges listed (read only)."""
        self.blocks = BlockStore(app.database)
        """Whose challenges a member never sees: those they blocked."""

    def commands(self) -> list[Command]:
        return GamesCommands(self).get_app_commands()

    def register(self, router: Router) -> None:
        """Route Previous / Next here."""
        router.add(GAMES, lambda interaction, page, way: self.show(interaction, page))

    @answers()
    async def show(self, interaction: Interaction, page: int | None = None) -> None:
        """The list (``page`` ``None``: a new message at the first page; else the same message
        at that page). The first :data:`GAMES_READ_MOST` games and :data:`OPEN_READ_MOST` open
        challenges are read, those the caller may not see left out, and the rest paged and
        counted by number."""
        caller, here = interaction.user, interaction.channel_id or 0
        read, open_ones = await self._read(interaction)
        questions = Questions()
        playing, waiting = await asyncio.gather(
            visible(self.visibility, read, caller.id, caller, seen_in=here, questions=questions),
            visible(
                self.visibility, open_ones, caller.id, caller, seen_in=here, questions=questions
            ),
        )
        total = len(playing)
        pages = max(1, -(-total // GAMES_PAGE))
        shown = min(page or 0, pages - 1)
        games = playing[shown * GAMES_PAGE : (shown + 1) * GAMES_PAGE]
        t = reader(interaction)
        server = interaction.guild_id or 0
        embed = games_embed(t, games, shown, pages, total, caller.id, server)
        if venue_of(interaction) != "server" and not games:
            embed.description = t("No game is being played here.")
        if waiting:
            challenges = waiting[:OPEN_SHOWN]
            embed.description = (
                open_challenges_text(t, challenges, len(waiting), server)
                + "\n\n"
                + (embed.description or "")
            )
        view = pager(t, GAMES, shown, pages)
        if page is None:
            await interaction.response.send_message(embed=embed, view=view, ephemeral=True)
        else:
            await interaction.response.edit_message(embed=embed, view=view)

    async def _read(self, interaction: Interaction) -> tuple[list[Game], list[Challenge]]:
        """The games being played and the open challenges to list: the server's, or — outside
        the servers with the bot — the channel's; never the challenges of members the caller
        blocked."""
        caller, here, now = interaction.user.id, interaction.channel_id or 0, time.time()
        listings = self.app.stores.listings
        if venue_of(interaction) != "server":
            read, (_, open_ones), blocked = await asyncio.gather(
                listings.playing_in(here, caller, GAMES_READ_MOST),
                self.challenges.open_challenges(DIRECT_MESSAGES, now, OPEN_READ_MOST, here),
                self.blocks.blocked_by(caller),
            )
        else:
            guild_id = interaction.guild_id or 0
            read, (_, open_ones), blocked = await asyncio.gather(
                listings.playing_page(guild_id, caller, 0, GAMES_READ_MOST),
                self.challenges.open_challenges(guild_id, now, OPEN_READ_MOST),
                self.blocks.blocked_by(caller),
            )
        return read, [c for c in open_ones if c.challenger_id not in blocked]


class GamesCommands(Cog):
    """``/tholos games``."""

    tholos = Tholos()

    def __init__(self, games: Games) -> None:
        self.games = games

    @tholos.command(
        name=NC_("command", "games"),
        description=N_("The games being played here, yours first"),
    )
    async def show_games(self, interaction: Interaction) -> None:
        """``/tholos games``."""
        await self.games.show(interaction)


# -- what it says -------------------------------------------------------------------------------


GAMES_PAGE = 10
OPEN_SHOWN = 5
"""Open challenges listed above the games (those that expire first)."""
GAMES_READ_MOST = 200
"""The most games being played read for the list (the caller's first, then by the newest
move): a server playing more lists these."""
OPEN_READ_MOST = 50
"""The most open challenges read for the list (those that expire first)."""


def open_challenges_text(
    t: Translator, challenges: list[Challenge], waiting: int, guild_id: int
) -> str:
    """The open challenges, with links to their messages (``waiting``: how many in all;
    ``guild_id``: the server the list is read in, 0 in a DM)."""
    lines = ["**" + t("Open challenges — anyone may accept") + "**"]
    for challenge in challenges:
        mode = t(MODE_NAMES[challenge.mode])
        if challenge.rating_range is not None:
            mode += " · " + t("±{range} rating", range=challenge.rating_range)
        link = channel_url(guild_id, challenge.channel_id, challenge.message_id)
        lines.append(
            t(
                "{challenger} · {mode} · expires {when} · [challenge]({link})",
                challenger=mention(challenge.challenger_id),
                mode=mode,
                when=f"<t:{int(challenge.expires_at)}:R>",
                link=link,
            )
        )
    if waiting > len(challenges):
        lines.append(
            t.plural("… and {count} more", "… and {count} more", waiting - len(challenges))
        )
    lines.append("**" + t("Games being played") + "**")
    return "\n".join(lines)


def games_embed(
    t: Translator,
    games: list[Game],
    page: int,
    pages: int,
    total: int,
    caller_id: int,
    guild_id: int,
) -> discord.Embed:
    """One page of the server's games being played, the caller's first (``guild_id``: the
    server the list is read in, 0 in a DM: its links lead there)."""
    embed = discord.Embed(title=t("Tholos games being played"), colour=SANDSTONE)
    lines = []
    for game in games:
        mine = "★ " if caller_id in (game.white_id, game.black_id) else ""
        link = channel_url(guild_id, game.channel_id, game.board_message_id)
        lines.append(
            mine
            + t(
                "{white} vs {black} · {mode} · ply {ply} · to move: {mover} · [board]({link})",
                white=mention(game.white_id),
                black=mention(game.black_id),
                mode=t(MODE_NAMES[game.mode]),
                ply=game.plies,
                mover=mention(game.to_move),
                link=link,
            )
        )
    embed.description = "\n".join(lines) or t("No game is being played on this server.")
    embed.set_footer(
        text=t.plural(
            "Page {page} of {pages} · {count} game · ★ yours",
            "Page {page} of {pages} · {count} games · ★ yours",
            total,
            page=page + 1,
            pages=pages,
        )
    )
    return embed
