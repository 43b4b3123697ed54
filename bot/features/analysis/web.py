"""The analysis board on the live page, for the member alone: a finished game they can see (or a
position they pasted) to step through, with the review's expected result of each position and its
mistakes; any legal turn tried from any position as a side line; the engine's best turn.

The page keeps the line it is on; the server answers each position it asks for with that
position's board (every step of every legal turn, for either side) and each turn tried with the
position it leads to. Nothing is stored as a game and nothing is rated; a game without a review is
queued for one (the page asks how far it is, ``REVIEW_POLL_MS`` in the page's
``app.js``)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Final

from bot.base.game import Game
from bot.base.refusals import Refusal
from bot.discord.app import App
from bot.fair_play.guard import FairPlay
from bot.features.analysis.store import PAGE_REQUESTS_TOPIC, PageRequestStore
from bot.features.hints import named, why
from bot.features.reviews import ReviewRecord, ReviewStore
from bot.i18n.catalogues import translator
from bot.loops import work
from bot.web.frames import board_frame, geometries
from bot.web.live import JSON, PATH, LiveBoards, Page, error, plain, refused, send, stored_int
from bot.web.pages import PagePart
from bot.web.places import with_the_bot
from bot.words.board import board_of
from bot.words.phrases import colour_name
from bot.words.steps import turn_steps
from engine import BLACK, WHITE, IllegalTurnError, InvalidPositionError, Position, parse_turn
from engine.builder import TurnBuilder, chosen_path
from engine.puzzles import game_positions
from engine.review import GameReview
from engine.vocabulary import N_
from rendering.describe import turn_text
from rendering.translator import Translator

POSITION_LIMIT = 400
"""Characters a position string may have (the longest real one has about 80)."""
NOT_A_POSITION = N_("That is not a position string: copy one from a board's small print.")
GAME_OVER_HERE = N_("The game is over in this position: there is no turn to search.")


WORDS: Final = {
    "analyse_title": N_("Analyse a finished game"),
    "analyse": N_("Analyse"),
    "paste_position": N_("Paste a position string to analyse it"),
    "first": N_("First position"),
    "previous": N_("Previous turn"),
    "next": N_("Next turn"),
    "last": N_("Last position"),
    "best_turn": N_("Best turn"),
    "try_it": N_("Try it on the board"),
    "copy_position": N_("Copy the position"),
    "copied": N_("Copied"),
    "selected": N_("Selected: copy it"),
    "back_to_game": N_("Back to the game"),
    "game_start": N_("The game's first position."),
    "pasted": N_("The position you pasted."),
    "mistake": N_("A mistake: the AI preferred {turn}."),
    "side_line": N_("Side line"),
    "expected": N_("The AI expects"),
    "not_evaluated": N_("Side line: not reviewed"),
    "reviewing": N_("The AI is reviewing this game: {done} of {total} positions…"),
    "review_failed": N_("The AI could not review this game."),
}
"""The analysis board's labels and notices on the page, by key."""


class AnalysisPages(PagePart):
    """A page's analysis board; a page that opens where its member asked from Discord to
    analyse a game shows it."""

    types = frozenset(
        {"analyse", "analysis_board", "analysis_turn", "analysis_best", "analysis_review"}
    )
    words = WORDS

    def __init__(self, app: App, requests: PageRequestStore, reviews: ReviewStore) -> None:
        self.app = app
        self.requests = requests
        self.board = AnalysisBoard(app, reviews)
        self._stop_hearing: Callable[[], None] | None = None

    async def start(self, boards: LiveBoards) -> None:
        """Hear the games members ask to analyse from Discord (their open pages show them)."""
        await super().start(boards)
        self._stop_hearing = await self.app.database.listen(PAGE_REQUESTS_TOPIC, self._heard)

    async def stop(self) -> None:
        if self._stop_hearing is not None:
            self._stop_hearing()

    def _heard(self, payload: str | None) -> None:
        """A member asked to analyse a game in a channel (``<user>:<channel>``): their pages
        open there show it."""
        if payload is None:
            return
        for page in self.boards.every_page():
            session = page.session
            if payload == f"{session.user_id}:{session.channel_id}":
                work.start(self.opening(page))

    async def answer(self, page: Page, data: JSON) -> None:
        """One message of the analysis board; a malformed one is refused, a refusal said."""
        t = translator(page.language)
        if data["type"] == "analyse":
            self.boards.leave(page)
        try:
            frame = await self.board.frame(page, t, data)
        except Refusal as refusal:
            await send(page.socket, refused(t, refusal))
            return
        await send(page.socket, frame if frame is not None else error(t, "malformed"))

    async def opening(self, page: Page) -> bool:
        """Show the game the member asked from Discord to analyse where this page is open, if
        they did (the ask is taken: shown once)."""
        user, channel = page.session.user_id, page.session.channel_id
        game_id = await self.requests.take(user, channel, time.time())
        if game_id is not None:
            await self.answer(page, {"type": "analyse", "game": game_id})
        return game_id is not None


class AnalysisBoard:
    """The analysis board's frames: what a page's message asks for."""

    def __init__(self, app: App, reviews: ReviewStore) -> None:
        self.app = app
        self.reviews = reviews
        self.fair_play = FairPlay(app.database)
        self.visibility = app.visibility
        """Who may open a game (asked of Discord: the page's word decides nothing)."""

    async def frame(self, page: Page, t: Translator, data: JSON) -> JSON | None:
        """The frame answering one message of the analysis board (``None``: malformed);
        raises :class:`Refusal`."""
        kind = data["type"]
        if kind == "analyse":
            return await self._analyse(page, t, data)
        if kind == "analysis_review":
            return await self._review(page, data.get("game"))
        if kind == "analysis_best":
            return await self._best(page, t, _position(data.get("position")))
        return await self._board(page, t, data)

    async def _analyse(self, page: Page, t: Translator, data: JSON) -> JSON | None:
        """A game's whole line (its positions, turns and review), or a pasted position's."""
        if data.get("position") is not None:
            position = _position(data["position"])
            names = [colour_name(t, WHITE), colour_name(t, BLACK)]
            line = {"game": None, "names": names, "positions": [str(position)], "turns": []}
            return {"type": "analysis", **line, "title": t("Analysis"), "review": None}
        game = await self._visible(page, data.get("game"))
        turns = [parse_turn(record.turn) for record in await self.app.stores.games.turns(game.id)]
        positions = [position for _, position in game_positions(game.start_position, turns)]
        return {
            "type": "analysis",
            "game": game.id,
            "title": f"{game.white_name} – {game.black_name}",
            "names": [game.white_name, game.black_name],
            "positions": [str(position) for position in positions],
            "turns": [
                {"notation": str(turn), "text": turn_text(turn, game.name(before.turn), t)}
                for turn, before in zip(turns, positions, strict=False)
            ],
            "review": await self._review_of(page, game),
        }

    async def _review(self, page: Page, game_id: object) -> JSON:
        """How far the review of a game is, or the review."""
        game = await self._visible(page, game_id)
        return {"type": "review", "game": game.id, "review": await self._review_of(page, game)}

    async def _review_of(self, page: Page, game: Game) -> JSON | None:
        """The review of ``game`` as the page shows it; a game with turns and no review is
        queued for one (``None``: a game without turns)."""
        if not game.plies:
            return None
        record = await self.reviews.review(game.id)
        if record is None:
            record, _ = await self.reviews.request(
                game.id,
                game.guild_id,
                game.channel_id,
                page.session.user_id,
                time.time(),
                game.plies + 1,
            )
        return review_json(record, translator(page.language))

    async def _board(self, page: Page, t: Translator, data: JSON) -> JSON | None:
        """A position's board (``analysis_board``), or the board after a turn tried from it
        (``analysis_turn``, a whole turn's path), named after the game's players if any."""
        position = _position(data.get("position"))
        names = await self._names(page, t, data.get("game"))
        if data["type"] == "analysis_board":
            return analysis_board(t, position, names, page.session.user_id)
        path = data.get("path")
        if not isinstance(path, str) or not PATH.fullmatch(path):
            return None
        try:
            turn = TurnBuilder(position, tuple(path)).turn
        except IllegalTurnError:
            return None
        if turn is None:
            return error(t, "incomplete")
        frame = analysis_board(t, position.apply(turn), names, page.session.user_id)
        mover = names[position.turn]
        frame["tried"] = {
            "from": str(position),
            "notation": str(turn),
            "text": turn_text(turn, mover, t),
        }
        return frame

    async def _best(self, page: Page, t: Translator, position: Position) -> JSON:
        """The engine's best turn in ``position`` (the hints' search), and why."""
        if position.is_over():
            raise Refusal(GAME_OVER_HERE)
        await self.fair_play.check(position, page.session.user_id)
        found = await self.app.adviser.hint(position, 0, member=page.session.user_id)
        return {
            "type": "best",
            "position": str(position),
            "notation": str(found.turn),
            "path": "".join(chosen_path(position, found.turn)),
            "text": plain(named(t, position.turn, found.turn) + "\n" + why(t, found)),
        }

    async def _names(self, page: Page, t: Translator, game_id: object) -> list[str]:
        """The players' names of the game analysed (``None``: the colours')."""
        if game_id is None:
            return [colour_name(t, WHITE), colour_name(t, BLACK)]
        game = await self._visible(page, game_id)
        return [game.white_name, game.black_name]

    async def _visible(self, page: Page, game_id: object) -> Game:
        """The finished game ``game_id`` if the member may open it (a game of the page's server
        they play in or whose channel they can see, or of this channel where the bot is not:
        :mod:`bot.discord.visibility`); raises :class:`Refusal`, as for a game that does not
        exist, for any other."""
        found = stored_int(game_id)
        game = None if found is None else await self.app.stores.games.game(found)
        session = page.session
        server = session.guild_id if with_the_bot(self.app, session) else None
        return await self.visibility.finished_game(
            game, server, session.channel_id, session.user_id
        )


def _position(text: object) -> Position:
    """The position a page sent; raises :class:`Refusal` if it is not one."""
    if not isinstance(text, str) or len(text) > POSITION_LIMIT:
        raise Refusal(NOT_A_POSITION)
    try:
        return Position.parse(" ".join(text.split()))  # spaces as they come
    except InvalidPositionError:
        raise Refusal(NOT_A_POSITION) from None


def analysis_game(position: Position, names: list[str], user_id: int) -> Game:
    """``position`` as a game the member (``user_id``) plays on both sides: any legal turn is
    theirs to try; over where the position is."""
    outcome = position.outcome()
    return Game(
        white_id=user_id,
        black_id=user_id,
        white_name=names[WHITE],
        black_name=names[BLACK],
        mode=position.mode,
        start_position=position,
        position=position,
        status="active" if outcome is None else "finished",
        outcome=outcome,
    )


def analysis_board(t: Translator, position: Position, names: list[str], user_id: int) -> JSON:
    """The frame of ``position`` on the analysis board: a game's board, its small print the
    position string, the steps of every legal turn for the side to move."""
    game = analysis_game(position, names, user_id)
    board = board_of(game, t, who=lambda _: names[position.turn])
    board = dataclasses.replace(board, small_print=str(position))
    steps = turn_steps(game, t) if game.is_active else None
    frame = board_frame(board, t, steps, time.time())
    frame["geometries"] = geometries(position)
    frame["analysis"] = True
    return frame


def review_json(record: ReviewRecord, t: Translator) -> JSON:
    """A review as the page shows it: how far it is; once done, White's expected result in
    every position of the game and the turns that lost it (with the better turn)."""
    shown: JSON = {"status": record.status, "done": record.done, "total": record.total}
    if record.status != "done" or record.review is None:
        return shown
    review = GameReview.from_json(record.review)
    shown["chart"] = list(review.chart)
    shown["mistakes"] = [
        {
            "index": turn.ply - 1,
            "loss": round(turn.loss, 4),
            "best": str(turn.best),
            "best_text": turn_text(turn.best, colour_name(t, turn.player), t),
        }
        for turn in review.turns
        if not turn.kept
    ]
    return shown
