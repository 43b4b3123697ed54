"""``/tholos stats``: a member's statistics as the reader may see them, wherever it is used.

The member's ratings everywhere (one a pool: their rank on the server's leaderboard in a server
with the bot, on the global one elsewhere). In a server with the bot: the games of that server
(another member's last games and biggest win only where the reader may open the game), and —
the reader's own stats — their games outside servers with the bot counted apart, unrated.

Elsewhere (the bot's DM, a DM or group DM between members, a server without the bot): the games
played outside servers with the bot, unrated. The reader's own are theirs to see; of another
member only the games the two played together are shown (the reader was there), in an answer
only the reader sees — none of the member's games with others, whose DMs and group DMs the
reader may not be in and the bot cannot look into, nor their puzzles and lessons.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import get_args

import discord

from bot.base.paces import RatingPool
from bot.base.shards import DIRECT_MESSAGES
from bot.discord.answers import Interaction
from bot.discord.app import App
from bot.discord.venues import venue_of
from bot.discord.visibility import Questions, verdicts
from bot.features.lessons import LessonService, course_line
from bot.features.puzzles import PuzzlePlayer, PuzzleStore
from bot.features.ratings.stats import Played, Record, Stats, player_stats
from bot.features.ratings.store import Board, PlayerRating, RatingStore
from bot.i18n.locales import reader
from bot.words.names import mention
from bot.words.phrases import (
    LEVEL_NAMES,
    SANDSTONE,
    WIN_LOSS_DRAW_MARK,
    ai_opponent,
    reason_text,
)
from engine.vocabulary import N_, points
from rendering.translator import Translator

OUTSIDE_SERVERS = N_("Outside servers (unrated)")
"""The record of the games between members outside servers with the bot."""


class MemberStats:
    """What ``/tholos stats`` shows of a member to the reader, where it is used."""

    def __init__(
        self, app: App, store: RatingStore, puzzles: PuzzleStore, lessons: LessonService
    ) -> None:
        """``puzzles`` and ``lessons``: a member's puzzles and course, for their stats."""
        self.app = app
        self.store = store
        self.puzzles = puzzles
        self.lessons = lessons

    async def embed(
        self, interaction: Interaction, user: discord.abc.User
    ) -> tuple[discord.Embed, bool]:
        """``user``'s stats for the one who asked, and whether only they may see them."""
        t = reader(interaction)
        mine = user.id == interaction.user.id
        if venue_of(interaction) == "server":
            return await self._in_server(interaction, t, user.id, mine), False
        return await self._outside(interaction, t, user.id, mine), not mine

    async def _in_server(
        self, interaction: Interaction, t: Translator, user_id: int, mine: bool
    ) -> discord.Embed:
        """The server's rating and games; the reader's own games outside servers apart."""
        guild_id = interaction.guild_id
        assert guild_id is not None  # a server with the bot
        ratings = self.store
        history = await ratings.history(guild_id, user_id)
        stats = player_stats(user_id, history)
        if not mine:
            stats = await self._seen_by(interaction, stats)
        embed = stats_embed(t, user_id, await self._ratings(t, user_id, guild_id), stats)
        await self._add_practice(embed, t, user_id)
        if mine:
            outside = await ratings.history(DIRECT_MESSAGES, user_id)
            record = player_stats(user_id, outside).overall
            if record.games:
                embed.add_field(
                    name=t(OUTSIDE_SERVERS), value=outside_record_text(t, record), inline=False
                )
        return embed

    async def _outside(
        self, interaction: Interaction, t: Translator, user_id: int, mine: bool
    ) -> discord.Embed:
        """The games outside servers with the bot: the reader's own, or those they played with
        ``user_id``."""
        history = await self.store.history(DIRECT_MESSAGES, user_id)
        if not mine:
            reader_id = interaction.user.id
            history = [game for game in history if reader_id in (game.white_id, game.black_id)]
        stats = player_stats(user_id, history)
        rating = await self._ratings(t, user_id, None)
        embed = outside_stats_embed(t, user_id, rating, stats, with_you=not mine)
        if mine:
            await self._add_practice(embed, t, user_id)
        return embed

    async def _ratings(self, t: Translator, user_id: int, guild_id: int | None) -> str:
        """The member's rating in each pool they were rated in, with their rank on the server's
        leaderboard of it (``guild_id``) or on the global one (``None``) if they are on it."""
        now = time.time()
        lines = []
        for pool in get_args(RatingPool):
            player = await self.store.member(pool, user_id, now)
            if player is None:
                continue
            board = Board(pool, guild_id, now)
            rank = await self.store.boards.rank(board, user_id)
            text = rating_text(t, player)
            if rank is not None:
                players = await self.store.boards.players(board)
                text = t("#{rank} of {players}", rank=rank, players=players) + " · " + text
            lines.append(f"{t(POOL_NAMES[pool]).capitalize()}: {text}")
        return "\n".join(lines) or t("Not rated yet.")

    async def _add_practice(self, embed: discord.Embed, t: Translator, user_id: int) -> None:
        """The member's puzzles and course, under their rating."""
        puzzles = await self.puzzles.player(user_id)
        if puzzles.attempts:
            embed.insert_field_at(1, name=t("Puzzles"), value=puzzle_text(t, puzzles), inline=False)
        course = course_line(t, await self.lessons.progress(user_id))
        if course is not None:
            embed.insert_field_at(1, name=t("Lessons"), value=course, inline=False)

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
            self.app.visibility,
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


# -- what it says -------------------------------------------------------------------------------


POOL_NAMES = {"live": N_("live"), "correspondence": N_("correspondence")}
"""A pool as it is named (the words of ``/leaderboard``'s choices)."""


def rating_text(t: Translator, player: PlayerRating) -> str:
    """``1612 ±85`` (with ``provisional`` while the deviation is above
    :data:`~.pools.PROVISIONAL_DEVIATION`)."""
    rating = player.rating
    text = f"**{rating.rating:.0f}** ±{rating.deviation:.0f}"
    return t("{rating} (provisional)", rating=text) if player.provisional else text


def win_rate_text(t: Translator, record: Record) -> str:
    """``3 W · 1 L · 0 D · win rate 75%``."""
    return t(
        "{wins} W · {losses} L · {draws} D · win rate {rate}",
        wins=record.wins,
        losses=record.losses,
        draws=record.draws,
        rate=f"{record.win_rate:.0%}",
    )


def outside_record_text(t: Translator, record: Record) -> str:
    """``4 games · 3 W · 1 L · 0 D · win rate 75%``: the games between members outside servers
    with the bot, which are unrated."""
    games = t.plural("{count} game", "{count} games", record.games)
    return f"{games} · {win_rate_text(t, record)}"


def record_text(record: Record) -> str:
    """``3–1–0``: wins, losses, draws."""
    return f"{record.wins}–{record.losses}–{record.draws}"


def opponent_text(t: Translator, game: Played) -> str:
    """The opponent of a game in a stats line: a mention, or the AI and its level."""
    level = game.game.ai_level
    if level is None:
        return mention(game.opponent_id)
    return ai_opponent(t, level, game.game.rated)


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


def stats_embed(t: Translator, user_id: int, rating: str, stats: Stats) -> discord.Embed:
    """``/tholos stats``: the ratings (:meth:`MemberStats._ratings`), records, points, streak,
    the last games."""
    embed = discord.Embed(title=t("Tholos stats"), colour=SANDSTONE, description=mention(user_id))
    embed.add_field(name=t("Rating"), value=rating, inline=False)
    if not stats.overall.games and not stats.against_ai:
        embed.add_field(
            name=t("Games"), value=t("No finished games on this server yet."), inline=False
        )
        return embed
    _add_games(embed, t, stats, outside=False)
    return embed


def outside_stats_embed(
    t: Translator, user_id: int, rating: str, stats: Stats, *, with_you: bool
) -> discord.Embed:
    """``/tholos stats`` outside servers with the bot: the ratings (ranked on the global
    leaderboards), and the record, points, streak and last games of the games played outside
    servers, which are unrated (``with_you``: only those the reader played with them)."""
    embed = discord.Embed(title=t("Tholos stats"), colour=SANDSTONE, description=mention(user_id))
    embed.add_field(name=t("Rating"), value=rating, inline=False)
    if with_you:
        embed.set_footer(text=t("Only your games with them outside servers are shown here."))
    if not stats.overall.games and not stats.against_ai:
        embed.add_field(
            name=t("Games"), value=t("No finished games outside servers yet."), inline=False
        )
        return embed
    _add_games(embed, t, stats, outside=True)
    return embed


def _add_games(embed: discord.Embed, t: Translator, stats: Stats, *, outside: bool) -> None:
    """The games' fields: the record (rated, or ``outside`` servers), against the AI, the
    biggest win, the streak and the last games."""
    if stats.overall.games:
        _add_record(embed, t, stats, outside=outside)
    if stats.against_ai:
        embed.add_field(
            name=t("Against the AI"),
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


def _add_record(embed: discord.Embed, t: Translator, stats: Stats, *, outside: bool) -> None:
    """The record (rated, or of the unrated games ``outside`` servers): wins, losses, draws
    and win rate, by colour, and the points a game."""
    if outside:
        embed.add_field(
            name=t(OUTSIDE_SERVERS), value=outside_record_text(t, stats.overall), inline=False
        )
    else:
        embed.add_field(name=t("Record"), value=win_rate_text(t, stats.overall), inline=False)
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
