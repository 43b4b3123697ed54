"""Where a page's game is: the one played in the page's channel, else one played in a thread of
it — Discord may launch the Activity in the channel a game's thread started from — else none
(a lobby: the games of the channel's threads to open, the member's games elsewhere, the AI).

The session's channel, as Discord told it, decides which games a page may show, and of the games
of its threads only those its member may open (:mod:`bot.discord.visibility`: a private thread's are
its members'); the page's word decides nothing."""

from __future__ import annotations

import asyncio

from bot.base.game import Game
from bot.discord.app import App
from bot.i18n.catalogues import translator
from bot.storage.db import Database
from bot.storage.games.rows import GAME_COLUMNS, game_from_row
from bot.web.frames import palette
from bot.web.live import JSON, LiveBoards, Page, send, send_board, stored_int
from bot.web.pages import PageParts
from bot.web.sessions import Session
from bot.web.words import page_words
from bot.words.phrases import LEVEL_NAMES, board_url, level_name
from engine.record import RESULT_NOTATION

MOST_LISTED = 25
"""Games of a channel's threads a lobby lists at most (the newest)."""
MOST_FINISHED = 8
"""The member's finished games a lobby lists to analyse (the newest)."""


def with_the_bot(app: App, session: Session) -> bool:
    """Whether the page's channel is in a server the bot is a member of (as its gateway told
    this process), where it can post a game's boards. A DM or group DM between members, or a
    server that did not add the bot, is a place the bot can only answer: a game there moves
    on presses and on the page, and the page starts none against the AI (its turns could not
    be shown in Discord)."""
    return session.guild_id is not None and app.client.get_guild(session.guild_id) is not None


async def games_in_threads(database: Database, channel_id: int) -> list[Game]:
    """The active games played in threads of ``channel_id``, newest first."""
    rows = await database.fetchall(
        f"SELECT {GAME_COLUMNS} FROM games WHERE parent_id = ? AND status = 'active' "
        "ORDER BY id DESC LIMIT ?",
        (channel_id, MOST_LISTED),
    )
    return [game_from_row(row) for row in rows]


class Places:
    """Shows a page its game, or its lobby."""

    def __init__(self, app: App, boards: LiveBoards, parts: PageParts) -> None:
        self.app = app
        self.boards = boards
        self.parts = parts
        """The features' parts of the page (what they add to a lobby)."""
        self.visibility = app.visibility
        """Who may open a game (asked of Discord)."""
        boards.relist = self.lobby

    async def welcome(self, page: Page) -> None:
        """Tell the page who its member is and its words."""
        session, t = page.session, translator(page.language)
        await send(
            page.socket,
            {
                "type": "welcome",
                "user": str(session.user_id),
                "name": session.name,
                "language": page.language,
                "words": page_words(t, self.parts.words),
                "palette": palette(),
            },
        )

    async def home(self, page: Page) -> None:
        """Show the page the game of its channel; else the one game of its member in the
        channel's threads; else its lobby."""
        session = page.session
        game = await self.app.stores.games.active_game(session.channel_id)
        if game is not None:
            self.boards.watch(page, game)
            await send_board(self.app, game, [page])
            return
        here = await self._in_threads(page)
        mine = [game for game in here if page.plays(game)]
        if len(mine) == 1:
            await self.show(page, mine[0])
            return
        await self.lobby(page, here)

    async def show(self, page: Page, game: Game) -> None:
        """Show ``game`` (of the page's channel or one of its threads) on the page."""
        self.boards.watch(page, game)
        listed = game.channel_id != page.session.channel_id
        await send(page.socket, {"type": "opened", "game": game.id, "listed": listed})
        await send_board(self.app, game, [page])

    async def open(self, page: Page, game_id: object) -> bool:
        """The page asks to show a game: shown if it is played in the session's channel or in
        a thread of it that its member may open; ``False`` (refused, as for a game that does
        not exist) for any other."""
        found = stored_int(game_id)
        session = page.session
        games = self.app.stores.games
        game = None if found is None else await games.places.game_in(found, session.channel_id)
        if game is None or session.channel_id not in (game.channel_id, game.parent_id):
            return False
        if not await self.visibility.can_see(game, session.user_id):
            return False
        await self.show(page, game)
        return True

    async def lobby(self, page: Page, here: list[Game] | None = None) -> None:
        """No game here: the member's finished games (to analyse), what the features add (where
        the member is in the course), the games in the threads of the page's channel (to open),
        the member's games on the server (with links), and the AI's levels."""
        session = page.session
        if here is None:
            here = await self._in_threads(page)
        guild = session.guild_id
        games = []
        if guild is not None:
            listed = await self.app.stores.listings.playing_page(guild, session.user_id, 0, 10)
            games = [game for game in listed if page.plays(game)]
        t = translator(page.language)
        levels = list(LEVEL_NAMES) if with_the_bot(self.app, session) else []
        await send(
            page.socket,
            {
                "type": "lobby",
                "finished": [_listed(game, session.user_id) for game in await self._finished(page)],
                **await self.parts.lobby(page),
                "here": [_listed(game, session.user_id) for game in here],
                "games": [
                    {**_listed(game, session.user_id), "url": board_url(game)} for game in games
                ],
                "levels": [{"level": level, "label": level_name(t, level)} for level in levels],
            },
        )
        self.boards.wait(page)

    async def _in_threads(self, page: Page) -> list[Game]:
        """The active games of the threads of the page's channel that its member may open."""
        here = await games_in_threads(self.app.database, page.session.channel_id)
        user = page.session.user_id
        seen = await asyncio.gather(*(self.visibility.can_see(game, user) for game in here))
        return [game for game, sees in zip(here, seen, strict=True) if sees]

    async def _finished(self, page: Page) -> list[Game]:
        """The member's newest finished games to analyse: on the page's server, or in this
        direct message."""
        session = page.session
        if session.guild_id is None:
            return await self.app.stores.listings.recent_finished(
                session.channel_id, session.user_id, MOST_FINISHED
            )
        return await self.app.stores.listings.finished_page(
            session.guild_id, session.user_id, 0, MOST_FINISHED
        )


def _listed(game: Game, user_id: int) -> JSON:
    """A game as a lobby lists it."""
    return {
        "id": game.id,
        "white": game.white_name,
        "black": game.black_name,
        "yours": game.colour_of(user_id) is not None,
        "your_turn": game.to_move == user_id,
        "result": None if game.outcome is None else RESULT_NOTATION[game.outcome.result],
    }
