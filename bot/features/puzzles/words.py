"""What a puzzle says, for every face (its Discord messages and the live page): its caption
("White to play and win"), the image's view, the answer explained in a sentence, the verdict,
the puzzle of the day's tally; and the puzzle as a :class:`~bot.words.board.Board`, for a face that
draws boards. Pure: no I/O, no Discord."""

from __future__ import annotations

import dataclasses

from bot.base.game import Game
from bot.features.puzzles.store import Answered, Attempt, DailyPuzzle, StoredPuzzle
from bot.words.board import Board, board_of
from bot.words.names import mention
from bot.words.phrases import Who, colour_name, rating_change
from engine import BLACK, WHITE, Turn
from engine.puzzles import DRAW, WIN, Puzzle
from engine.turns import parse_turn
from engine.vocabulary import N_
from rendering.describe import turn_text
from rendering.translator import Translator
from rendering.view import BoardView

CAPTIONS = {
    (WHITE, WIN): N_("White to play and win"),
    (BLACK, WIN): N_("Black to play and win"),
    (WHITE, DRAW): N_("White to play and hold the draw"),
    (BLACK, DRAW): N_("Black to play and hold the draw"),
}
"""The caption of a puzzle: who is to move, and what the one answer keeps."""
DAILY_INTRO = N_("The same puzzle for everyone here today: answer privately with the button.")


def caption(t: Translator, puzzle: Puzzle) -> str:
    """``White to play and win`` (or hold the draw), in the reader's language."""
    return t(CAPTIONS[puzzle.position.turn, puzzle.best])


def image_view(t: Translator, puzzle: Puzzle) -> BoardView:
    """The board image of a puzzle: the side to move is "You", the other "Rival", the caption
    is its headline."""
    you, rival = t("You"), t("Rival")
    white, black = (you, rival) if puzzle.position.turn == WHITE else (rival, you)
    return BoardView(white_name=white, black_name=black, note=caption(t, puzzle), translator=t)


def named_turn(t: Translator, puzzle: Puzzle, turn: Turn) -> str:
    """A turn of the side to move in words, with its notation."""
    return f"{turn_text(turn, colour_name(t, puzzle.position.turn), t)} (`{turn}`)"


def why(t: Translator, puzzle: Puzzle) -> str:
    """Why the answer is the one: what it keeps, and the best any other turn keeps."""
    colour = colour_name(t, puzzle.position.turn)
    if puzzle.best == WIN and puzzle.alternative == DRAW:
        return t(
            "It is the only turn that wins: after it {colour} wins against any defence, "
            "after any other the best {colour} can get is a draw.",
            colour=colour,
        )
    if puzzle.best == WIN:
        return t(
            "It is the only turn that wins: after it {colour} wins against any defence, "
            "after any other {colour} loses against best play.",
            colour=colour,
        )
    return t(
        "It is the only turn that holds the draw: after any other, {colour} loses "
        "against best play.",
        colour=colour,
    )


def verdict(t: Translator, answered: Answered) -> str:
    """Right or wrong, the answer explained, and what it did to the member's rating."""
    attempt, player = answered.attempt, answered.player
    puzzle = attempt.puzzle.puzzle
    answer = named_turn(t, puzzle, puzzle.answer)
    if attempt.correct:
        lines = [t("✅ **Right!** {answer}.", answer=answer)]
    elif attempt.answer is None:  # shown, not answered: counted as a miss
        lines = [t("💡 **The answer:** {answer}.", answer=answer)]
    else:
        yours = named_turn(t, puzzle, parse_turn(attempt.answer or ""))
        lines = [
            t("❌ **Not this one:** {yours}. The answer: {answer}.", yours=yours, answer=answer)
        ]
    lines.append(why(t, puzzle))
    after = round(player.rating.rating)
    if answered.before is not None:
        change = rating_change(answered.before.rating, player.rating.rating)
        lines.append(t("Your puzzle rating: {change}.", change=change))
    elif not answered.first:
        lines.append(t("You had answered it already: an answer counts once."))
    else:
        lines.append(
            t("You had met this puzzle before, so your rating stays {rating}.", rating=after)
        )
    if player.streak > 1:
        lines.append(t("{count} solved in a row!", count=player.streak))
    return "\n".join(lines)


def tally(t: Translator, daily: DailyPuzzle) -> str:
    """How many solved the puzzle of the day, of how many tried, and who first."""
    text = t("Solved by {solved} of {tries}.", solved=daily.solvers, tries=daily.tries)
    if daily.first_solver is not None:
        text += " " + t("First to solve it: {member}.", member=mention(daily.first_solver))
    return text


def daily_status(t: Translator, daily: DailyPuzzle, puzzle: Puzzle) -> str:
    """The puzzle of the day's line under its image: the tally, and once revealed the answer."""
    if not daily.revealed:
        return t("Your first answer counts; the answer is shown tomorrow.") + "\n" + tally(t, daily)
    answer = named_turn(t, puzzle, puzzle.answer)
    return t("The answer: {answer}.", answer=answer) + " " + why(t, puzzle) + "\n" + tally(t, daily)


def puzzle_title(t: Translator, stored: StoredPuzzle, day: str | None) -> str:
    """``Puzzle 12 · rated 1620``, or ``Puzzle of the day · 2026-11-26``."""
    if day is not None:
        return t("Puzzle of the day · {day}", day=day)
    return t("Puzzle {id} · rated {rating}", id=stored.id, rating=round(stored.rating.rating))


def small_print(t: Translator, stored: StoredPuzzle) -> str:
    """``Puzzle 12 · <position>``: the puzzle and its canonical position."""
    return t("Puzzle {id}", id=stored.id) + f" · {stored.puzzle.position}"


def puzzle_game(attempt: Attempt, t: Translator, who: Who) -> Game:
    """An attempt's puzzle as a game that has just begun, for a face that draws games: the
    member (named by ``who``) to move, against "Rival"; its version is the attempt's id."""
    position = attempt.puzzle.puzzle.position
    mover, rival = attempt.user_id, 0
    white, black = (mover, rival) if position.turn == WHITE else (rival, mover)
    names = {mover: who(mover), rival: t("Rival")}
    return Game(
        white_id=white,
        black_id=black,
        white_name=names[white],
        black_name=names[black],
        mode=position.mode,
        start_position=position,
        position=position,
        version=attempt.id,
        guild_id=attempt.guild_id or 0,
    )


def puzzle_board(attempt: Attempt, game: Game, t: Translator) -> Board:
    """The board of an attempt's puzzle (``game``: :func:`puzzle_game`): its title, the
    caption as its headline, the puzzle's small print; its steps are the turn's."""
    names = {game.white_id: game.white_name, game.black_id: game.black_name}
    board = board_of(game, t, who=lambda user: names.get(user, "?"))
    return dataclasses.replace(
        board,
        title=puzzle_title(t, attempt.puzzle, attempt.day),
        small_print=small_print(t, attempt.puzzle),
        image=dataclasses.replace(board.image, note=caption(t, attempt.puzzle.puzzle)),
    )
