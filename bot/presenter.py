"""What the bot says: embeds, step prompts, button labels, turns in words. No I/O."""

from __future__ import annotations

from typing import Final

import discord

from engine import (
    BLACK,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    LOCATION_LETTERS,
    LOCATIONS,
    WHITE,
    Colour,
    Position,
    Turn,
)
from engine.builder import GRAY_FROM_QUARRY, OWN_BONUS, SKIP, Step, TurnBuilder
from engine.core import MOVER_COLOUR
from engine.scoring import Score, score
from engine.vocabulary import (
    ORNAMENT_EFFECTS,
    RESULT_REASONS,
    bonus_description,
    bonus_name,
    location_name,
)
from rendering.describe import turn_lines

from .domain import ServerRules, mention
from .stats import Played, Record, Stats
from .storage import Challenge, Game, PlayerRating

STONE_EMOJI: Final = ("⚪", "⚫", "🔘")
"""Stone colours as emoji (white, black, gray): told apart by lightness, not hue."""
EMBED_COLOUR: Final = discord.Colour(0xC8A464)
"""Sandstone."""



def colour_name(colour: Colour) -> str:
    """``White``, ``Black`` or ``Gray``."""
    return COLOUR_NAMES[colour].capitalize()


def describe_turn(turn: Turn, player_id: int) -> str:
    """A turn in words with the player's mention, e.g. ``<@1> placed white on γ C, …``."""
    return ", ".join(turn_lines(turn, mention(player_id)))


def ornaments_text(position: Position) -> str:
    """The ornaments of a game, one per line (or ``none``)."""
    lines = [
        f"{location_name(location)}: **{ornament}** — {ORNAMENT_EFFECTS[ornament]}"
        for location, ornament in enumerate(position.ornaments)
        if ornament
    ]
    return "\n".join(lines) or "none"


# -- the turn builder's steps --------------------------------------------------------------------


def step_prompt(builder: TurnBuilder, step: Step) -> str:
    """What the player is asked at this step."""
    kind = step.kind
    if kind == "action":
        return "Take stones from the quarry, or place a stone from your workshop?"
    if kind == "take-colour":
        return "Take which colour? (your colour up to 3, gray up to 2, your rival's 1)"
    if kind == "stone":
        return "Place which stone from your workshop?"
    colour = builder.colour
    assert colour is not None  # chosen before every later step
    if kind == "take-count":
        return f"How many {COLOUR_NAMES[colour]} stones?"
    if kind == "location":
        return f"Where does the {COLOUR_NAMES[colour]} stone go?"
    location = builder.location
    assert location is not None  # every later step is a bonus of this location
    here = location_name(location)
    if kind == "bonus-choice":
        return f"Bonus of {here}: its own bonus, or a gray stone from the quarry — or skip?"
    if kind == "remove":
        return f"Bonus of {here}: send the top stone of which column to the quarry?"
    if kind == "draw":
        return f"Bonus of {here}: draw which colour from the quarry?"
    if kind == "steal":
        rival = colour_name(1 - builder.position.turn)
        return f"Bonus of {here}: take which stone from {rival}'s workshop?"
    if kind == "extra-stone":
        return f"Bonus of {here}: place which other stone from your workshop?"
    if kind == "extra-location" and builder.extra_colour is not None:
        return f"Where does the extra {COLOUR_NAMES[builder.extra_colour]} stone go?"
    if kind == "move-source":
        mover = COLOUR_NAMES[MOVER_COLOUR[location]]
        return f"Bonus of {here}: move a {mover} top stone — from which column?"
    if kind == "move-target" and builder.source is not None:
        return f"Move the top of {location_name(builder.source)} onto which column?"
    return "Put the gray quarry stone on which column?"


def option_label(builder: TurnBuilder, kind: str, token: str) -> tuple[str, str | None]:
    """A button's label and emoji for choosing ``token`` at a step of ``kind``."""
    position = builder.position
    if token == SKIP:
        return "Skip the bonus", None
    if kind == "action":
        return ("Take stones", "⛏️") if token == "T" else ("Place a stone", "🏛️")
    if kind == "bonus-choice":
        if token == OWN_BONUS and builder.location is not None:
            return f"{location_name(builder.location)}: {bonus_name(builder.location)}", None
        assert token == GRAY_FROM_QUARRY
        return "Gray stone from quarry", STONE_EMOJI[2]
    if kind == "take-count":
        return token, None
    if token in COLOUR_LETTERS:
        colour = COLOUR_LETTERS.index(token)
        return colour_name(colour), STONE_EMOJI[colour]
    location = LOCATION_LETTERS.index(token)
    if kind == "location":
        return f"{location_name(location)} · {bonus_name(location)}", None
    column = position.columns[location]
    height = f"{len(column)}/{position.capacities[location]}"
    if kind in ("remove", "move-source") and column:
        return (
            f"{location_name(location)} · top {COLOUR_NAMES[COLOUR_LETTERS.index(column[-1])]}",
            None,
        )
    return f"{location_name(location)} · {height}", None


# -- embeds ---------------------------------------------------------------------------------------

def result_text(game: Game) -> str:
    """The result in a sentence, e.g. ``<@1> wins 25–19 on points``."""
    if game.ended_by is not None:
        return f"Ended by {mention(game.ended_by)} (an admin): no result, not rated."
    outcome = game.outcome
    assert outcome is not None
    points = f"{outcome.white_points}–{outcome.black_points}"
    if outcome.result == "draw":
        return f"Draw, {points} with as many columns each."
    winner = game.white_id if outcome.result == "white" else game.black_id
    return f"{mention(winner)} wins {points} {RESULT_REASONS[outcome.reason]}."


def scoring_lines(result: Score) -> str:
    """Each column's winner, points and ornament effect, one line each."""
    lines = []
    for column in result.columns:
        who = "nobody" if column.winner is None else colour_name(column.winner)
        points = "" if column.winner is None else f" {column.points:+d}"
        effect = f" — {column.effect}" if column.effect else ""
        lines.append(f"{location_name(column.location)}: {who}{points}{effect}")
    return "\n".join(lines)


def game_embed(game: Game, last: str | None, image_name: str | None) -> discord.Embed:
    """The board's embed: players, mode, ply, whose turn, the last turn, (final) scoring."""
    position = game.position
    projected = score(position)
    white, black = projected.totals
    embed = discord.Embed(title="Tholos", colour=EMBED_COLOUR)
    embed.description = (
        f"{STONE_EMOJI[WHITE]} White: {mention(game.white_id)}\n"
        f"{STONE_EMOJI[BLACK]} Black: {mention(game.black_id)}"
    )
    mode = "Basic" if game.mode == "basic" else f"Advanced\n{ornaments_text(position)}"
    embed.add_field(name="Mode", value=mode, inline=False)
    if last:
        embed.add_field(name="Last turn", value=last, inline=False)
    if game.is_active:
        embed.add_field(
            name="To move",
            value=f"{STONE_EMOJI[position.turn]} {mention(game.to_move)}",
            inline=True,
        )
        embed.add_field(name="If it ended now", value=f"White {white} · Black {black}", inline=True)
    else:
        embed.add_field(name="Result", value=result_text(game), inline=False)
        if game.outcome is not None:
            embed.add_field(name="Scoring", value=scoring_lines(projected), inline=False)
    if image_name:
        embed.set_image(url=f"attachment://{image_name}")
    embed.set_footer(text=f"Ply {game.plies} · {position}")
    return embed


def challenge_text(challenge: Challenge) -> str:
    """The public challenge message."""
    if challenge.mode == "basic":
        mode = "a basic game"
    else:
        mode = f"an advanced game with {challenge.ornaments} ornament" + "s" * (
            challenge.ornaments != 1
        )
    colours = {"white": "White", "black": "Black", "random": "a random colour"}[challenge.colour]
    first = {"me": "the challenger", "opponent": "the opponent", "random": "a random player"}[
        challenge.first
    ]
    text = (
        f"{mention(challenge.opponent_id)}, {mention(challenge.challenger_id)} challenges you to "
        f"{mode} of Tholos!\nThe challenger plays {colours}; {first} moves first."
    )
    status = challenge.status
    if status == "pending":
        return f"{text}\nThis challenge expires <t:{int(challenge.expires_at)}:R>."
    ending = {
        "accepted": "✅ Accepted — the game is on.",
        "declined": "❌ Declined.",
        "withdrawn": "↩️ Withdrawn by the challenger.",
        "expired": "⌛ Expired without an answer.",
    }[status]
    return f"{text}\n{ending}"


THREAD_SUFFIX = " · Tholos"
THREAD_NAME_LIMIT = 100
"""Discord's limit on a thread's name."""
NO_THREADS = (
    "I'll play games started here in the channel itself. To give each game a thread of its "
    "own, a server admin can grant me **Create Public Threads** and **Send Messages in "
    "Threads** in this channel."
)


THREAD_FAILED = (
    "I couldn't open a thread for this game (the server may have reached Discord's limit of "
    "active threads), so it is played right here."
)


def thread_name(first: str, second: str) -> str:
    """A game's thread name, e.g. ``Ariadne vs Theseus · Tholos``, within Discord's 100
    characters whatever the names (each cut with an ellipsis when needed).

    >>> thread_name("Ariadne", "Theseus")
    'Ariadne vs Theseus · Tholos'
    >>> name = thread_name("A" * 90, "B" * 90)
    >>> len(name) <= 100, name.count("…")
    (True, 2)
    """
    names = [" ".join(name.split()) or "?" for name in (first, second)]
    room = (THREAD_NAME_LIMIT - len(" vs ") - len(THREAD_SUFFIX)) // 2
    cut = [name if len(name) <= room else name[: room - 1] + "…" for name in names]
    return f"{cut[0]} vs {cut[1]}{THREAD_SUFFIX}"


def game_label(game: Game) -> str:
    """A game in a list of choices (≤ 100 characters), e.g. ``#7 Ariadne vs Theseus · ply 12``."""
    return f"#{game.id} {game.white_name} vs {game.black_name} · ply {game.plies}"[:100]


def game_line(game: Game) -> str:
    """The line a game played in a thread keeps in its channel: who, where, and the result
    once it is over."""
    players = f"{mention(game.white_id)} vs {mention(game.black_id)}"
    where = f"<#{game.channel_id}>"
    if game.is_active:
        return f"⚔️ {players} — the game is on in {where}."
    return f"🏁 {players} — {result_text(game)} ({where})"


RULES_TURN = (
    "On your turn, do one thing:\n"
    "• **Take** stones of one colour from the quarry into your workshop (3 slots): up to 3 of "
    "your colour, 2 gray, or 1 of your rival's.\n"
    "• **Place** a stone from your workshop on a column that isn't full. A stone of *your* "
    "colour lets you use that location's bonus once (you may skip it). Stones moved or added "
    "by a bonus never trigger another bonus."
)
RULES_BONUSES = "\n".join(
    f"{location_name(location)} — {bonus_description(location)}" for location in LOCATIONS
)
RULES_SCORING = (
    "The game ends the moment every column is full (5 stones; no bonus after the stone that "
    "fills the last place). Each column goes to whoever has more stones of their colour in it "
    "(gray doesn't count; a tie goes to nobody). Its winner scores +1 per own stone, +3 per "
    "rival stone and −2 per gray stone. Most points wins; if tied, most columns won; else a draw."
)


def rules_embed(position: Position | None) -> discord.Embed:
    """``/tholos rules``: a turn, each location's bonus, this game's ornaments, scoring."""
    embed = discord.Embed(title="How to play Tholos", colour=EMBED_COLOUR, description=RULES_TURN)
    embed.add_field(name="Bonuses", value=RULES_BONUSES, inline=False)
    embed.add_field(name="End and scoring", value=RULES_SCORING, inline=False)
    if position is not None and position.mode == "advanced":
        embed.add_field(name="Ornaments in this game", value=ornaments_text(position), inline=False)
    else:
        embed.add_field(
            name="Advanced mode",
            value="Adds 1–5 ornaments that change their column's rules: "
            + ", ".join(
                f"**{ornament}** ({effect})"
                for ornament, effect in ORNAMENT_EFFECTS.items()
            ),
            inline=False,
        )
    embed.set_footer(
        text="Board game by Perro Loko Games (2021). Start with /tholos challenge: name a member, "
        "or name me to play my AI (easy, medium or hard)."
    )
    return embed


# -- ratings --------------------------------------------------------------------------------------

OUTCOME_MARK: Final = {"win": "✅ W", "loss": "❌ L", "draw": "➖ D"}
OUTCOME_PLURAL: Final = {"win": "wins", "loss": "losses", "draw": "draws"}


def rating_text(player: PlayerRating) -> str:
    """``1612 ±85`` (with ``provisional`` for a player with few rated games)."""
    rating = player.rating
    text = f"**{rating.rating:.0f}** ±{rating.deviation:.0f}"
    return f"{text} (provisional)" if player.provisional else text


def settings_embed(rules: ServerRules, *, changed: bool) -> discord.Embed:
    """A server's settings in force (``changed``: just saved)."""
    embed = discord.Embed(
        title="Tholos settings saved" if changed else "Tholos settings", colour=EMBED_COLOUR
    )
    embed.add_field(name="Threads", value="on" if rules.threads else "off", inline=True)
    embed.add_field(
        name="Idle claim", value=f"{rules.inactivity_timeout / 60:g} minutes", inline=True
    )
    embed.add_field(
        name="Challenges expire", value=f"{rules.challenge_timeout / 60:g} minutes", inline=True
    )
    embed.add_field(name="Default mode", value=rules.default_mode, inline=True)
    embed.set_footer(text="Change them with /tholos-admin settings (Manage Server).")
    return embed


GAMES_PAGE = 10


def games_embed(
    games: list[Game], page: int, pages: int, total: int, caller_id: int
) -> discord.Embed:
    """One page of the server's games being played, the caller's first."""
    embed = discord.Embed(title="Tholos games being played", colour=EMBED_COLOUR)
    lines = []
    for game in games:
        mine = "★ " if caller_id in (game.white_id, game.black_id) else ""
        mode = "basic" if game.mode == "basic" else "advanced"
        link = (
            f"https://discord.com/channels/{game.guild_id}/{game.channel_id}/{game.board_message_id}"
            if game.board_message_id
            else f"<#{game.channel_id}>"
        )
        lines.append(
            f"{mine}{mention(game.white_id)} vs {mention(game.black_id)} · {mode} · "
            f"ply {game.plies} · to move: {mention(game.to_move)} · [board]({link})"
        )
    embed.description = "\n".join(lines) or "No game is being played on this server."
    embed.set_footer(text=f"Page {page + 1} of {pages} · {total} games · ★ yours")
    return embed


def leaderboard_embed(
    rows: list[tuple[int, PlayerRating]],
    page: int,
    pages: int,
    caller_id: int,
    caller: tuple[int, PlayerRating] | None,
) -> discord.Embed:
    """One page of the server's leaderboard, and where the caller stands."""
    embed = discord.Embed(title="Tholos leaderboard", colour=EMBED_COLOUR)
    embed.description = (
        "\n".join(
            f"`#{rank}` {mention(player.user_id)} {rating_text(player)} · {player.games} games "
            f"· {player.wins}–{player.losses}–{player.draws}"
            for rank, player in rows
        )
        or "Nobody on this page."
    )
    if caller is None:
        you = f"{mention(caller_id)}: not rated yet — finish a game to join the board."
    else:
        rank, player = caller
        you = f"{mention(caller_id)}: #{rank} · {rating_text(player)}"
    embed.add_field(name="You", value=you, inline=False)
    embed.set_footer(
        text=f"Page {page + 1} of {pages} · Glicko-2 ratings; ± is one rating deviation; "
        "W–L–D counts rated games"
    )
    return embed


def record_text(record: Record) -> str:
    """``3–1–0``: wins, losses, draws."""
    return f"{record.wins}–{record.losses}–{record.draws}"


def opponent_text(game: Played) -> str:
    """The opponent of a game in a stats line: a mention, or the AI and its level."""
    level = game.game.ai_level
    return mention(game.opponent_id) if level is None else f"the AI ({level}, unrated)"


def stats_embed(
    user_id: int, rated: tuple[int, PlayerRating] | None, players: int, stats: Stats
) -> discord.Embed:
    """``/tholos stats``: rating and rank, records, points, streak, the last games."""
    embed = discord.Embed(title="Tholos stats", colour=EMBED_COLOUR, description=mention(user_id))
    if rated is None:
        embed.add_field(name="Rating", value="Not rated yet.", inline=False)
    else:
        rank, player = rated
        embed.add_field(
            name="Rating", value=f"#{rank} of {players} · {rating_text(player)}", inline=False
        )
    if not stats.recent:
        embed.add_field(name="Games", value="No finished games on this server yet.", inline=False)
        return embed
    overall = stats.overall
    if overall.games:
        embed.add_field(
            name="Record",
            value=f"{overall.wins} W · {overall.losses} L · {overall.draws} D · "
            f"win rate {overall.win_rate:.0%}",
            inline=False,
        )
        for name, record in (("As White", stats.as_white), ("As Black", stats.as_black)):
            embed.add_field(name=name, value=record_text(record), inline=True)
        embed.add_field(
            name="Points per game",
            value=f"{stats.mean_points_for:.1f} for · {stats.mean_points_against:.1f} against",
            inline=False,
        )
    if stats.against_ai:
        embed.add_field(
            name="Against the AI (unrated)",
            value=" · ".join(
                f"{level} {record_text(record)}" for level, record in stats.against_ai.items()
            ),
            inline=False,
        )
    if stats.biggest_win is not None:
        best = stats.biggest_win
        embed.add_field(
            name="Biggest win",
            value=f"{best.points_for}–{best.points_against} vs {mention(best.opponent_id)} "
            f"<t:{int(best.game.finished_at)}:d>",
            inline=False,
        )
    if stats.streak is not None:
        outcome, length = stats.streak
        embed.add_field(
            name="Current streak", value=f"{length} {OUTCOME_PLURAL[outcome]}", inline=False
        )
    embed.add_field(
        name="Last games",
        value="\n".join(
            f"{OUTCOME_MARK[game.outcome]} vs {opponent_text(game)} "
            f"{game.points_for}–{game.points_against} {RESULT_REASONS[game.game.reason]} "
            f"<t:{int(game.game.finished_at)}:d>"
            for game in stats.recent
        ),
        inline=False,
    )
    return embed
