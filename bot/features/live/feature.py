"""The live board as a feature: its web server (only with ``THOLOS_WEB_PORT`` and the client
secret), started with the bot and stopped with it, serving the features' parts of the page; and
the Entry Point command, when a host set its handler to the app's (see
:mod:`bot.features.live.entry_point`)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.discord.answers import Interaction, answers, launch_live_board
from bot.discord.app import App
from bot.discord.feature import Feature
from bot.features.live.entry_point import is_entry_point
from bot.web.pages import PagePart
from bot.web.server import WebServer


class LiveBoard(Feature):
    """Serves the live board (where configured) and answers the Entry Point command."""

    server: WebServer | None = None

    def __init__(self, app: App, parts: Sequence[PagePart]) -> None:
        super().__init__(app)
        self.parts = parts
        """The other features' parts of the page (their page messages)."""

    @property
    def live(self) -> bool:
        """Whether this process serves the live board."""
        return self.server is not None

    async def start(self) -> None:
        settings = self.app.settings
        if settings.web_port is None or settings.client_secret is None:
            return
        self.server = WebServer(self.app, settings.client_secret, self.parts)
        await self.server.start(settings.web_host, settings.web_port)

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop()

    async def check(self, interaction: Interaction) -> bool:
        """``False`` (answered here, the command tree goes no further) for the Entry Point,
        ``True`` for every other command."""
        if not is_entry_point(interaction):
            return True
        await self.launch(interaction)
        return False

    @answers()
    async def launch(self, interaction: Interaction) -> None:
        """Launch the Activity where the member used the Entry Point."""
        await launch_live_board(interaction, self.live)
