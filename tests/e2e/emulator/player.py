"""A random player: members clicking, picking and typing whatever Discord's client lets them."""

from __future__ import annotations

import random
import string
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from .api import Emulator
from .commands import (
    ATTACHMENT,
    BOOLEAN,
    CHANNEL,
    INTEGER,
    MENTIONABLE,
    NUMBER,
    ROLE,
    STRING,
    USER,
    refusal,
)
from .interactions import Interaction
from .messages import Message
from .model import USE_APPLICATION_COMMANDS, Channel, Member
from .rules import walk_components

Options = Mapping[str, Any] | Callable[[Member], Mapping[str, Any]]


class RandomPlayer:
    """Plays ``members`` in ``channel`` at random, reproducibly for a given ``seed``.

    Each step either runs a slash command or uses an enabled component of one of the last
    messages with controls the acting member sees, in the channel or in one of its threads that
    is not locked (the last ``recent`` of each), and fills in any modal it opens. The commands are
    ``commands`` (``(command, options)``, options possibly computed from the acting member) or,
    by default, any registered command the member may use, with random valid options. With
    ``settle`` (e.g. ``BotProcess.settle``), each step waits for the bot to be done, as a person
    would look at the result before clicking again. ``history`` tells what happened, for failure
    messages.
    """

    def __init__(
        self,
        emulator: Emulator,
        members: Sequence[Member],
        channel: Channel,
        *,
        seed: int,
        commands: Sequence[tuple[str, Options]] | None = None,
        command_rate: float = 0.1,
        recent: int = 3,
        settle: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        self.emulator = emulator
        self.members = list(members)
        self.channel = channel
        self.commands = commands
        self.command_rate = command_rate
        self.recent = recent
        self.settle = settle
        self.rng = random.Random(seed)
        self.history: list[str] = []
        self.guild = emulator.world.guild_of(channel) or emulator.guild

    async def play(self, steps: int) -> list[Interaction]:
        """Take ``steps`` steps; return the interactions they made."""
        made: list[Interaction] = []
        for _ in range(steps):
            made += await self.step()
            if self.settle is not None:
                await self.settle()
        return made

    async def step(self) -> list[Interaction]:
        """One action by a random member (and the modal it opened, if any)."""
        member = self.rng.choice(self.members)
        usable = [pair for channel in self._places() for pair in self._controls(channel, member)]
        if not usable or self.rng.random() < self.command_rate:
            picked = self._command(member)
            if picked is None:
                return []
            command, options = picked
            shown = {k: getattr(v, "id", v) for k, v in options.items()}
            self._note(member, f"ran /{command} {shown}")
            return [
                await self.emulator.slash(member, command, channel=self.channel, options=options)
            ]
        message, component = self.rng.choice(usable)
        return await self._use_and_fill(member, message, component)

    async def use(self, member: Member, message: Message, custom_id: str) -> list[Interaction]:
        """``member`` uses the control ``custom_id`` of ``message`` as a step that picked it
        would (random values in a select, a modal it opens filled in at random): for a test
        that needs the player to have done something rather than hope it does."""
        component = message.component(custom_id)
        assert component is not None, f"no {custom_id} on message {message.id}"
        return await self._use_and_fill(member, message, component)

    async def _use_and_fill(
        self, member: Member, message: Message, component: dict[str, Any]
    ) -> list[Interaction]:
        ix = await self._use(member, message, component)
        if ix.modal is None:
            return [ix]
        values = self._fill(ix.modal)
        self._note(member, f"submitted modal {ix.modal.get('custom_id')} with {values}")
        return [ix, await self.emulator.submit_modal(member, ix, values)]

    def _places(self) -> list[Channel]:
        """The channel, then its threads that members can still use (not locked)."""
        found = [t for t in self.emulator.threads(self.channel) if not t.locked]
        return [self.channel, *found]

    def _controls(self, channel: Channel, member: Member) -> list[tuple[Message, dict[str, Any]]]:
        """The usable components of the last ``recent`` messages with controls in ``channel``
        that ``member`` sees."""
        with_controls = [
            [(message, c) for c in message.all_components() if _usable(c)]
            for message in self.emulator.messages(channel, viewer=member)
        ]
        return [pair for pairs in [p for p in with_controls if p][-self.recent :] for pair in pairs]

    def _command(self, member: Member) -> tuple[str, Mapping[str, Any]] | None:
        if self.commands is not None:
            if not self.commands:
                return None
            command, options = self.rng.choice(self.commands)
            return command, options(member) if callable(options) else options
        allowed = self.guild.permissions_in(self.channel, member.id)
        leaves: list[tuple[list[str], list[dict[str, Any]]]] = []
        local = self.emulator.commands(guild=self.guild) if self.channel.guild_id else []
        world, app = self.emulator.world, self.emulator.state.application
        for schema in local + self.emulator.commands(guild=False):
            needed = int(schema.get("default_member_permissions") or 0) | USE_APPLICATION_COMMANDS
            offered = refusal(
                schema,
                in_guild=self.channel.guild_id is not None,
                shares_guild=world.shares_guild(member.id),
                user_installed=app.installed_by(member.id),
            )
            if schema.get("type", 1) == 1 and not needed & ~allowed and offered is None:
                _leaves([schema["name"]], schema, leaves)
        if not leaves:
            return None
        path, options = self.rng.choice(leaves)
        chosen = {
            o["name"]: self._value(o)
            for o in options
            if o.get("required") or self.rng.random() < 0.5
        }
        return " ".join(path), chosen

    def _value(self, option: dict[str, Any]) -> Any:
        """A random value a member could enter for ``option``."""
        kind, rng, guild = option["type"], self.rng, self.guild
        if option.get("choices"):
            return rng.choice(option["choices"])["value"]
        if kind == STRING:
            low = max(option.get("min_length", 1), 1)
            size = rng.randint(low, max(low, min(option.get("max_length", 12), 12)))
            return "".join(rng.choices(string.ascii_lowercase, k=size))
        if kind in (INTEGER, NUMBER):
            low, high = option.get("min_value"), option.get("max_value")
            low = low if low is not None else (high - 10 if high is not None else 0)
            high = high if high is not None else low + 10
            return rng.randint(int(low), int(high)) if kind == INTEGER else rng.uniform(low, high)
        if kind == BOOLEAN:
            return rng.random() < 0.5
        if kind == CHANNEL:
            types = option.get("channel_types") or [0]
            return rng.choice([c for c in guild.channels.values() if c.type in types])
        candidates: dict[int, list[Any]] = {
            USER: list(guild.members.values()),
            ROLE: list(guild.roles.values()),
            MENTIONABLE: [*guild.members.values(), *guild.roles.values()],
            ATTACHMENT: [("random.bin", rng.randbytes(16))],
        }
        return rng.choice(candidates[kind])

    async def _use(
        self, member: Member, message: Message, component: dict[str, Any]
    ) -> Interaction:
        custom_id = component["custom_id"]
        kind = component.get("type")
        if kind == 2:
            self._note(member, f"clicked {component.get('label')!r} ({custom_id}) on {message.id}")
            return await self.emulator.click(member, message, custom_id)
        low, high = component.get("min_values", 1), component.get("max_values", 1)
        choices: list[Any] = {
            3: [o["value"] for o in component.get("options") or []],
            5: [m for m in self.guild.members.values()],
            6: list(self.guild.roles.values()),
            7: [m for m in self.guild.members.values()],
            8: list(self.guild.channels.values()),
        }[kind]
        picked = self.rng.sample(choices, self.rng.randint(max(low, 1), min(high, len(choices))))
        shown = [getattr(p, "id", p) for p in picked]
        self._note(member, f"picked {shown} in {custom_id} on {message.id}")
        return await self.emulator.select(member, message, custom_id, picked)

    def _fill(self, modal: dict[str, Any]) -> dict[str, str | list[str]]:
        values: dict[str, str | list[str]] = {}
        for _, field in walk_components(modal.get("components", [])):
            if field.get("type") == 4:
                low = max(field.get("min_length", 0), 1 if field.get("required", True) else 0)
                high = max(low, min(field.get("max_length", 4000), 20))
                size = self.rng.randint(low, high)
                values[field["custom_id"]] = "".join(self.rng.choices(string.ascii_letters, k=size))
            elif field.get("type") == 3:
                options = [o["value"] for o in field.get("options") or []]
                low, high = field.get("min_values", 1), field.get("max_values", 1)
                values[field["custom_id"]] = self.rng.sample(options, self.rng.randint(low, high))
        return values

    def _note(self, member: Member, what: str) -> None:
        self.history.append(f"{member.user.username} {what}")


def _leaves(
    path: list[str], schema: dict[str, Any], found: list[tuple[list[str], list[dict[str, Any]]]]
) -> None:
    """Collect every runnable command path (through groups and subcommands) and its options."""
    options = schema.get("options") or []
    subs = [o for o in options if o["type"] in (1, 2)]
    if not subs:
        found.append((path, options))
    for sub in subs:
        _leaves([*path, sub["name"]], sub, found)


def _usable(component: dict[str, Any]) -> bool:
    return bool(component.get("custom_id")) and not component.get("disabled")
