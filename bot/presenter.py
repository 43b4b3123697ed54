"""What the bot says: board texts, embeds, step prompts, button labels, turns in words. No I/O.

Every function takes the :class:`~rendering.words.Words` of the language to speak: the
reader's for answers and prompts, the game's for what everyone in the channel sees."""

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
from engine.review import GameReview
from engine.scoring import Score, score
from engine.vocabulary import (
    N_,
    ORNAMENT_EFFECTS,
    ORNAMENT_NAMES,
    RESULT_REASONS,
    bonus_description,
    bonus_name,
    location_name,
    points,
    score_pair,
    signed,
)
from rendering.describe import ornament_change, turn_lines
from rendering.words import Words

from .domain import ServerRules, mention
from .services.play import board_url
from .stats import Played, Record, Stats
from .storage import Challenge, Game, PlayerRating

STONE_EMOJI: Final = ("⚪", "⚫", "🔘")
"""Stone colours as emoji (white, black, gray): told apart by lightness, not hue."""
EMBED_COLOUR: Final = discord.Colour(0xC8A464)
"""Sandstone."""



MODE_NAMES: Final = {"basic": N_("basic"), "advanced": N_("advanced")}
LEVEL_NAMES: Final = {"easy": N_("easy"), "medium": N_("medium"), "hard": N_("hard")}


def colour_name(t: Words, colour: Colour) -> str:
    """``White``, ``Black`` or ``Gray``."""
    return t(COLOUR_NAMES[colour]).capitalize()


def describe_turn(t: Words, turn: Turn, player_id: int) -> str:
    """A turn in words with the player's mention, e.g. ``<@1> placed white on γ C, …``."""
    return ", ".join(turn_lines(turn, mention(player_id), t))


def ornaments_text(t: Words, position: Position) -> str:
    """The ornaments of a game, one per line (or ``none``)."""
    lines = [
        f"{location_name(location)}: **{t(ORNAMENT_NAMES[ornament])}** — "
        f"{t(ORNAMENT_EFFECTS[ornament])}"
        for location, ornament in enumerate(position.ornaments)
        if ornament
    ]
    return "\n".join(lines) or t("none")


# -- the turn builder's steps --------------------------------------------------------------------


def step_prompt(t: Words, builder: TurnBuilder, step: Step) -> str:
    """What the player is asked at this step."""
    kind = step.kind
    if kind == "action":
        return t("Take stones from the quarry, or place a stone from your workshop?")
    if kind == "take-colour":
        return t("Take which colour? (your colour up to 3, gray up to 2, your rival's 1)")
    if kind == "stone":
        return t("Place which stone from your workshop?")
    colour = builder.colour
    assert colour is not None  # chosen before every later step
    if kind == "take-count":
        return t("How many stones of {colour}?", colour=t(COLOUR_NAMES[colour]))
    if kind == "location":
        return t("Where does the stone of {colour} go?", colour=t(COLOUR_NAMES[colour]))
    location = builder.location
    assert location is not None  # every later step is a bonus of this location
    here = location_name(location)
    if kind == "bonus-choice":
        return t(
            "Bonus of {location}: its own bonus, or a gray stone from the quarry — or skip?",
            location=here,
        )
    if kind == "remove":
        return t("Bonus of {location}: send the top stone of which column to the quarry?",
                 location=here)  # fmt: skip
    if kind == "draw":
        return t("Bonus of {location}: draw which colour from the quarry?", location=here)
    if kind == "steal":
        rival = colour_name(t, 1 - builder.position.turn)
        return t("Bonus of {location}: take which stone from {rival}'s workshop?",
                 location=here, rival=rival)  # fmt: skip
    if kind == "extra-stone":
        return t("Bonus of {location}: place which other stone from your workshop?",
                 location=here)  # fmt: skip
    if kind == "extra-location" and builder.extra_colour is not None:
        return t("Where does the extra stone of {colour} go?",
                 colour=t(COLOUR_NAMES[builder.extra_colour]))  # fmt: skip
    if kind == "move-source":
        return t("Bonus of {location}: move a top stone of {colour} — from which column?",
                 location=here, colour=t(COLOUR_NAMES[MOVER_COLOUR[location]]))  # fmt: skip
    if kind == "move-target" and builder.source is not None:
        return t("Move the top of {location} onto which column?",
                 location=location_name(builder.source))  # fmt: skip
    return t("Put the gray quarry stone on which column?")


def option_label(t: Words, builder: TurnBuilder, kind: str, token: str) -> tuple[str, str | None]:
    """A button's label and emoji for choosing ``token`` at a step of ``kind``."""
    position = builder.position
    if token == SKIP:
        return t("Skip the bonus"), None
    if kind == "action":
        return (t("Take stones"), "⛏️") if token == "T" else (t("Place a stone"), "🏛️")
    if kind == "bonus-choice":
        if token == OWN_BONUS and builder.location is not None:
            return f"{location_name(builder.location)}: {bonus_name(builder.location, t)}", None
        assert token == GRAY_FROM_QUARRY
        return t("Gray stone from quarry"), STONE_EMOJI[2]
    if kind == "take-count":
        return token, None
    if token in COLOUR_LETTERS:
        colour = COLOUR_LETTERS.index(token)
        return colour_name(t, colour), STONE_EMOJI[colour]
    location = LOCATION_LETTERS.index(token)
    if kind == "location":
        return f"{location_name(location)} · {bonus_name(location, t)}", None
    column = position.columns[location]
    if kind in ("remove", "move-source") and column:
        top = t(COLOUR_NAMES[COLOUR_LETTERS.index(column[-1])])
        return t("{location} · top {colour}", location=location_name(location), colour=top), None
    height = f"{len(column)}/{position.capacities[location]}"
    return f"{location_name(location)} · {height}", None


# -- embeds ---------------------------------------------------------------------------------------


def result_text(t: Words, game: Game) -> str:
    """The result in a sentence, e.g. ``<@1> wins 25–19 on points`` (``19–−1``: a negative
    score has a minus sign)."""
    if game.ended_by is not None:
        return t("Ended by {admin} (an admin): no result, not rated.",
                 admin=mention(game.ended_by))  # fmt: skip
    outcome = game.outcome
    assert outcome is not None
    pair = score_pair(outcome.white_points, outcome.black_points)
    if outcome.result == "draw":
        return t("Draw, {points} with as many columns each.", points=pair)
    winner = game.white_id if outcome.result == "white" else game.black_id
    return t("{winner} wins {points} {reason}.", winner=mention(winner), points=pair,
             reason=t(RESULT_REASONS[outcome.reason]))  # fmt: skip


def scoring_lines(t: Words, result: Score) -> str:
    """Each column's winner, points and ornament change, one line each."""
    lines = []
    for column in result.columns:
        if column.winner is None:
            line = t("{location}: nobody", location=location_name(column.location))
        else:
            line = t("{location}: {colour} {points}", location=location_name(column.location),
                     colour=colour_name(t, column.winner),
                     points=signed(column.points))  # fmt: skip
        change = ornament_change(column, t)
        if change is not None and column.ornament is not None:
            ornament = t(ORNAMENT_NAMES[column.ornament])
            line += " — " + t("{ornament} ornament: {change}", ornament=ornament, change=change)
        lines.append(line)
    return "\n".join(lines)


ACCENT: Final = {WHITE: 0xECE6D6, BLACK: 0x2E2B28}
"""A live board's accent: the colour of the player to move (marble, basalt)."""


LAST_TURN, SCORING, IF_IT_ENDED_NOW = N_("Last turn"), N_("Scoring"), N_("If it ended now")
"""The board's headings."""


def board_accent(game: Game) -> int:
    """The accent colour of a board: the player to move's, or sandstone once it is over."""
    return ACCENT[game.position.turn] if game.is_active else EMBED_COLOUR.value


def board_header(t: Words, game: Game, last: str | None) -> str:
    """A board's text above its image: the players, the mode (with its ornaments), the last
    turn."""
    position = game.position
    mode = t(MODE_NAMES[game.mode]).capitalize()
    lines = [
        f"### Tholos · {mode}",
        f"{STONE_EMOJI[WHITE]} {colour_name(t, WHITE)}: {mention(game.white_id)} · "
        f"{STONE_EMOJI[BLACK]} {colour_name(t, BLACK)}: {mention(game.black_id)}",
    ]
    if game.mode == "advanced":
        lines.append(ornaments_text(t, position))
    if last:
        lines.append(f"**{t(LAST_TURN)}:** {last}")
    return "\n".join(lines)


def board_status(t: Words, game: Game, prompt: str | None) -> str:
    """A board's text below its image: whose turn (with the step ``prompt``, ``None`` while
    the AI thinks) and the points if it ended now; or the result and the scoring."""
    projected = score(game.position)
    if not game.is_active:
        status = t("Game over. {result}", result=result_text(t, game))
        if game.outcome is not None:
            status += f"\n**{t(SCORING)}**\n" + scoring_lines(t, projected)
        return status
    if prompt is None:
        status = t("🤖 {name} is thinking…", name=game.name(game.position.turn))
    else:
        status = t("{player}, your turn. {prompt}", player=mention(game.to_move), prompt=prompt)
    white, black = projected.totals
    return (
        f"{status}\n**{t(IF_IT_ENDED_NOW)}:** "
        f"{colour_name(t, WHITE)} {points(white)} · {colour_name(t, BLACK)} {points(black)}"
    )


def board_footer(t: Words, game: Game) -> str:
    """A board's small print: the ply and the canonical position (players paste it into
    ``python -m engine``; tools that audit games read it)."""
    ply = t("Ply {ply}", ply=game.plies)
    return f"-# {ply} · {game.position}"


def challenge_text(t: Words, challenge: Challenge) -> str:
    """The public challenge message."""
    if challenge.mode == "basic":
        mode = t("a basic game")
    else:
        mode = t.plural("an advanced game with {count} ornament",
                        "an advanced game with {count} ornaments", challenge.ornaments)  # fmt: skip
    invitation = t(
        "{opponent}, {challenger} challenges you to {mode} of Tholos!",
        opponent=mention(challenge.opponent_id), challenger=mention(challenge.challenger_id),
        mode=mode,
    )  # fmt: skip
    colours = {
        "white": N_("The challenger plays White"),
        "black": N_("The challenger plays Black"),
        "random": N_("The challenger plays a random colour"),
    }[challenge.colour]
    first = {
        "me": N_("the challenger moves first."),
        "opponent": N_("the opponent moves first."),
        "random": N_("a random player moves first."),
    }[challenge.first]
    text = f"{invitation}\n{t(colours)}; {t(first)}"
    status = challenge.status
    if status == "pending":
        when = f"<t:{int(challenge.expires_at)}:R>"
        return f"{text}\n" + t("This challenge expires {when}.", when=when)
    ending = {
        "accepted": N_("✅ Accepted — the game is on."),
        "declined": N_("❌ Declined."),
        "withdrawn": N_("↩️ Withdrawn by the challenger."),
        "expired": N_("⌛ Expired without an answer."),
    }[status]
    return f"{text}\n{t(ending)}"


THREAD_NAME_LIMIT = 100
"""Discord's limit on a thread's name."""
NO_THREADS = N_(
    "I'll play games started here in the channel itself. To give each game a thread of its "
    "own, a server admin can grant me **Create Public Threads** and **Send Messages in "
    "Threads** in this channel."
)
THREAD_FAILED = N_(
    "I couldn't open a thread for this game (the server may have reached Discord's limit of "
    "active threads), so it is played right here."
)


def thread_name(t: Words, first: str, second: str) -> str:
    """A game's thread name, e.g. ``Ariadne vs Theseus · Tholos``, within Discord's 100
    characters whatever the names (each cut with an ellipsis when needed).

    >>> from rendering.words import ENGLISH
    >>> thread_name(ENGLISH, "Ariadne", "Theseus")
    'Ariadne vs Theseus · Tholos'
    >>> name = thread_name(ENGLISH, "A" * 90, "B" * 90)
    >>> len(name) <= 100, name.count("…")
    (True, 2)
    """
    template = t("{white} vs {black} · Tholos", white="{white}", black="{black}")
    names = [" ".join(name.split()) or "?" for name in (first, second)]
    room = (THREAD_NAME_LIMIT - len(template.format(white="", black=""))) // 2
    cut = [name if len(name) <= room else name[: room - 1] + "…" for name in names]
    return template.format(white=cut[0], black=cut[1])


def game_label(t: Words, game: Game) -> str:
    """A game in a list of choices (≤ 100 characters), e.g. ``#7 Ariadne vs Theseus · ply 12``."""
    return t("#{id} {white} vs {black} · ply {ply}", id=game.id, white=game.white_name,
             black=game.black_name, ply=game.plies)[:100]  # fmt: skip


def game_line(t: Words, game: Game) -> str:
    """The line a game played in a thread keeps in its channel: who, where, and the result
    once it is over."""
    white, black = mention(game.white_id), mention(game.black_id)
    where = f"<#{game.channel_id}>"
    if game.is_active:
        return t("⚔️ {white} vs {black} — the game is on in {thread}.", white=white,
                 black=black, thread=where)  # fmt: skip
    return t("🏁 {white} vs {black} — {result} ({thread})", white=white, black=black,
             result=result_text(t, game), thread=where)  # fmt: skip


RULES_TURN = N_(
    "On your turn, do one thing:\n"
    "• **Take** stones of one colour from the quarry into your workshop (3 slots): up to 3 of "
    "your colour, 2 gray, or 1 of your rival's.\n"
    "• **Place** a stone from your workshop on a column that isn't full. A stone of *your* "
    "colour lets you use that location's bonus once (you may skip it). Stones moved or added "
    "by a bonus never trigger another bonus."
)
RULES_SCORING = N_(
    "The game ends the moment every column is full (5 stones; no bonus after the stone that "
    "fills the last place). Each column goes to whoever has more stones of their colour in it "
    "(gray doesn't count; a tie goes to nobody). Its winner scores +1 per own stone, +3 per "
    "rival stone and −2 per gray stone. Most points wins; if tied, most columns won; else a draw."
)


def rules_embed(t: Words, position: Position | None) -> discord.Embed:
    """``/tholos rules``: a turn, each location's bonus, this game's ornaments, scoring."""
    embed = discord.Embed(
        title=t("How to play Tholos"), colour=EMBED_COLOUR, description=t(RULES_TURN)
    )
    bonuses = "\n".join(
        f"{location_name(location)} — {bonus_description(location, t)}" for location in LOCATIONS
    )
    embed.add_field(name=t("Bonuses"), value=bonuses, inline=False)
    embed.add_field(name=t("End and scoring"), value=t(RULES_SCORING), inline=False)
    if position is not None and position.mode == "advanced":
        embed.add_field(
            name=t("Ornaments in this game"), value=ornaments_text(t, position), inline=False
        )
    else:
        ornaments = ", ".join(
            f"**{t(ORNAMENT_NAMES[ornament])}** ({t(effect)})"
            for ornament, effect in ORNAMENT_EFFECTS.items()
        )
        embed.add_field(
            name=t("Advanced mode"),
            value=t("Adds 1–5 ornaments that change their column's rules: {ornaments}",
                    ornaments=ornaments),
            inline=False,
        )
    embed.set_footer(
        text=t(
            "Board game by Perro Loko Games (2021). Start with /tholos challenge: name a "
            "member, or name me to play my AI (easy, medium or hard)."
        )
    )
    return embed


# -- ratings --------------------------------------------------------------------------------------

OUTCOME_MARK: Final = {"win": N_("✅ W"), "loss": N_("❌ L"), "draw": N_("➖ D")}


def rating_text(t: Words, player: PlayerRating) -> str:
    """``1612 ±85`` (with ``provisional`` for a player with few rated games)."""
    rating = player.rating
    text = f"**{rating.rating:.0f}** ±{rating.deviation:.0f}"
    return t("{rating} (provisional)", rating=text) if player.provisional else text


def minutes_text(t: Words, seconds: float) -> str:
    """A duration in minutes, e.g. ``5 minutes``."""
    minutes = seconds / 60
    return t.plural("{minutes} minute", "{minutes} minutes", round(minutes) if minutes >= 1 else 2,
                    minutes=f"{minutes:g}")  # fmt: skip


def settings_embed(t: Words, rules: ServerRules, *, changed: bool) -> discord.Embed:
    """A server's settings in force (``changed``: just saved)."""
    embed = discord.Embed(
        title=t("Tholos settings saved") if changed else t("Tholos settings"),
        colour=EMBED_COLOUR,
    )
    threads = t("on") if rules.threads else t("off")
    embed.add_field(name=t("Threads"), value=threads, inline=True)
    embed.add_field(
        name=t("Idle claim"), value=minutes_text(t, rules.inactivity_timeout), inline=True
    )
    embed.add_field(
        name=t("Challenges expire"), value=minutes_text(t, rules.challenge_timeout), inline=True
    )
    embed.add_field(name=t("Default mode"), value=t(MODE_NAMES[rules.default_mode]), inline=True)
    reminders = minutes_text(t, rules.reminder_after) if rules.reminder_after > 0 else t("off")
    embed.add_field(name=t("Turn reminders after"), value=reminders, inline=True)
    embed.set_footer(text=t("Change them with /tholos-admin settings (Manage Server)."))
    return embed


GAMES_PAGE = 10


def games_embed(
    t: Words, games: list[Game], page: int, pages: int, total: int, caller_id: int
) -> discord.Embed:
    """One page of the server's games being played, the caller's first."""
    embed = discord.Embed(title=t("Tholos games being played"), colour=EMBED_COLOUR)
    lines = []
    for game in games:
        mine = "★ " if caller_id in (game.white_id, game.black_id) else ""
        link = board_link(game)
        lines.append(mine + t(
            "{white} vs {black} · {mode} · ply {ply} · to move: {mover} · [board]({link})",
            white=mention(game.white_id), black=mention(game.black_id),
            mode=t(MODE_NAMES[game.mode]), ply=game.plies, mover=mention(game.to_move),
            link=link,
        ))  # fmt: skip
    embed.description = "\n".join(lines) or t("No game is being played on this server.")
    embed.set_footer(
        text=t.plural("Page {page} of {pages} · {count} game · ★ yours",
                      "Page {page} of {pages} · {count} games · ★ yours", total,
                      page=page + 1, pages=pages)
    )
    return embed


def leaderboard_embed(
    t: Words,
    rows: list[tuple[int, PlayerRating]],
    page: int,
    pages: int,
    caller_id: int,
    caller: tuple[int, PlayerRating] | None,
) -> discord.Embed:
    """One page of the server's leaderboard, and where the caller stands."""
    embed = discord.Embed(title=t("Tholos leaderboard"), colour=EMBED_COLOUR)
    embed.description = (
        "\n".join(
            f"`#{rank}` {mention(player.user_id)} {rating_text(t, player)} · "
            + t.plural("{count} game", "{count} games", player.games)
            + f" · {player.wins}–{player.losses}–{player.draws}"
            for rank, player in rows
        )
        or t("Nobody on this page.")
    )
    if caller is None:
        you = t("{member}: not rated yet — finish a game to join the board.",
                member=mention(caller_id))  # fmt: skip
    else:
        rank, player = caller
        you = f"{mention(caller_id)}: #{rank} · {rating_text(t, player)}"
    embed.add_field(name=t("You"), value=you, inline=False)
    embed.set_footer(
        text=t("Page {page} of {pages}", page=page + 1, pages=pages) + " · "
        + t("Glicko-2 ratings; ± is one rating deviation; W–L–D counts rated games")
    )
    return embed


def record_text(record: Record) -> str:
    """``3–1–0``: wins, losses, draws."""
    return f"{record.wins}–{record.losses}–{record.draws}"


def opponent_text(t: Words, game: Played) -> str:
    """The opponent of a game in a stats line: a mention, or the AI and its level."""
    level = game.game.ai_level
    if level is None:
        return mention(game.opponent_id)
    return t("the AI ({level}, unrated)", level=t(LEVEL_NAMES[level]))


def streak_text(t: Words, outcome: str, length: int) -> str:
    """``3 wins``, ``1 loss``, ``2 draws``."""
    if outcome == "win":
        return t.plural("{count} win", "{count} wins", length)
    if outcome == "loss":
        return t.plural("{count} loss", "{count} losses", length)
    return t.plural("{count} draw", "{count} draws", length)


def stats_embed(
    t: Words, user_id: int, rated: tuple[int, PlayerRating] | None, players: int, stats: Stats
) -> discord.Embed:
    """``/tholos stats``: rating and rank, records, points, streak, the last games."""
    embed = discord.Embed(
        title=t("Tholos stats"), colour=EMBED_COLOUR, description=mention(user_id)
    )
    if rated is None:
        embed.add_field(name=t("Rating"), value=t("Not rated yet."), inline=False)
    else:
        rank, player = rated
        embed.add_field(
            name=t("Rating"),
            value=t("#{rank} of {players}", rank=rank, players=players) + " · "
            + rating_text(t, player),
            inline=False,
        )
    if not stats.recent:
        embed.add_field(
            name=t("Games"), value=t("No finished games on this server yet."), inline=False
        )
        return embed
    overall = stats.overall
    if overall.games:
        embed.add_field(
            name=t("Record"),
            value=t("{wins} W · {losses} L · {draws} D · win rate {rate}", wins=overall.wins,
                    losses=overall.losses, draws=overall.draws,
                    rate=f"{overall.win_rate:.0%}"),
            inline=False,
        )
        mean_for, mean_against = stats.mean_points_for, stats.mean_points_against
        assert mean_for is not None and mean_against is not None  # games were counted
        for name, record in ((N_("As White"), stats.as_white), (N_("As Black"), stats.as_black)):
            embed.add_field(name=t(name), value=record_text(record), inline=True)
        embed.add_field(
            name=t("Points per game"),
            value=t("{scored} for · {conceded} against",
                    scored=points(mean_for, digits=1), conceded=points(mean_against, digits=1)),
            inline=False,
        )
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
            value=t("{scored}–{conceded} vs {opponent} {date}", scored=points(best.points_for),
                    conceded=points(best.points_against), opponent=mention(best.opponent_id),
                    date=f"<t:{int(best.game.finished_at)}:d>"),
            inline=False,
        )
    if stats.streak is not None:
        outcome, length = stats.streak
        embed.add_field(
            name=t("Current streak"), value=streak_text(t, outcome, length), inline=False
        )
    embed.add_field(
        name=t("Last games"),
        value="\n".join(
            t("{mark} vs {opponent} {scored}–{conceded} {reason} {date}",
              mark=t(OUTCOME_MARK[game.outcome]), opponent=opponent_text(t, game),
              scored=points(game.points_for), conceded=points(game.points_against),
              reason=t(RESULT_REASONS[game.game.reason]),
              date=f"<t:{int(game.game.finished_at)}:d>")
            for game in stats.recent
        ),
        inline=False,
    )
    return embed


# -- after the game -------------------------------------------------------------------------------

HISTORY_PAGE = 10


def board_link(game: Game) -> str:
    """A link to the game's newest board message (its channel when there is none)."""
    return board_url(game) or f"<#{game.channel_id}>"


def history_line(t: Words, game: Game, member_id: int) -> str:
    """One finished game as ``member_id`` played it: outcome, opponent, score, how, when."""
    outcome = game.outcome
    assert outcome is not None and game.finished_at is not None
    colour = game.colour_of(member_id)
    mine, theirs = outcome.white_points, outcome.black_points
    if colour == BLACK:
        mine, theirs = theirs, mine
    if outcome.result == "draw":
        mark = OUTCOME_MARK["draw"]
    else:
        won = (outcome.result == "white") == (colour == WHITE)
        mark = OUTCOME_MARK["win" if won else "loss"]
    opponent_id = game.black_id if colour == WHITE else game.white_id
    if game.ai_level is not None:
        opponent = "🤖 " + t("the AI ({level}, unrated)", level=t(LEVEL_NAMES[game.ai_level]))
    else:
        opponent = mention(opponent_id)
    return t(
        "{mark} vs {opponent} {scored}–{conceded} {reason} {date} · [final board]({link})",
        mark=t(mark), opponent=opponent, scored=points(mine), conceded=points(theirs),
        reason=t(RESULT_REASONS[outcome.reason]), date=f"<t:{int(game.finished_at)}:d>",
        link=board_link(game),
    )  # fmt: skip


def history_embed(
    t: Words, member_id: int, games: list[Game], page: int, pages: int, total: int
) -> discord.Embed:
    """One page of a member's finished games, newest first."""
    lines = [history_line(t, game, member_id) for game in games]
    count = t.plural("{count} finished game", "{count} finished games", total)
    embed = discord.Embed(
        title=t("Tholos history"),
        colour=EMBED_COLOUR,
        description="\n".join(
            [f"{mention(member_id)} · {count}", ""]
            + (lines or [t("No finished games on this server yet.")])
        ),
    )
    embed.set_footer(text=t("Page {page} of {pages}", page=page + 1, pages=pages))
    return embed


def review_progress(t: Words, done: int, total: int) -> str:
    """The review's message while the AI works."""
    if not total:
        return t("🔍 The AI will review this game as soon as it can.")
    return t("🔍 The AI is reviewing this game… {done} of {total} positions.", done=done,
             total=total)  # fmt: skip


def review_embed(t: Words, game: Game, review: GameReview, chart_name: str) -> discord.Embed:
    """The AI's review: each player's accuracy, their three biggest mistakes with the better
    turn the AI found, and the chart of the expected result."""
    embed = discord.Embed(
        title=t("AI review: {white} vs {black}", white=game.white_name, black=game.black_name),
        colour=EMBED_COLOUR,
        description=t(
            "**Accuracy** is the share of a player's turns that kept the result the AI "
            "expected before them."
        ),
    )
    for colour in (WHITE, BLACK):
        name = game.name(colour)
        lines = [
            t("**{ply}.** {played} — better: {best}", ply=turn.ply,
              played=", ".join(turn_lines(turn.played, name, t)),
              best=", ".join(turn_lines(turn.best, name, t)))
            for turn in review.mistakes(colour, 3)
        ]
        accuracy = f"{review.accuracy[colour]:.0%}"
        embed.add_field(
            name=t("{stone} {name}: accuracy {accuracy}", stone=STONE_EMOJI[colour], name=name,
                   accuracy=accuracy),
            value=("\n".join(lines) or t("No mistakes found."))[:1024],
            inline=False,
        )
    embed.set_image(url=f"attachment://{chart_name}")
    embed.set_footer(text=t("The chart: the expected result for White after each turn."))
    return embed


# -- turn reminders -------------------------------------------------------------------------------

REMINDER_CHOICES: Final = {
    "off": N_("off — no reminders"),
    "here": N_("here — in the game's thread or channel"),
    "dm": N_("dm — by direct message (in the game's thread when your DMs are closed)"),
}
"""What each choice of ``/tholos settings reminders`` means."""


def game_url(game: Game) -> str:
    """A jump link to the game's newest board (to its thread or channel while it has none; a
    game in a direct message, server id 0, links into ``@me``)."""
    url = f"https://discord.com/channels/{game.guild_id or '@me'}/{game.channel_id}"
    return url if game.board_message_id is None else f"{url}/{game.board_message_id}"


def reminder_text(
    t: Words, game: Game, claim_at: float | None, now: float, *, direct: bool = False,
    server: str = "?",
) -> str:  # fmt: skip
    """The turn reminder of the player to move: the game, a link to its board, and when the
    opponent may claim the win (``claim_at``, a Discord timestamp every reader sees in their
    own time; ``None`` against the AI, which never claims; by ``now``, they may already).
    ``direct``: it goes by direct message, so it also says where the game is played (on
    ``server``, the server's name)."""
    player, opponent = mention(game.to_move), game.name(1 - game.position.turn)
    link = game_url(game)
    if claim_at is None:
        text = t(
            "⏰ {player}, your game against {opponent} is waiting for your move: "
            "[go to the board]({link}).",
            player=player, opponent=opponent, link=link,
        )  # fmt: skip
    elif claim_at <= now:
        text = t(
            "⏰ {player}, it's your turn against {opponent}: [go to the board]({link}). They "
            "may already claim the win.",
            player=player, opponent=opponent, link=link,
        )  # fmt: skip
    else:
        text = t(
            "⏰ {player}, it's your turn against {opponent}: [go to the board]({link}). They "
            "may claim the win {when} if you haven't moved by then.",
            player=player, opponent=opponent, link=link, when=f"<t:{int(claim_at) + 1}:R>",
        )  # fmt: skip
    if direct:
        place = f"https://discord.com/channels/{game.guild_id}/{game.channel_id}"
        text += "\n" + t("The game is played on {server}: {place}. `/tholos settings` changes "
                         "where your reminders go.", server=server, place=place)  # fmt: skip
    return text


def reminder_settings_text(
    t: Words, choice: str, reminder_after: float | None, *, changed: bool
) -> str:
    """``/tholos settings``: where the reader's turn reminders go (``changed``: just saved) and,
    in a server, after how long without a move (``reminder_after``; 0: off there)."""
    chosen = t(REMINDER_CHOICES[choice])
    lines = [
        t("Saved. Your turn reminders: {choice}.", choice=chosen)
        if changed
        else t("Your turn reminders: {choice}.", choice=chosen)
    ]
    if reminder_after is not None and choice != "off":
        lines.append(
            t("On this server they come after {time} without a move.",
              time=minutes_text(t, reminder_after))
            if reminder_after > 0
            else t("This server has turned turn reminders off.")
        )  # fmt: skip
    lines.append(t("Choose with `/tholos settings reminders:` off, here or dm."))
    return "\n".join(lines)
