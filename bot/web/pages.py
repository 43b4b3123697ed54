"""What the features plug into the live page: each feature's :class:`PagePart` answers the page
messages it names, may add to a page's lobby and show a page something of its own as it opens.
The web server knows no feature: the composition root hands it their parts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from bot.web.live import JSON, LiveBoards, Page
from bot.web.words import PAGE


class PagePart:
    """A feature's part of the live page (its web face). The server hands it its pages
    (:meth:`start`) before any page opens."""

    types: frozenset[str] = frozenset()
    """The page messages it answers, by their ``type``."""
    words: Mapping[str, str] = MappingProxyType({})
    """Its labels and notices on the page, by key (marked ``N_``): sent with the page's own."""
    boards: LiveBoards
    """Every open page of this process (the server's, from :meth:`start`)."""

    async def start(self, boards: LiveBoards) -> None:
        """The server starts: its pages are ``boards``."""
        self.boards = boards

    async def stop(self) -> None:
        """The server stops."""

    async def answer(self, page: Page, data: JSON) -> None:
        """One of its messages (``data["type"]`` is one of :attr:`types`)."""
        raise NotImplementedError

    async def opening(self, page: Page) -> bool:
        """Show a page that just opened something of its own instead of its home (``True``:
        shown)."""
        return False

    async def lobby(self, page: Page) -> JSON:
        """What it adds to the page's lobby frame."""
        return {}


class PageParts:
    """The features' parts of the live page, by the messages they answer."""

    def __init__(self, parts: Sequence[PagePart]) -> None:
        self.parts = tuple(parts)
        self._by_type: dict[str, PagePart] = {}
        self.words: dict[str, str] = {}
        """The parts' words on the page, by key."""
        for part in self.parts:
            for kind in part.types:
                if kind in self._by_type:
                    raise ValueError(f"two parts answer {kind!r}")
                self._by_type[kind] = part
            for key, text in part.words.items():
                if key in PAGE or key in self.words:
                    raise ValueError(f"two page words are called {key!r}")
                self.words[key] = text

    def answering(self, kind: str) -> PagePart | None:
        """The part that answers messages of type ``kind``, if any."""
        return self._by_type.get(kind)

    async def start(self, boards: LiveBoards) -> None:
        for part in self.parts:
            await part.start(boards)

    async def stop(self) -> None:
        for part in self.parts:
            await part.stop()

    async def opening(self, page: Page) -> bool:
        """Whether a part showed the page that just opened something of its own."""
        for part in self.parts:
            if await part.opening(page):
                return True
        return False

    async def lobby(self, page: Page) -> JSON:
        """What the parts add to the page's lobby frame."""
        added: JSON = {}
        for part in self.parts:
            added |= await part.lobby(page)
        return added
