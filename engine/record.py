"""The game record: a small text file that says everything about a game — who played, when,
the setup, every turn with the position after it, and how it ended — so that anyone can check
it turn by turn or re-import it (``python -m engine replay FILE``).

The format is PGN-like: header tags, a blank line, one line per turn (the ply, the turn in the
canonical notation, the canonical position after it), and a last line with the result. Lines
starting with ``#`` are comments. A game against the AI that allowed hints has a ``[Hints]`` tag
(how many the player asked for). A game played on a live clock has PGN's ``[TimeControl]``
tag (seconds each, ``+`` seconds added a turn) and, after each turn of a player with a clock,
their time left as PGN's ``{[%clk h:mm:ss]}`` (rounded down to the second). The record is
plain ASCII apart from the players' names (no typographic minus or dash, unlike what players
read: see ``vocabulary.points``), so that tools and the parser read it as written; it holds no
scores, which follow from the positions::

    [Game "Tholos"]
    [White "Ariadne"]
    [Black "Theseus"]
    [Date "2026-11-24T10:00:00+00:00"]
    [Mode "basic"]
    [Ornaments "none"]
    [Seed "7"]
    [Start "-/-/-/-/-/-/- ww bb w -"]
    [Termination "resignation"]
    [Result "1-0"]

    1. +w1  -/-/-/-/-/-/- www bb b -
    2. …
    1-0 (resignation)

>>> from engine.newgame import new_game
>>> start = new_game()
>>> turns = tuple(start.legal_turns()[:1])
>>> record = GameRecord("Ana", "Bob", "2026-11-24", "basic", 1, start, turns, "unfinished", "*")
>>> read_record(write_record(record)) == record
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .core import IllegalTurnError, InvalidPositionError, InvalidTurnError
from .position import Position
from .scoring import Result, score
from .turns import Turn, parse_turn

TERMINATIONS = ("points", "columns", "tie", "resignation", "timeout", "aborted", "unfinished")
"""How a game ended: by the final score (points, columns, tie), or before (the rest)."""
RESULT_NOTATION: dict[Result, str] = {"white": "1-0", "black": "0-1", "draw": "1/2-1/2"}
"""Each result as a record writes it."""
RESULTS = (*RESULT_NOTATION.values(), "*")
"""White won, Black won, a draw, no result."""
TAG_LENGTH = 1000
"""Characters a header tag's line may have at most: a player's name, an event's, a position and
a date fit many times over; a longer tag is no record of ours (and is refused, not read)."""
_TAG = re.compile(r'\[(\w+) "([^"\\]*(?:\\.[^"\\]*)*)"\]')
"""A tag: its value's characters as runs, so that the match keeps no state per character."""
_PLY = re.compile(r"\d{1,6}\.")
_CLOCK = re.compile(r"\{\[%clk (\d+):([0-5]\d):([0-5]\d)\]\}")
_CLOCK_START = "{[%clk "
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


class RecordError(ValueError):
    """A record that is not a valid game: ``line`` (1-based) is the first bad one."""

    def __init__(self, line: int, text: str, why: str) -> None:
        super().__init__(f'line {line}: "{text}": {why}')
        self.line = line
        self.text = text


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A whole game: players, date, mode, seed, start position, turns, and how it ended."""

    white: str
    black: str
    date: str
    mode: str
    seed: int | None
    start: Position
    turns: tuple[Turn, ...]
    termination: str
    """One of :data:`TERMINATIONS`."""
    result: str
    """One of :data:`RESULTS`."""
    time_control: str | None = None
    """A live game's clock as PGN says it (``"180+2"``); ``None``: no clock."""
    clocks: tuple[int | None, ...] = ()
    """With a time control: the mover's whole seconds left after each turn (``None``: a side
    without a clock, such as the AI)."""
    event: str | None = None
    """The tournament it was played in (PGN's ``[Event]``); ``None``: none."""
    round: int | None = None
    """Its round in that tournament (PGN's ``[Round]``)."""
    hints: int | None = None
    """A game that allowed hints (``[Hints]``): how many the player asked for; ``None``: a
    game without hints."""

    def positions(self) -> list[Position]:
        """The start position and the position after each turn."""
        positions = [self.start]
        for turn in self.turns:
            positions.append(positions[-1].apply(turn))
        return positions


def write_record(record: GameRecord) -> str:
    """The record as text (see the module's docstring)."""
    ornaments = " ".join(
        f"{'ABCDEFG'[location]}={ornament}"
        for location, ornament in enumerate(record.start.ornaments)
        if ornament
    )
    tags = {
        "Game": "Tholos",
        "White": record.white,
        "Black": record.black,
        "Date": record.date,
        "Mode": record.mode,
        "Ornaments": ornaments or "none",
        "Seed": "" if record.seed is None else str(record.seed),
        "Start": str(record.start),
        "Termination": record.termination,
        "Result": record.result,
    }
    if record.time_control is not None:
        tags["TimeControl"] = record.time_control
    if record.event is not None:
        tags["Event"] = record.event
    if record.round is not None:
        tags["Round"] = str(record.round)
    if record.hints is not None:
        tags["Hints"] = str(record.hints)
    lines = [f'[{key} "{_escape(value)}"]' for key, value in tags.items()]
    lines.append("")
    clocks = record.clocks or (None,) * len(record.turns)
    for ply, (turn, after, clock) in enumerate(
        zip(record.turns, record.positions()[1:], clocks, strict=True), start=1
    ):
        comment = "" if clock is None else f"  {{[%clk {_hms(clock)}]}}"
        lines.append(f"{ply}. {turn}  {after}{comment}")
    lines.append(f"{record.result} ({record.termination})")
    return "\n".join(lines) + "\n"


def read_record(text: str) -> GameRecord:
    """Parse and check a record turn by turn; raises :class:`RecordError` at the first line
    that is not a valid part of a legal game."""
    tags: dict[str, tuple[str, int, str]] = {}
    turns: list[Turn] = []
    clocks: list[int | None] = []
    position: Position | None = None
    ending: tuple[int, str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if ending is not None:
            raise RecordError(number, line, "nothing may follow the result line")
        if line.startswith("["):
            if len(line) > TAG_LENGTH:
                raise RecordError(
                    number, line[:60] + "...", f"a tag has at most {TAG_LENGTH} characters"
                )
            tag = _TAG.fullmatch(line)
            if tag is not None:
                if turns:
                    raise RecordError(number, line, "tags come before the turns")
                tags[tag[1]] = (_unescape(tag[2]), number, line)
                continue
        if position is None:
            position = _start(tags, number, line)
        line, clock = _clock(line)
        turn_line = _turn_line(line)
        if turn_line is None:
            if line.split(maxsplit=1)[0] in RESULTS:
                ending = (number, line)
                continue
            raise RecordError(number, line, "expected a turn such as '12. +w3  <position>'")
        position = _play(position, turns, turn_line, number, line)
        clocks.append(None if clock is None else _seconds(clock))
    if position is None:
        position = _start(tags, len(text.splitlines()), "")
    record = GameRecord(
        white=_tag(tags, "White"),
        black=_tag(tags, "Black"),
        date=_tag(tags, "Date"),
        mode=_tag(tags, "Mode"),
        seed=_seed(tags),
        start=Position.parse(_tag(tags, "Start")),
        turns=tuple(turns),
        termination=_tag(tags, "Termination"),
        result=_tag(tags, "Result"),
        time_control=tags["TimeControl"][0] if "TimeControl" in tags else None,
        clocks=tuple(clocks) if any(clock is not None for clock in clocks) else (),
        event=tags["Event"][0] if "Event" in tags else None,
        round=int(tags["Round"][0]) if tags.get("Round", ("",))[0].isdigit() else None,
        hints=int(tags["Hints"][0]) if tags.get("Hints", ("",))[0].isdigit() else None,
    )
    _check_end(record, position, tags, ending)
    return record


def _start(tags: dict[str, tuple[str, int, str]], number: int, line: str) -> Position:
    for name in ("White", "Black", "Date", "Mode", "Start", "Termination", "Result"):
        if name not in tags:
            raise RecordError(number, line, f"the header has no {name} tag")
    value, at, text = tags["Start"]
    try:
        start = Position.parse(value)
    except InvalidPositionError as error:
        raise RecordError(at, text, f"not a position: {error}") from None
    mode, at, text = tags["Mode"]
    if mode != start.mode:
        raise RecordError(at, text, f"the start position is a {start.mode} game")
    return start


def _clock(line: str) -> tuple[str, re.Match[str] | None]:
    """A turn line without its clock comment, and the comment (``None``: it has none). Read
    from the comment's start, so that a run of spaces costs its length once."""
    start = line.rfind(_CLOCK_START) if line.endswith("]}") else -1
    clock = _CLOCK.fullmatch(line, start) if start >= 0 else None
    return (line, None) if clock is None else (line[:start].rstrip(), clock)


def _turn_line(line: str) -> tuple[int, str, str | None] | None:
    """A turn line's ply, turn and position after it (``None``: it has none), as
    ``12. +w3  <position>``: split on white space, in one pass."""
    fields = line.split(maxsplit=2)
    if len(fields) < 2 or not _PLY.fullmatch(fields[0]):
        return None
    return int(fields[0][:-1]), fields[1], fields[2].strip() if len(fields) == 3 else None


def _play(
    position: Position,
    turns: list[Turn],
    found: tuple[int, str, str | None],
    number: int,
    line: str,
) -> Position:
    """Apply one turn line's turn to ``position``, checking its ply and the position after."""
    ply, written_turn, written_after = found
    if ply != len(turns) + 1:
        raise RecordError(number, line, f"expected turn {len(turns) + 1}")
    try:
        turn = parse_turn(written_turn)
        after = position.apply(turn)
    except (InvalidTurnError, IllegalTurnError) as error:
        raise RecordError(number, line, str(error)) from None
    if written_after is not None:
        try:
            written = Position.parse(written_after)
        except InvalidPositionError as error:
            raise RecordError(number, line, f"not a position: {error}") from None
        if written != after:
            raise RecordError(number, line, f"the position after this turn is {after}")
    turns.append(turn)
    return after


def _check_end(
    record: GameRecord,
    final: Position,
    tags: dict[str, tuple[str, int, str]],
    ending: tuple[int, str] | None,
) -> None:
    """The termination and result agree with the final position (and the result line)."""
    _, at, text = tags["Termination"]
    if record.termination not in TERMINATIONS:
        raise RecordError(at, text, f"the termination is one of {', '.join(TERMINATIONS)}")
    _, result_at, result_text = tags["Result"]
    if record.result not in RESULTS:
        raise RecordError(result_at, result_text, f"the result is one of {', '.join(RESULTS)}")
    if ending is not None and ending[1].split()[0] != record.result:
        raise RecordError(*ending, f"the header's result is {record.result}")
    outcome = score(final).outcome
    if record.termination in ("points", "columns", "tie"):
        if outcome is None:
            raise RecordError(at, text, "the game is not over after the last turn")
        expected = RESULT_NOTATION[outcome.result]
        if record.termination != outcome.reason or record.result != expected:
            white, black = outcome.points
            raise RecordError(
                result_at,
                result_text,
                # Plain ASCII, as the record itself (a hyphen minus: ``White -3``): the
                # checker's words go to terminals and tools, not to players in Discord.
                f"the final score (White {white}, Black {black}) gives {expected} by "
                f"{outcome.reason}",
            )
    elif record.termination in ("resignation", "timeout"):
        if record.result not in ("1-0", "0-1"):
            raise RecordError(result_at, result_text, "a resignation or timeout has a winner")
    elif record.result != "*":
        raise RecordError(result_at, result_text, "an aborted or unfinished game has no result")


def _tag(tags: dict[str, tuple[str, int, str]], name: str) -> str:
    return tags[name][0]


def _seed(tags: dict[str, tuple[str, int, str]]) -> int | None:
    value, at, text = tags.get("Seed", ("", 0, ""))
    if not value:
        return None
    if not value.isdigit():
        raise RecordError(at, text, "the seed is a whole number")
    return int(value)


def _hms(seconds: int) -> str:
    minutes, secs = divmod(max(0, seconds), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{secs:02d}"


def _seconds(clock: re.Match[str]) -> int:
    return int(clock[1]) * 3600 + int(clock[2]) * 60 + int(clock[3])


def _escape(value: str) -> str:
    """A tag's value on one line (every line break of ``str.splitlines`` a space), its quotes
    and backslashes escaped."""
    return _LINE_BREAK.sub(" ", value).replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)
