"""Lessons you play: the course that teaches Tholos one rule at a time, each a prepared position
and a task done with one turn. A task is a predicate the engine evaluates on the turn and the
position it leads to — never a comparison of strings — and a turn that misses says why.

The learner plays White in every lesson (``Lesson.position`` has White to move). The words are
ours, marked for translation (``N_``) like the rest of :mod:`engine.vocabulary`; a face shows
the turn itself in words beside :attr:`Verdict.why`.
``tests/features/lessons/test_course.py`` proves
each lesson honest: among all legal turns of its position at least one passes and one fails.

>>> from engine.turns import parse_turn
>>> lesson = lesson_by_id("take")
>>> judge(lesson, parse_turn("+w3")).passed, judge(lesson, parse_turn("+w2")).passed
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

from engine.core import GRAY, WHITE, A, B, C, Colour, D, E, F, G, Location
from engine.position import Position
from engine.scoring import score
from engine.turns import Draw, Extra, GrayFromQuarry, Move, Place, Remove, Steal, Take, Turn
from engine.vocabulary import N_

Part = Literal["basics", "advanced"]
Check = Callable[[Position, Turn, Position], "str | None"]
"""A task: ``None`` when the turn (from the position before, to the one after) does it, else
why not (a sentence marked ``N_``)."""


@dataclass(frozen=True, slots=True)
class Lesson:
    """One rule, taught by doing it once."""

    id: str
    part: Part
    title: str
    explanation: tuple[str, ...]
    """One to three sentences: the rule, in our words."""
    task: str
    """What to do with the one turn."""
    position: str
    """Where it is done (White to move)."""
    check: Check

    @property
    def start(self) -> Position:
        return Position.parse(self.position)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A turn tried in a lesson."""

    passed: bool
    why: str | None
    """Why the turn is not the task (``None`` when it passed)."""
    after: Position


def judge(lesson: Lesson, turn: Turn) -> Verdict:
    """Whether ``turn`` (legal in the lesson's position) does its task, and why not."""
    before = lesson.start
    after = before.apply(turn)
    why = lesson.check(before, turn, after)
    return Verdict(why is None, why, after)


# -- the tasks' pieces ---------------------------------------------------------------------------

NOT_TAKEN = N_("That turn placed a stone; this task is to take stones from the quarry.")
NOT_PLACED = N_("That turn took stones; this task is to place a stone from your workshop.")
WRONG_PLACE = N_("That stone went to another column than the one the task names.")
NO_BONUS = N_("That turn skipped the bonus (or used another one); the task asks for the bonus.")


def takes(colour: Colour, count: int, wrong_colour: str, too_few: str) -> Check:
    """Take exactly ``count`` stones of ``colour``."""

    def check(before: Position, turn: Turn, after: Position) -> str | None:
        if not isinstance(turn, Take):
            return NOT_TAKEN
        if turn.colour != colour:
            return wrong_colour
        return None if turn.count == count else too_few

    return check


def places(location: Location, bonus: Callable[[object], bool] | None = None) -> Check:
    """Place a stone on ``location`` (with a bonus that ``bonus`` accepts, if given)."""

    def check(before: Position, turn: Turn, after: Position) -> str | None:
        if not isinstance(turn, Place):
            return NOT_PLACED
        if turn.location != location:
            return WRONG_PLACE
        if bonus is not None and not bonus(turn.bonus):
            return NO_BONUS
        return None

    return check


def placed(colour: Colour, other: str) -> Check:
    """The turn places a stone of ``colour``."""

    def check(before: Position, turn: Turn, after: Position) -> str | None:
        if not isinstance(turn, Place):
            return NOT_PLACED
        return None if turn.colour == colour else other

    return check


def wins_column(location: Location, lost: str) -> Check:
    """After the turn, White wins the column at ``location``."""

    def check(before: Position, turn: Turn, after: Position) -> str | None:
        return None if score(after).columns[location].winner == WHITE else lost

    return check


def best_column(location: Location, short: str) -> Check:
    """After the turn, the column at ``location`` is worth as much to White as any legal turn
    can make it (and White wins it)."""

    def worth(position: Position) -> int:
        column = score(position).columns[location]
        return column.points if column.winner == WHITE else -1000

    def check(before: Position, turn: Turn, after: Position) -> str | None:
        best = max(worth(before.apply_unchecked(other)) for other in before.legal_turns())
        return None if worth(after) == best else short

    return check


def wins_the_game(lost: str) -> Check:
    """The turn ends the game, and White wins it."""

    def check(before: Position, turn: Turn, after: Position) -> str | None:
        outcome = after.outcome()
        return None if outcome is not None and outcome.winner == WHITE else lost

    return check


def both(first: Check, second: Check) -> Check:
    """Both tasks at once (the first one's reason first)."""

    def check(before: Position, turn: Turn, after: Position) -> str | None:
        return first(before, turn, after) or second(before, turn, after)

    return check


def is_remove(source: Location) -> Callable[[object], bool]:
    return lambda bonus: bonus == Remove(source)


def is_move(
    source: Location | None = None, target: Location | None = None
) -> Callable[[object], bool]:
    return lambda bonus: (
        isinstance(bonus, Move)
        and source in (None, bonus.source)
        and target in (None, bonus.target)
    )


# -- the course --------------------------------------------------------------------------------

BASICS: Final = (
    Lesson(
        "take",
        "basics",
        N_("Taking stones"),
        (
            N_("A turn is one of two things: take stones from the quarry, or place one stone."),
            N_("Stones you take wait in your workshop, which holds three."),
        ),
        N_("Your workshop is empty. Take as many white stones as one turn allows."),
        "-/-/-/-/-/-/- - bb w -",
        takes(
            WHITE,
            3,
            N_("Those were not white stones: white is your colour, and the task asks for it."),
            N_("You may take up to three stones of your own colour at once: take three."),
        ),
    ),
    Lesson(
        "limits",
        "basics",
        N_("How many you may take"),
        (
            N_("Of your own colour you may take three, of gray two, of your rival's colour one."),
            N_("Never more than your workshop has room for."),
        ),
        N_("Take as many gray stones as one turn allows."),
        "-/-/-/-/-/-/- - bb w -",
        takes(
            GRAY,
            2,
            N_("Those were not gray stones."),
            N_("Two gray stones fit in one turn: take two."),
        ),
    ),
    Lesson(
        "place",
        "basics",
        N_("Placing a stone"),
        (
            N_("Placing puts one stone from your workshop on top of a column."),
            N_("The columns stand on the seven places of the temple, α A to Ω G."),
        ),
        N_("Place a stone from your workshop on δ D (skip its bonus, if you are offered one)."),
        "-/-/-/-/-/-/- wg bb w -",
        places(D),
    ),
    Lesson(
        "capacity",
        "basics",
        N_("A column's limit"),
        (
            N_("A column holds five stones; a full one takes no more."),
            N_("Stones can still be moved off a full column, or removed from it, by bonuses."),
        ),
        N_("α A is full. Place a stone so that β B holds five too."),
        "wbwbw/bwbw/-/-/-/-/- wg bb w -",
        places(B),
    ),
    Lesson(
        "bonus-c",
        "basics",
        N_("γ C: remove a top stone"),
        (
            N_("Placing a stone of your own colour lets you use that place's bonus, once."),
            N_("γ C's bonus sends the top stone of another column back to the quarry."),
        ),
        N_("Place white on γ C and send the black stone on top of δ D back to the quarry."),
        "-/-/-/wb/-/-/- wg bb w -",
        places(C, is_remove(D)),
    ),
    Lesson(
        "bonus-d",
        "basics",
        N_("δ D: draw a stone"),
        (N_("δ D's bonus brings one stone of any colour from the quarry to your workshop."),),
        N_("Place white on δ D and draw a gray stone into your workshop."),
        "-/-/-/-/-/-/- wg bb w -",
        places(D, lambda bonus: bonus == Draw(GRAY)),
    ),
    Lesson(
        "bonus-e",
        "basics",
        N_("π E: steal a stone"),
        (N_("π E's bonus takes one stone from your rival's workshop into yours."),),
        N_("Place white on π E and take the gray stone from Black's workshop."),
        "-/-/-/-/-/-/- wg bbg w -",
        places(E, lambda bonus: bonus == Steal(GRAY)),
    ),
    Lesson(
        "bonus-f",
        "basics",
        N_("Σ F: one more stone"),
        (N_("Σ F's bonus places one more stone from your workshop on another column."),),
        N_("Place white on Σ F, then your gray stone on α A."),
        "-/-/-/-/-/-/- wg bb w -",
        places(F, lambda bonus: bonus == Extra(GRAY, A)),
    ),
    Lesson(
        "bonus-a",
        "basics",
        N_("α A: move a gray stone"),
        (
            N_("α A, β B and Ω G move a top stone from one column to another."),
            N_("α A moves gray stones, β B white ones, Ω G black ones."),
        ),
        N_("Place white on α A and move the gray stone on top of γ C onto δ D."),
        "-/-/wg/b/-/-/- wg bb w -",
        places(A, is_move(C, D)),
    ),
    Lesson(
        "bonus-b",
        "basics",
        N_("β B: move a white stone"),
        (N_("β B moves a white top stone from another column onto a column with room."),),
        N_("Place white on β B and move the white stone on top of δ D onto γ C."),
        "-/-/b/bw/-/-/- wg bb w -",
        places(B, is_move(D, C)),
    ),
    Lesson(
        "bonus-g",
        "basics",
        N_("Ω G: move a black stone"),
        (N_("Ω G moves a black top stone, even your rival's, to another column."),),
        N_("Place white on Ω G and move Black's stone off γ C, anywhere else."),
        "-/-/wb/-/-/-/- wg bb w -",
        places(G, is_move(source=C)),
    ),
    Lesson(
        "own-colour",
        "basics",
        N_("Only your colour calls a bonus"),
        (
            N_("A bonus comes only with a stone of your own colour."),
            N_("A gray stone, or your rival's colour, placed anywhere calls no bonus."),
        ),
        N_("Place your gray stone on δ D — and see that no bonus follows."),
        "-/-/-/-/-/-/- wg bb w -",
        both(places(D), placed(GRAY, N_("The task is to place the gray stone."))),
    ),
    Lesson(
        "no-chain",
        "basics",
        N_("Bonuses do not chain"),
        (N_("A stone that a bonus places or moves calls no bonus of its own."),),
        N_("Place white on Σ F and put your other white stone on δ D: δ D's bonus won't follow."),
        "-/-/-/-/-/-/- ww bb w -",
        places(F, lambda bonus: bonus == Extra(WHITE, D)),
    ),
    Lesson(
        "majority",
        "basics",
        N_("Who wins a column"),
        (
            N_("A column belongs to whoever has more stones of their colour in it."),
            N_("Gray stones never count for that, and a tie belongs to nobody."),
        ),
        N_("γ C is tied. Win it for White with one stone."),
        "-/-/wb/-/-/-/- wg bb w -",
        wins_column(C, N_("After that turn γ C is still not White's.")),
    ),
    Lesson(
        "scoring",
        "basics",
        N_("What a column is worth"),
        (
            N_(
                "Its winner scores 1 for each of their own stones and 3 for each of the "
                "rival's, and loses 2 for each gray one; the loser scores nothing for it."
            ),
        ),
        N_("White wins γ C. Place one stone to make it worth the most to White."),
        "-/-/wwb/-/-/-/- wbg bb w -",
        best_column(C, N_("Another stone would make γ C worth more to White.")),
    ),
    Lesson(
        "end",
        "basics",
        N_("The end of the game"),
        (
            N_("The game ends the moment the last place of the temple is filled."),
            N_("The higher total wins; with equal totals, more columns won; then it is a draw."),
        ),
        N_("One place is left, on β B. End the game so that White wins."),
        "bbwbb/wbgw/bggbb/bgggb/gwwbg/wbgbb/wwwgw wwb w w -",
        wins_the_game(N_("That turn does not end the game with White ahead.")),
    ),
)
"""The rules of the basic game."""

ADVANCED: Final = (
    Lesson(
        "plus3",
        "advanced",
        N_("Ornament: +3"),
        (
            N_("In the advanced game ornaments change their own column's rules."),
            N_("+3: the column's winner scores three more."),
        ),
        N_("δ D is tied and carries +3. Win it for White."),
        "-/-/-/wb/-/-/- wg bb w D=plus3",
        wins_column(D, N_("After that turn δ D is not White's.")),
    ),
    Lesson(
        "minority",
        "advanced",
        N_("Ornament: minority"),
        (N_("Minority: the column goes to the player with fewer stones of their colour in it."),),
        N_("δ D is tied and carries minority. Make it White's."),
        "-/-/-/wb/-/-/- wb bb w D=minority",
        wins_column(D, N_("With minority, fewer of your stones wins: δ D is not White's yet.")),
    ),
    Lesson(
        "graygain",
        "advanced",
        N_("Ornament: gray +2"),
        (N_("Gray +2: in this column each gray stone scores 2 instead of losing 2."),),
        N_("White wins γ C, which carries gray +2. Make it worth the most to White."),
        "-/-/wwb/-/-/-/- wbg bb w C=graygain",
        best_column(C, N_("Another stone would make γ C worth more to White.")),
    ),
    Lesson(
        "grayloss",
        "advanced",
        N_("Ornament: gray −3"),
        (N_("Gray −3: in this column each gray stone costs 3 instead of 2."),),
        N_("White wins γ C, which carries gray −3. Make it worth the most to White."),
        "-/-/wwbg/-/-/-/- wbg bb w C=grayloss",
        best_column(C, N_("Another stone would make γ C worth more to White.")),
    ),
    Lesson(
        "graytrigger",
        "advanced",
        N_("Ornament: gray-trigger"),
        (N_("Gray-trigger: a gray stone placed here calls the place's bonus too."),),
        N_("Place your gray stone on δ D, which carries gray-trigger, and draw a stone with it."),
        "-/-/-/-/-/-/- wg bb w D=graytrigger",
        both(
            places(D, lambda bonus: isinstance(bonus, Draw)),
            lambda before, turn, after: (
                None
                if isinstance(turn, Place) and turn.colour == GRAY
                else N_("The task is to place the gray stone.")
            ),
        ),
    ),
    Lesson(
        "grayquarry",
        "advanced",
        N_("Ornament: gray-quarry"),
        (
            N_(
                "Gray-quarry: when its bonus is called, you may instead put a gray stone from "
                "the quarry on another column with room."
            ),
        ),
        N_("Place white on α A, which carries gray-quarry, and put a quarry gray on δ D."),
        "-/-/-/-/-/-/- wg bb w A=grayquarry",
        places(A, lambda bonus: bonus == GrayFromQuarry(D)),
    ),
    Lesson(
        "tall",
        "advanced",
        N_("Ornament: tall"),
        (N_("Tall: this column holds seven stones, so the game ends only when it holds seven."),),
        N_("γ C holds five stones and carries tall. Place a stone on it anyway."),
        "-/-/wbwbw/-/-/-/- wg bb w C=tall",
        places(C),
    ),
)
"""Each ornament of the advanced game."""

COURSE: Final = BASICS + ADVANCED
"""Every lesson, in the order they are taught."""


def lesson_by_id(lesson_id: str) -> Lesson:
    """The lesson called ``lesson_id``; ``KeyError`` if there is none."""
    for lesson in COURSE:
        if lesson.id == lesson_id:
            return lesson
    raise KeyError(lesson_id)
