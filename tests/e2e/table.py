"""Playing Tholos through the emulator as members do: commands, then clicks on the real buttons."""

from __future__ import annotations

import re
from typing import Any

from engine import Position, Turn
from engine.builder import TurnBuilder, chosen_path
from engine.presses import choices, presses
from tests.e2e.emulator import Channel, Emulator, Guild, Interaction, Member, Message

_MENTION = re.compile(r"<@(\d+)>")
HEADER, IMAGE, STATUS, FOOTER = 2, 3, 4, 5
BOARD_IMAGE = re.compile(r"tholos-\d+-\d+\.png")
"""A game board's image name: its game and version."""
"""The ids of a board layout's parts (``bot.discord.layout.BoardPart``)."""


def board_part(message: Message, part: int) -> str:
    """The text of a board layout's part (HEADER, STATUS or FOOTER)."""
    found = [c.get("content", "") for c in message.all_components() if c.get("id") == part]
    assert len(found) == 1, f"no part {part} in {message.components}"
    return found[0]


def is_board(message: Message) -> bool:
    """Whether ``message`` is a board: a V2 layout whose container holds the board image in a
    media gallery (the attachment it uploaded), and the position in small print."""
    if not message.flags & (1 << 15) or message.content or message.embeds:
        return False
    container = message.components[0] if len(message.components) == 1 else {}
    parts = [c.get("id") for c in container.get("components", [])]
    return (
        container.get("type") == 17
        and parts[:3] == [HEADER, IMAGE, STATUS]
        and parts[-1] == FOOTER
        and len(message.attachments) == 1
    )


def path_of(position: Position, turn: Turn | str) -> str:
    """The step buttons' tokens that play ``turn`` (or its notation) in ``position``."""
    found = [t for t in position.legal_turns() if t == turn or str(t) == str(turn)]
    assert found, f"{turn} is not legal in {position}"
    return "".join(chosen_path(position, found[0]))


def press_paths(position: Position, path: str) -> list[str]:
    """The paths of the presses that build ``path`` (a turn's, or a press's) in ``position``,
    first press first (:func:`engine.presses.presses`)."""
    return ["".join(press) for press in presses(position, tuple(path))]


def a_step_press(position: Position) -> str | None:
    """The first press of ``position``'s turn that is not a whole turn (a step: the board asks
    on), or ``None`` if every first press completes one."""
    return next(
        (
            "".join(press)
            for press in choices(position)
            if TurnBuilder(position, press).turn is None
        ),
        None,
    )


def board_position(board: Message) -> Position:
    """The position a board shows (its small print: ``-# Ply 12 · <position>``)."""
    return Position.parse(board_part(board, FOOTER).split(" · ", 1)[1])


class Table:
    """One channel of the emulator (a name in ``guild``, default the first guild, or a Channel:
    a text channel or a thread — or a DM or group DM between members), seen by the players of
    a Tholos game."""

    def __init__(
        self, emulator: Emulator, channel: str | Channel = "general", guild: Guild | None = None
    ) -> None:
        self.emu = emulator
        self.guild: Guild | None
        if isinstance(channel, Channel):
            self.guild = emulator.world.guild_of(channel)  # None: a DM or group DM
            self.channel = channel
        else:
            self.guild = guild or emulator.guild
            self.channel = emulator.channel(channel, self.guild)
        self.made: list[Interaction] = []

    def in_thread(self, thread: Channel) -> Table:
        """The same players at ``thread`` (a thread of this guild): a Table whose channel it is."""
        assert thread.is_thread, f"#{thread.name} is not a thread"
        assert self.guild is not None and thread.guild_id == self.guild.id, (
            f"{thread.name!r} is a thread of another guild"
        )
        return Table(self.emu, thread)

    def people_named(self, *names: str) -> tuple[Member, ...]:
        """The members with these user names."""
        return tuple(self.emu.member(name) for name in names)

    # -- reading ----------------------------------------------------------------------------------

    def boards(self) -> list[Message]:
        """The board messages (a V2 layout with the board image), oldest first, as everyone
        sees them."""
        return [m for m in self.emu.messages(self.channel) if is_board(m)]

    @property
    def board(self) -> Message:
        """The newest board."""
        boards = self.boards()
        assert boards, "no board posted"
        return boards[-1]

    def position(self, board: Message | None = None) -> Position:
        """The position a board shows (its small print ends with the canonical position)."""
        return board_position(board or self.board)

    def status(self, board: Message | None = None) -> str:
        """A board's status text (whose turn and the prompt, or the result); the newest's."""
        return board_part(board or self.board, STATUS)

    def header(self, board: Message | None = None) -> str:
        """A board's header (players, mode, ornaments, last turn); the newest's."""
        return board_part(board or self.board, HEADER)

    def mover(self, board: Message | None = None) -> Member:
        """The member the board of a game being played asks to move."""
        status = board_part(board or self.board, STATUS)
        match = _MENTION.match(status)
        assert match, f"no player to move in {status!r}"
        return next(m for m in self.emu.world.people.values() if m.id == int(match[1]))

    def custom_id(self, message: Message, ending: str) -> str:
        """The custom_id of the button on ``message`` whose id ends with ``ending``."""
        found = [b["custom_id"] for b in message.buttons if b["custom_id"].endswith(ending)]
        assert len(found) == 1, f"{ending!r} among {[b['custom_id'] for b in message.buttons]}"
        return found[0]

    def labelled(self, message: Message, label: str) -> str:
        """The custom_id of the button labelled ``label``."""
        found = [b["custom_id"] for b in message.buttons if b.get("label") == label]
        assert len(found) == 1, f"{label!r} among {[b.get('label') for b in message.buttons]}"
        return found[0]

    def ephemeral(self, member: Member) -> list[str]:
        """The texts of the ephemeral messages ``member`` sees here."""
        return [m.text for m in self.emu.messages(self.channel, member) if m.ephemeral]

    async def private_file(self, member: Member) -> Message:
        """Wait for the first private message with a file that ``member`` sees here (a replay,
        which the bot draws a while after the press)."""

        def found() -> Message | None:
            return next(
                (
                    m
                    for m in self.emu.messages(self.channel, member)
                    if m.ephemeral and m.attachments
                ),
                None,
            )

        await self.emu.wait_for(lambda: found() is not None, what="a private file")
        message = found()
        assert message is not None
        return message

    def failed(self) -> list[Interaction]:
        """Interactions made here that a member saw fail."""
        return [ix for ix in self.made if ix.failed]

    def assert_clean(self) -> None:
        """No interaction failed and the emulator recorded no rule violation."""
        assert self.failed() == [] and self.emu.violations == [], (
            self.failed(),
            self.emu.violations,
        )

    # -- acting -----------------------------------------------------------------------------------

    async def slash(self, member: Member, command: str, **options: Any) -> Interaction:
        """``member`` runs ``/command`` here."""
        ix = await self.emu.slash(member, command, channel=self.channel, **options)
        self.made.append(ix)
        return ix

    async def autocomplete(
        self, member: Member, command: str, focused: str, value: str | float = "", **options: Any
    ) -> Interaction:
        """``member`` types ``value`` into the autocomplete option ``focused`` of ``/command``
        here (``options``: those typed so far); the bot's suggestions are in ``ix.choices``."""
        ix = await self.emu.autocomplete(
            member, command, channel=self.channel, focused=focused, value=value, **options
        )
        self.made.append(ix)
        return ix

    async def click(
        self, member: Member, message: Message, custom_id: str, **kwargs: Any
    ) -> Interaction:
        """``member`` clicks a button."""
        ix = await self.emu.click(member, message, custom_id, **kwargs)
        self.made.append(ix)
        return ix

    async def click_path(
        self, member: Member, board: Message, path: str, *, wait: bool = True
    ) -> Interaction:
        """``member`` clicks the step buttons that build ``path`` on ``board``, one a press
        (:func:`press_paths`); ``wait`` applies to the last click."""
        *before, last = press_paths(board_position(board), path)
        for press in before:
            await self.click(member, board, self.custom_id(board, f":{press}:n"))
        return await self.click(member, board, self.custom_id(board, f":{last}:n"), wait=wait)

    async def start_game(self, white: Member, black: Member, **options: Any) -> Message:
        """``white`` challenges ``black`` (White, moving first), ``black`` accepts; the board."""
        count = len(self.boards())
        ix = await self.slash(
            white, "tholos challenge", opponent=black, colour="white", first="me", **options
        )
        assert ix.original is not None, "the challenge is the command's answer"
        await self.click(black, ix.original, self.custom_id(ix.original, ":accept"))
        await self.emu.wait_for(lambda: len(self.boards()) > count, what="the game's first board")
        return self.board

    async def start_game_in_thread(self, white: Member, black: Member, **options: Any) -> Table:
        """As :meth:`start_game`, on a server with a thread per game: the table of the game's
        thread, once its first board is there."""
        ix = await self.slash(
            white, "tholos challenge", opponent=black, colour="white", first="me", **options
        )
        challenge = ix.original
        assert challenge is not None, "the challenge is the command's answer"
        await self.click(black, challenge, self.custom_id(challenge, ":accept"))

        def first_board() -> bool:
            thread = self.emu.thread_of(challenge)
            return thread is not None and bool(Table(self.emu, thread).boards())

        await self.emu.wait_for(first_board, what="the first board in the game's thread")
        thread = self.emu.thread_of(challenge)
        assert thread is not None
        return self.in_thread(thread)

    async def play(self, turn: Turn | str, *, board: Message | None = None) -> Message:
        """The player to move plays ``turn`` by clicking its steps; returns the new board."""
        board = board or self.board
        count = len(self.boards())
        await self.click_path(self.mover(board), board, path_of(self.position(board), turn))
        await self.emu.wait_for(lambda: len(self.boards()) > count, what=f"the board after {turn}")
        return self.board
