"""What a puzzle's message says and shows: its header and caption ("White to play and win"),
the image's view, the answer's buttons, the verdict explained in a sentence, and the puzzle of
the day's tally. Pure: no I/O."""

from __future__ import annotations

from engine import BLACK, WHITE, Turn
from engine.builder import TurnBuilder
from engine.puzzles import DRAW, WIN, Puzzle
from engine.turns import parse_turn
from engine.vocabulary import N_
from rendering.view import BoardView
from rendering.words import Words

from .. import custom_ids
from ..board import ACCENT, Choice, step_choices, step_prompt
from ..controls import Button, Row
from ..domain import mention
from ..layout import IMAGE_NAME, BoardLook, choice_rows
from ..phrases import colour_name, describe_turn
from ..storage.puzzles import Answered, DailyPuzzle, StoredPuzzle

CAPTIONS = {
    (WHITE, WIN): N_("White to play and win"),
    (BLACK, WIN): N_("Black to play and win"),
    (WHITE, DRAW): N_("White to play and hold the draw"),
    (BLACK, DRAW): N_("Black to play and hold the draw"),
}
"""The caption of a puzzle: who is to move, and what the one answer keeps."""
STEP_KINDS = {"choose": "n", "back": "b", "cancel": "c"}


def caption(t: Words, puzzle: Puzzle) -> str:
    """``White to play and win`` (or hold the draw), in the reader's words."""
    return t(CAPTIONS[puzzle.position.turn, puzzle.best])


def image_view(t: Words, puzzle: Puzzle) -> BoardView:
    """The board image of a puzzle: the side to move is "You", the other "Rival", the caption
    is its headline."""
    you, rival = t("You"), t("Rival")
    white, black = (you, rival) if puzzle.position.turn == WHITE else (rival, you)
    return BoardView(white_name=white, black_name=black, note=caption(t, puzzle), words=t)


def look(t: Words, stored: StoredPuzzle, title: str, intro: str, alt: str) -> BoardLook:
    """A puzzle's message around its image: ``title``, the caption and ``intro`` above, the
    step's prompt below, its position in small print."""
    puzzle = stored.puzzle
    header = f"### 🧩 {title}\n**{caption(t, puzzle)}.** {intro}"
    footer = "-# " + t("Puzzle {id}", id=stored.id) + f" · {puzzle.position}"
    builder = TurnBuilder(puzzle.position)
    step = builder.step()
    assert step is not None  # a puzzle's position is not over
    status = step_prompt(t, builder, step)
    return BoardLook(ACCENT[puzzle.position.turn], header, IMAGE_NAME, alt, status, footer)


def answer_rows(t: Words, attempt_id: int, builder: TurnBuilder) -> list[Row]:
    """The buttons of the answer's next step: the turn's own choices, for ``attempt_id``."""
    step = builder.step()
    assert step is not None  # the answer is not complete
    options, commands = step_choices(t, builder, step)

    def button(choice: Choice) -> Button:
        return Button.of(custom_ids.PUZZLE_STEP, attempt=attempt_id, path=choice.path,
                         kind=STEP_KINDS[choice.action], label=choice.label, emoji=choice.emoji,
                         emphasis=choice.emphasis, enabled=choice.enabled)  # fmt: skip

    return choice_rows(options, commands, button)


def next_row(t: Words, attempt_id: int) -> list[Row]:
    """Next, after an answer."""
    return [[Button.of(custom_ids.PUZZLE_NEXT, attempt=attempt_id, label=t("Next puzzle"),
                       emoji="🧩", emphasis="primary")]]  # fmt: skip


def named_turn(t: Words, puzzle: Puzzle, turn: Turn) -> str:
    """A turn of the side to move in words, with its notation."""
    return f"{describe_turn(t, turn, colour_name(t, puzzle.position.turn))} (`{turn}`)"


def why(t: Words, puzzle: Puzzle) -> str:
    """Why the answer is the one: what it keeps, and the best any other turn keeps."""
    colour = colour_name(t, puzzle.position.turn)
    if puzzle.best == WIN and puzzle.alternative == DRAW:
        return t("It is the only turn that wins: after it {colour} wins against any defence, "
                 "after any other the best {colour} can get is a draw.", colour=colour)
    if puzzle.best == WIN:
        return t("It is the only turn that wins: after it {colour} wins against any defence, "
                 "after any other {colour} loses against best play.", colour=colour)
    return t("It is the only turn that holds the draw: after any other, {colour} loses "
             "against best play.", colour=colour)  # fmt: skip


def verdict(t: Words, answered: Answered) -> str:
    """Right or wrong, the answer explained, and what it did to the member's rating."""
    attempt, player = answered.attempt, answered.player
    puzzle = attempt.puzzle.puzzle
    answer = named_turn(t, puzzle, puzzle.answer)
    if attempt.correct:
        lines = [t("✅ **Right!** {answer}.", answer=answer)]
    else:
        yours = named_turn(t, puzzle, parse_turn(attempt.answer or ""))
        lines = [t("❌ **Not this one:** {yours}. The answer: {answer}.", yours=yours,
                   answer=answer)]  # fmt: skip
    lines.append(why(t, puzzle))
    after = round(player.rating.rating)
    if answered.before is not None:
        change = after - round(answered.before.rating)
        lines.append(t("Your puzzle rating: {before} → {after} ({change}).",
                       before=round(answered.before.rating), after=after,
                       change=f"{change:+d}".replace("-", "−")))  # fmt: skip
    elif not answered.first:
        lines.append(t("You had answered it already: an answer counts once."))
    else:
        lines.append(t("You had met this puzzle before, so your rating stays {rating}.",
                       rating=after))  # fmt: skip
    if player.streak > 1:
        lines.append(t("{count} solved in a row!", count=player.streak))
    return "\n".join(lines)


DAILY_INTRO = N_("The same puzzle for everyone here today: answer privately with the button.")


def tally(t: Words, daily: DailyPuzzle) -> str:
    """How many solved the puzzle of the day, of how many tried, and who first."""
    text = t("Solved by {solved} of {tries}.", solved=daily.solvers, tries=daily.tries)
    if daily.first_solver is not None:
        text += " " + t("First to solve it: {member}.", member=mention(daily.first_solver))
    return text


def daily_status(t: Words, daily: DailyPuzzle, puzzle: Puzzle) -> str:
    """The puzzle of the day's line under its image: the tally, and once revealed the answer."""
    if not daily.revealed:
        return t("Your first answer counts; the answer is shown tomorrow.") + "\n" + tally(t, daily)
    answer = named_turn(t, puzzle, puzzle.answer)
    return t("The answer: {answer}.", answer=answer) + " " + why(t, puzzle) + "\n" + tally(t, daily)


def daily_row(t: Words, daily: DailyPuzzle) -> list[Row]:
    """Solve, while the answer is not out."""
    if daily.revealed:
        return []
    return [[Button.of(custom_ids.DAILY_PUZZLE, guild=daily.guild_id, day=daily.day,
                       label=t("Solve it"), emoji="🧩", emphasis="primary")]]  # fmt: skip
