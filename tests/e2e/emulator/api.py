"""The test API: start the emulator, act as members, read what they see, assert on the rules."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, Self

from aiohttp import web

from . import interactions, threads
from .activities import DISCORD_LAUNCH_ACTIVITY, PRIMARY_ENTRY_POINT, ActivityInstance
from .commands import Resolved, authorizing_owners, invocation, refusal
from .gateway import Gateway
from .interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL,
    MODAL_SUBMIT,
    Interaction,
)
from .journal import RequestRecord, Violation
from .messages import Message
from .model import (
    DM,
    JSON,
    MANAGE_THREADS,
    USE_APPLICATION_COMMANDS,
    VIEW_CHANNEL,
    Channel,
    Guild,
    Member,
    Overwrite,
    Role,
    User,
    World,
    check_locale,
    default_world,
    discord_time,
    set_clock_offset,
    snowflake,
)
from .rest import API, Rest
from .rules import walk_components
from .state import GUILDS, Config, State

_MAX_REQUEST = 200 * 1024 * 1024
PATIENCE = 60.0
"""How long a wait gives up after, by default: the failure's deadline, not a speed limit (a bot
starved of CPU by busy neighbours may take many times its usual second)."""


class Emulator:
    """A Discord emulator on 127.0.0.1 (REST, gateway, attachments) and the handle tests use.

    Use ``async with Emulator() as emu:``; then start a bot with ``emu.env()``.
    """

    def __init__(self, config: Config | None = None, world: World | None = None) -> None:
        self.config = config or Config()
        self.world = world or default_world()
        self.state = State(self.config, self.world)
        self.gateway = Gateway(self.state)
        self.rest = Rest(self.state)
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        """Listen on 127.0.0.1 and an ephemeral port."""
        app = web.Application(client_max_size=_MAX_REQUEST)
        self.gateway.routes(app)
        self.rest.routes(app, self.gateway.url)
        self.rest.add_fallback(app)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.state.base_url = f"http://{host}:{port}"

    async def stop(self) -> None:
        if self._runner is not None:
            await self.gateway.drop(1001)
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        set_clock_offset(0.0)
        await self.stop()

    @property
    def clock_offset(self) -> float:
        """Seconds Discord's clock runs ahead of the machine's (negative: behind); new
        messages and interactions are created at that time. Set it to play against a clock
        without waiting; it is back to 0 when the emulator stops."""
        return discord_time() - time.time()

    @clock_offset.setter
    def clock_offset(self, seconds: float) -> None:
        set_clock_offset(seconds)

    # The world ------------------------------------------------------------------------------

    @property
    def api_base(self) -> str:
        """The value for DISCORD_API_BASE, e.g. ``http://127.0.0.1:41234/api/v10``."""
        return self.state.base_url + API

    @property
    def token(self) -> str:
        return self.config.token

    @property
    def client_secret(self) -> str:
        """The application's OAuth2 client secret (``config.client_secret``)."""
        return self.config.client_secret

    @property
    def guild(self) -> Guild:
        """The first guild, "Tholos Test"."""
        return self.world.guild

    @property
    def guilds(self) -> list[Guild]:
        """Every guild, the first one first."""
        return list(self.world.guilds)

    def add_guild(self, name: str = "Tholos Two", *, shard: tuple[int, int] | None = None) -> Guild:
        """A new guild with the bot (its own managed role), alice (the owner), bob and carol,
        and the text channels ``general`` and ``games``; with ``shard=(shard_id, shard_count)``
        its id falls on that shard. Connected sessions owning its shard get GUILD_CREATE, as
        when a bot joins a guild."""
        guild = self.world.add_guild(name, shard=shard)
        self.gateway.announce(guild)
        self.state.journal.changed()
        return guild

    @property
    def bot_user(self) -> User:
        return self.world.bot

    def member(self, name: str) -> Member:
        """One of the people: ``alice`` (owner), ``bob``, ``carol``, or one added (also by
        ``add_user``)."""
        if name in self.world.strangers:
            return self.world.strangers[name]
        return self.world.people[name]

    def add_user(self, name: str) -> Member:
        """A new user, ``name``, who shares no guild with the bot (their ``Member`` belongs to
        no guild): they can reach the bot only in its DM, and only after ``install_for_user``;
        the bot's messages to them answer 403, 50007 (until they install the app)."""
        if name in self.world.people or name in self.world.strangers:
            raise ValueError(f"{name} exists already")
        user = User(id=snowflake(), username=name, global_name=name.capitalize())
        self.world.strangers[name] = Member(user)
        return self.world.strangers[name]

    def add_person(self, name: str) -> Member:
        """A new plain member of the first guild, ``name`` (e.g. ``dave``), now one of the
        people."""
        if name in self.world.people:
            raise ValueError(f"{name} is one of the people already")
        user = User(id=snowflake(), username=name, global_name=name.capitalize())
        member = Member(user)
        self.world.guild.members[member.id] = member
        self.world.people[name] = member
        return member

    def give_role(self, member: Member, name: str, permissions: int) -> Role:
        """A new role of the first guild, ``name``, with ``permissions`` (bits), given to
        ``member`` (e.g. Manage Events for an organiser who does not own the server): the bot
        hears of the role (GUILD_ROLE_CREATE), as on Discord."""
        guild = self.world.guild
        role = Role(id=snowflake(), name=name, permissions=permissions, position=len(guild.roles))
        guild.roles[role.id] = role
        guild.members[member.id].roles.append(role.id)
        created = {"guild_id": str(guild.id), "role": role.to_json()}
        self.state.dispatch("GUILD_ROLE_CREATE", created, GUILDS, guild.id)
        self.state.journal.changed()
        return role

    def channel(self, name: str, guild: Guild | None = None) -> Channel:
        """A text channel of ``guild`` (default: the first guild, which has ``general``,
        ``games``, ``no-embeds``, ``read-only``; added guilds have ``general`` and ``games``)."""
        return self.world.channel_named(name, guild)

    def dm_channel(self, member: Member) -> Channel:
        """The bot's DM channel with ``member``."""
        return self.world.dm_with(member.user)

    def dm_between(self, *members: Member, name: str = "") -> Channel:
        """A DM between two members (type 1), or a group DM (type 3) of 2 to 10 members (two
        with a ``name``), the first its owner: the bot is not in it. Members who installed
        the app run its commands there (``context`` 2 PRIVATE_CHANNEL, owners ``{"1": ...}``);
        the bot hears nothing of it and its REST calls there answer 403, 50001."""
        return self.world.private_channel([m.user for m in members], name=name)

    def add_guild_without_bot(self, name: str, members: list[Member] | None = None) -> Guild:
        """A guild that never added the bot, of ``members`` (default alice, bob, carol; the
        first owns it) with ``general`` and ``games``: ``channel("general", guild)``. Members
        who installed the app run its commands there (``context`` 0, owners ``{"1": ...}``
        only); the bot gets no gateway event of it and its REST calls there answer 403,
        50001."""
        users = [m.user for m in members or self.world.people.values()]
        guild = self.world.add_guild_without_bot(name, users)
        self.state.journal.changed()
        return guild

    def close_dms(self, member: Member) -> None:
        """``member`` no longer accepts DMs from the bot (their privacy settings): ``POST
        /users/@me/channels`` still answers the DM channel, but posting in it answers 403,
        50007 "Cannot send messages to this user" (recorded in ``requests``, not a violation:
        Discord's normal answer, which a bot must handle)."""
        member.user.dms_closed = True
        self.state.journal.changed()

    def open_dms(self, member: Member) -> None:
        """``member`` accepts DMs from the bot again."""
        member.user.dms_closed = False
        self.state.journal.changed()

    # The application ---------------------------------------------------------------------------

    @property
    def application(self) -> JSON:
        """The bot's application object as ``GET /applications/@me`` answers it now (a copy),
        e.g. ``emulator.application["integration_types_config"]``: ``{"0": {...}, "1":
        {...}}`` for guild and user install as ``PATCH /applications/@me`` set it, ``{"0":
        {}}`` before. ``emulator.state.application`` is the live ``Application``
        (``integration_types``, ``user_installs``)."""
        return self.state.application_json()

    def install_for_user(self, member: Member) -> None:
        """``member`` installs the app to their account (a user install): commands whose
        ``integration_types`` include 1 are then offered to them in the bot's DM, even without
        a shared guild (and in guilds), with ``"1": "<user id>"`` in the interaction's
        ``authorizing_integration_owners``; the bot may then DM them without a shared guild.
        ValueError unless the app offers user install (``"1"`` in its
        ``integration_types_config``)."""
        app = self.state.application
        if "1" not in app.integration_types_config:
            config = app.integration_types_config
            raise ValueError(
                f"the app does not offer user install: integration_types_config {config}"
            )
        app.user_installs.add(member.id)
        self.state.journal.changed()

    def uninstall_for_user(self, member: Member) -> None:
        """``member`` removes the app from their account."""
        self.state.application.user_installs.discard(member.id)
        self.state.journal.changed()

    # Activities ------------------------------------------------------------------------------

    def enable_activities(self, *, handler: int = DISCORD_LAUNCH_ACTIVITY) -> JSON:
        """Enable Activities, as in the Developer Portal: the app may answer LAUNCH_ACTIVITY, and
        Discord gives it a global Entry Point command (``"launch"``, type 4, ``handler`` 2
        DISCORD_LAUNCH_ACTIVITY by default, 1 APP_HANDLER) unless it has one; returns it (as
        ``GET /applications/{app}/commands`` lists it). A bulk overwrite of the global
        commands that leaves it out is then refused (400, 50240)."""
        self.state.application.activities = True
        entry_point = self.state.commands.entry_point()
        if entry_point is None:
            description = f"Launch {self.world.bot.username}"
            entry_point = self.state.commands.upsert(
                None,
                {
                    "name": "launch",
                    "description": description,
                    "type": PRIMARY_ENTRY_POINT,
                    "handler": handler,
                    "contexts": [0, 1, 2],
                },
            )
        self.state.journal.changed()
        return entry_point

    def activity_instance(self, channel: Channel) -> ActivityInstance | None:
        """The Activity instance running in ``channel`` (``id``, ``launch_id``, ``users``: user
        ids in join order, ``location``, ``to_json()``), or None."""
        return self.state.activities.instances.get(channel.id)

    def join_activity(self, member: Member, instance: ActivityInstance) -> None:
        """``member`` joins the running ``instance`` (opens the Activity in its channel)."""
        self._check_member_of(member, instance.channel)
        if self.state.activities.instances.get(instance.channel.id) is not instance:
            raise ValueError(f"the Activity instance {instance.id} has ended")
        self.state.activities.join(member.user, instance)
        self.state.journal.changed()

    def leave_activity(self, member: Member, instance: ActivityInstance) -> None:
        """``member`` closes the Activity; the instance ends with its last user (its look-up then
        answers 404)."""
        self.state.activities.leave(member.user, instance)
        self.state.journal.changed()

    def authorize(
        self,
        member: Member,
        instance: ActivityInstance | None = None,
        *,
        scopes: tuple[str, ...] = ("identify",),
    ) -> str:
        """What the Embedded App SDK's ``authorize`` gives the page of ``member`` (in
        ``instance``, which they join if they are not in it yet): a one-time authorization
        code for ``scopes``, for the app to exchange at ``POST /oauth2/token``."""
        if isinstance(scopes, str) or not scopes or not all(isinstance(s, str) for s in scopes):
            raise TypeError(f"scopes are a non-empty tuple of strings, not {scopes!r}")
        if instance is not None:
            self.join_activity(member, instance)
        return self.state.activities.authorize(member.user, tuple(scopes))

    def rate_limit_token(self, *retry_after: float) -> None:
        """The next ``POST /oauth2/token`` requests, one a value, are answered 429 with that
        ``Retry-After`` (seconds; the body's ``retry_after`` exact, the header rounded up), as
        Discord answers an app that exchanges codes too fast; their codes stay unused."""
        self.state.activities.token_limits.extend(retry_after)

    async def launch_entry_point(
        self, member: Member, channel: Channel | None = None, *, wait: bool = True
    ) -> Interaction | ActivityInstance:
        """``member`` opens the app's Entry Point command (the App Launcher) in ``channel``
        (default ``general``). With handler 2 Discord launches the Activity itself (no
        interaction reaches the bot; Discord's own notice in the channel is not emulated):
        returns the instance. With handler 1 the bot gets an APPLICATION_COMMAND interaction
        with ``data.type`` 4, to answer (e.g. with LAUNCH_ACTIVITY): returns it. ValueError
        where Discord's client would not offer it (no Activities, contexts, install types)."""
        channel = channel or self.channel("general")
        entry_point = self.state.commands.entry_point()
        if entry_point is None or not self.state.application.activities:
            raise ValueError("the app has no Entry Point command (enable_activities)")
        guild = self._check_place(member, channel)
        owners = self._check_offered(member, entry_point, channel, guild)
        if entry_point.get("handler") == DISCORD_LAUNCH_ACTIVITY:
            instance = self.state.activities.launch(member.user, channel)
            self.state.journal.changed()
            return instance
        data = {"id": entry_point["id"], "name": entry_point["name"], "type": PRIMARY_ENTRY_POINT}
        label = f"entry point {entry_point['name']}"
        ix = interactions.create(
            self.state, APPLICATION_COMMAND, member, channel, data, label, owners=owners
        )
        return await self._settle(ix, wait)

    # Threads and moderation -------------------------------------------------------------------

    def threads(
        self, channel: Channel | None = None, *, archived: bool | None = None
    ) -> list[Channel]:
        """The threads of ``channel`` (default: of every channel of every guild), oldest first;
        with ``archived``, only the archived (True) or active (False) ones. Deleted threads are
        gone."""
        if channel is not None:
            found = self.world.threads_of(channel)
        else:
            found = sorted(
                (t for g in self.world.guilds for t in g.threads.values()), key=lambda t: t.id
            )
        return [t for t in found if archived is None or t.archived == archived]

    def private_thread(
        self, channel: Channel, owner: Member, name: str, *, members: tuple[Member, ...] = ()
    ) -> Channel:
        """A private thread of the text ``channel`` that ``owner`` starts as a member would, with
        ``members`` added (the bot among them, by its guild member, for it to play there): it
        hears of it once added (THREAD_CREATE), or at once if it may manage threads there."""
        guild = self._check_member_of(owner, channel)
        if guild is None or channel.is_thread:
            raise ValueError(f"#{channel.name or 'DM'} is not a text channel of a guild")
        thread = threads.create(self.state, channel, name=name, owner=owner.user, private=True)
        for member in members:
            threads.add_member(self.state, thread, member.id)
        return thread

    def thread_of(self, message: Message) -> Channel | None:
        """The thread started from ``message``, if any."""
        return message.thread

    def thread_members(self, thread: Channel) -> set[int]:
        """The user ids of the thread's members."""
        return set(thread.thread_members)

    def archive(self, thread: Channel, *, locked: bool = False) -> None:
        """Archive ``thread`` (and lock it) as a moderator would: THREAD_UPDATE. Only a message
        or an answer unarchives it, unless it is locked."""
        if not thread.is_thread or thread.deleted:
            raise ValueError(f"#{thread.name or 'DM'} is not a thread (or was deleted)")
        threads.set_archived(self.state, thread, True, locked=locked)

    def delete_channel(self, channel: Channel) -> None:
        """Delete a thread (THREAD_DELETE) or a text channel and its threads (CHANNEL_DELETE)
        as a moderator would; every route on them then answers 404, 10003 Unknown Channel."""
        if channel.type == DM or channel.deleted:
            raise ValueError(f"cannot delete #{channel.name or 'DM'} (a DM, or already deleted)")
        threads.delete(self.state, channel)

    def deny(self, channel: Channel, permission: int) -> None:
        """Deny ``permission`` (bits) to the bot's role in a text channel with an overwrite, as
        an admin would: CHANNEL_UPDATE. Threads have no overwrites: deny on their parent."""
        guild = self.world.guild_of(channel)
        if guild is None or channel.is_thread or channel.deleted:
            raise ValueError(f"#{channel.name or 'DM'} has no permission overwrites to change")
        overwrite = overwrite_of(channel, self.world.bot_role(guild).id, 0)
        overwrite.deny |= permission
        overwrite.allow &= ~permission
        self.state.dispatch("CHANNEL_UPDATE", channel.to_json(), GUILDS, guild.id)
        self.state.journal.changed()

    def hide(self, channel: Channel, *, seen_by: tuple[Member, ...] = ()) -> None:
        """Make a text channel private as an admin would: an overwrite denies @everyone View
        Channel, others allow it to each member of ``seen_by`` and to the bot's role (the owner
        and administrators see it anyway): CHANNEL_UPDATE. Its threads follow it."""
        guild = self.world.guild_of(channel)
        if guild is None or channel.is_thread or channel.deleted:
            raise ValueError(f"#{channel.name or 'DM'} has no permission overwrites to change")
        allowed = [(self.world.bot_role(guild).id, 0)] + [(m.id, 1) for m in seen_by]
        for target, kind, allow, deny in [(guild.id, 0, 0, VIEW_CHANNEL)] + [
            (target, kind, VIEW_CHANNEL, 0) for target, kind in allowed
        ]:
            overwrite = overwrite_of(channel, target, kind)
            overwrite.allow = (overwrite.allow & ~deny) | allow
            overwrite.deny = (overwrite.deny & ~allow) | deny
        self.state.dispatch("CHANNEL_UPDATE", channel.to_json(), GUILDS, guild.id)
        self.state.journal.changed()

    def set_locale(self, target: Member | User | Guild, locale: str) -> None:
        """Set the language of a member's Discord client (``User.locale``: the ``locale`` of
        their interactions, in every guild and in DMs) or a guild's preferred locale
        (``Guild.locale``: ``guild_locale`` of interactions, ``preferred_locale`` of the guild;
        connected sessions with the GUILDS intent get GUILD_UPDATE, as when an admin changes
        it). ``locale`` is one of Discord's locales (``model.LOCALES``: ``"en-US"``,
        ``"es-ES"``, ``"de"``...); ValueError otherwise."""
        check_locale(locale)
        if isinstance(target, Guild):
            if target not in self.world.guilds:
                raise ValueError(f"{target.name!r} is not a guild of this emulator")
            changed, target.locale = target.locale != locale, locale
            if changed:
                self.state.dispatch("GUILD_UPDATE", target.to_object_json(), GUILDS, target.id)
        elif isinstance(target, Member | User):
            user = target.user if isinstance(target, Member) else target
            user.locale = locale
        else:
            raise TypeError(f"cannot set the locale of {target!r}: a Member, User or Guild")
        self.state.journal.changed()

    def env(self, *, guild_commands: bool = True) -> dict[str, str]:
        """Environment variables pointing a bot at this emulator (with the app's OAuth2 client
        secret, ``DISCORD_CLIENT_SECRET``)."""
        env = {
            "DISCORD_TOKEN": self.token,
            "DISCORD_API_BASE": self.api_base,
            "DISCORD_CLIENT_SECRET": self.client_secret,
        }
        if guild_commands:
            env["THOLOS_GUILD_ID"] = str(self.guild.id)
        return env

    # Records --------------------------------------------------------------------------------

    @property
    def violations(self) -> list[Violation]:
        """Every broken rule so far, in order."""
        return self.state.journal.violations

    @property
    def requests(self) -> list[RequestRecord]:
        return self.state.journal.requests

    @property
    def interactions(self) -> list[Interaction]:
        return list(self.state.interactions.values())

    def command(self, name: str, *, guild: Guild | bool = False) -> JSON:
        """The registered command ``name`` (global by default; ``guild`` as in ``commands``), as
        Discord keeps it: ``contexts``, ``integration_types``, ``options``... KeyError if none."""
        found = next((c for c in self.commands(guild=guild) if c["name"] == name), None)
        if found is None:
            raise KeyError(f"no command {name!r} registered there; {self._command_names()}")
        return found

    def commands(self, *, guild: Guild | bool = True) -> list[JSON]:
        """Registered command schemas: the first guild's (``True``), that guild's, or the global
        ones (``False``)."""
        if isinstance(guild, Guild):
            return self.state.commands.list(guild.id)
        return self.state.commands.list(self.guild.id if guild else None)

    @property
    def command_syncs(self) -> int:
        """How many successful PUTs of a command list the emulator answered."""
        return sum(
            1
            for r in self.requests
            if r.method == "PUT" and r.path.endswith("/commands") and r.status == 200
        )

    async def wait_for(
        self, predicate: Callable[[], object], timeout: float = PATIENCE, what: str = ""
    ) -> None:
        """Wait until ``predicate()`` is true; fail with the violations so far after ``timeout``."""
        try:
            await self.state.journal.wait_for(predicate, timeout)
        except TimeoutError:
            seen = "\n  ".join(map(str, self.violations)) or "none"
            waited = what or predicate
            raise AssertionError(
                f"timed out after {timeout} s waiting for {waited}; violations:\n  {seen}"
            ) from None

    def is_settled(self) -> bool:
        """Nothing pending: every interaction answered or expired, no deferred response still
        "thinking", no REST request in flight (``BotProcess.settle`` also asks the bot)."""

        def busy(ix: Interaction) -> bool:
            thinking = ix.original is not None and ix.original.loading and not ix.original.deleted
            return not ix.expired and (not ix.acknowledged or thinking)

        return not any(busy(ix) for ix in self.interactions) and self.state.requests_in_flight == 0

    async def wait_connected(self, identifies: int = 1, timeout: float = PATIENCE) -> None:
        """Wait for the ``identifies``-th IDENTIFY to have been answered with READY."""
        await self.wait_for(
            lambda: self.gateway.identifies >= identifies and self.gateway.live,
            timeout,
            f"IDENTIFY number {identifies}",
        )

    # Reading --------------------------------------------------------------------------------

    def messages(self, channel: Channel, viewer: Member | None = None) -> list[Message]:
        """What ``viewer`` sees in ``channel`` (or a thread), in the order they were posted —
        their ids' order, unless a test moved the clock back (:attr:`clock_offset`) — (``None``:
        a member seeing no ephemeral message)."""
        viewer_id = viewer.id if viewer is not None else None
        return [m for m in self.state.channel_messages(channel) if m.visible(viewer_id)]

    def last_message(self, channel: Channel, viewer: Member | None = None) -> Message:
        found = self.messages(channel, viewer)
        if not found:
            raise AssertionError(f"no message visible in #{channel.name or 'DM'}")
        return found[-1]

    # Acting as members -----------------------------------------------------------------------

    async def slash(
        self,
        member: Member,
        command: str,
        *,
        channel: Channel | None = None,
        options: Mapping[str, Any] | None = None,
        wait: bool = True,
        **kwargs: Any,
    ) -> Interaction:
        """``member`` runs ``/command`` (``"tholos challenge"``: command, group, subcommand) with
        options from ``options`` and keyword arguments (Member/User/Role/Channel for those
        types, ``(filename, bytes)`` for attachments), built from the registered schema.

        Raises ValueError/TypeError where Discord's client would refuse. With ``wait``, returns
        once the interaction is acknowledged or its deadline has passed.
        """
        channel = channel or self.channel("general")
        data, owners = self._command_data(member, command, channel, {**(options or {}), **kwargs})
        label = f"/{command}"
        ix = interactions.create(
            self.state, APPLICATION_COMMAND, member, channel, data, label, owners=owners
        )
        return await self._settle(ix, wait)

    async def autocomplete(
        self,
        member: Member,
        command: str,
        *,
        channel: Channel | None = None,
        focused: str,
        value: str | float = "",
        wait: bool = True,
        **options: Any,
    ) -> Interaction:
        """``member`` types ``value`` into the option ``focused`` of ``/command`` (an option
        registered with ``autocomplete``), the other ``options`` typed so far: an
        APPLICATION_COMMAND_AUTOCOMPLETE interaction (type 4) whose focused option's value is
        sent as a string. The bot must answer with type 8 and 0 to 25 choices; they land in
        ``ix.choices``. Raises ValueError/TypeError as ``slash`` does."""
        channel = channel or self.channel("general")
        data, owners = self._command_data(member, command, channel, options, focused, value)
        label = f"autocomplete /{command} {focused}"
        ix = interactions.create(
            self.state, AUTOCOMPLETE, member, channel, data, label, owners=owners
        )
        return await self._settle(ix, wait)

    async def click(
        self,
        member: Member,
        message: Message,
        custom_id: str,
        *,
        stale: bool = False,
        wait: bool = True,
    ) -> Interaction:
        """``member`` clicks the button ``custom_id`` on ``message`` (as it is now).

        Refuses (ValueError) what Discord's client would not send: a disabled button, a component
        not on the message, a message the member cannot see. ``stale=True`` sends it anyway, as a
        client showing an outdated message would.
        """
        component = self._component(member, message, custom_id, (2,), stale)
        data: JSON = {"custom_id": custom_id, "component_type": 2}
        if "id" in component:
            data["id"] = component["id"]
        return await self._component_interaction(member, message, data, f"button {custom_id}", wait)

    async def select(
        self,
        member: Member,
        message: Message,
        custom_id: str,
        values: list[Any],
        *,
        stale: bool = False,
        wait: bool = True,
    ) -> Interaction:
        """``member`` picks ``values`` in the select menu ``custom_id`` on ``message``: option
        values for a string select, Member/User/Role/Channel objects for the other selects."""
        component = self._component(member, message, custom_id, (3, 5, 6, 7, 8), stale)
        kind = component.get("type", 3)
        low, high = component.get("min_values", 1), component.get("max_values", 1)
        if not stale and not low <= len(values) <= high:
            raise ValueError(f"select {custom_id!r} takes {low} to {high} values")
        channel = self._channel_of(message)
        data: JSON = {"custom_id": custom_id, "component_type": kind}
        if "id" in component:
            data["id"] = component["id"]
        if kind == 3:
            allowed = [o.get("value") for o in component.get("options") or []]
            if not stale and any(v not in allowed for v in values):
                raise ValueError(f"select {custom_id!r} offers {allowed}, not {values}")
            data["values"] = list(values)
        else:
            guild = self.world.guild_of(channel) or self.guild
            resolved = Resolved(guild, channel, member.id, self.state.base_url)
            data["values"] = [resolved.add(v) for v in values]
            data["resolved"] = resolved.data
        return await self._component_interaction(member, message, data, f"select {custom_id}", wait)

    async def submit_modal(
        self,
        member: Member,
        opened_by: Interaction,
        values: Mapping[str, str | list[str]],
        *,
        wait: bool = True,
    ) -> Interaction:
        """``member`` fills and submits the modal ``opened_by`` answered with: ``values`` maps
        text input custom_ids to text (string selects in labels: to lists of option values)."""
        modal = opened_by.modal
        if opened_by.ack_type != MODAL or modal is None:
            raise ValueError(f"{opened_by} was not answered with a modal")
        if member.id != opened_by.member.id:
            raise ValueError(f"the modal of {opened_by} is shown to its member only")
        components = modal.get("components", [])
        fields = {c.get("custom_id") for _, c in walk_components(components)}
        if set(values) - fields:
            raise ValueError(f"the modal has no fields {sorted(set(values) - fields)}")
        submitted = [self._modal_component(c, values) for c in components]
        data = {"custom_id": modal["custom_id"], "components": submitted}
        ix = interactions.create(
            self.state,
            MODAL_SUBMIT,
            member,
            opened_by.channel,
            data,
            f"modal {modal['custom_id']}",
            opened_by.message,
            owners=opened_by.owners,
        )
        return await self._settle(ix, wait)

    # Gateway controls ----------------------------------------------------------------------

    async def drop_connection(self, code: int | None = 4000) -> None:
        """Close the bot's gateway connection with ``code`` (4000: resumable), or cut it (None)."""
        await self.gateway.drop(code)

    def forget_sessions(self) -> None:
        """Make the bot's gateway session unresumable, as after a long outage."""
        self.gateway.forget_sessions()

    # Helpers --------------------------------------------------------------------------------

    def _command_names(self) -> list[str]:
        return sorted(
            {c["name"] for scope in self.state.commands.scopes.values() for c in scope.values()}
        )

    def _command_data(
        self,
        member: Member,
        command: str,
        channel: Channel,
        values: dict[str, Any],
        focused: str | None = None,
        typed: str | float = "",
    ) -> tuple[JSON, dict[str, str]]:
        """The ``data`` of ``/command`` as ``member`` in ``channel`` (with ``focused``, of an
        autocomplete) and its ``authorizing_integration_owners``, refusing what Discord's
        client would not send or not offer there (contexts, install types)."""
        name, *path = command.split()
        guild = self._check_place(member, channel)
        schema = self.state.commands.find(name, guild.id if guild is not None else None)
        if schema is None:
            where = f"in {guild.name!r}" if guild is not None else "in DMs"
            if guild is None and self.state.commands.guild_scoped(name):
                where += " (a guild command: only global commands are offered in DMs)"
            raise ValueError(
                f"/{name} is not registered {where}; registered: {self._command_names()}"
            )
        owners = self._check_offered(member, schema, channel, guild)
        resolved = Resolved(guild or self.guild, channel, member.id, self.state.base_url)
        data = invocation(schema, path, values, resolved, focused=focused, typed=typed)
        self.state.loose_attachments.update(resolved.uploads)
        return data, owners

    def _check_member_of(self, member: Member, channel: Channel) -> Guild | None:
        """The guild of ``channel`` (None: a DM), refusing a deleted channel and a member who
        is not in it."""
        if channel.deleted:
            raise ValueError(f"#{channel.name or 'DM'} was deleted")
        guild = self.world.guild_of(channel)
        if guild is not None and member.id not in guild.members:
            raise ValueError(f"{member.user.username} is not a member of {guild.name!r}")
        if channel.guild_id is None and not channel.has_recipient(member.user):
            raise ValueError(f"{member.user.username} is not in that DM")
        return guild

    def _check_place(self, member: Member, channel: Channel) -> Guild | None:
        """The guild of ``channel``, refusing where ``member`` cannot run a command (as
        ``_check_member_of``, and a locked thread without Manage Threads)."""
        guild = self._check_member_of(member, channel)
        if (
            guild is not None
            and channel.locked
            and not guild.permissions_in(channel, member.id) & MANAGE_THREADS
        ):
            raise ValueError(f"the thread {channel.name!r} is locked")
        return guild

    def _check_offered(
        self, member: Member, schema: JSON, channel: Channel, guild: Guild | None
    ) -> dict[str, str]:
        """The ``authorizing_integration_owners`` of ``member`` running the command ``schema``
        in ``channel``, refusing it where Discord's client would not offer it (contexts,
        install types, permissions)."""
        name = schema["name"]
        shares_guild = self.world.shares_guild(member.id)
        installed = self.state.application.installed_by(member.id)
        bot_present = self.world.bot_in(channel)
        refused = refusal(
            schema,
            in_guild=guild is not None,
            shares_guild=shares_guild,
            user_installed=installed,
            bot_present=bot_present,
        )
        if refused is not None:
            where = f"#{channel.name}" if guild is not None else "the bot's DM"
            where = where if bot_present else f"{where} (without the bot)"
            where = "a DM between users" if channel.between_users else where
            raise ValueError(
                f"/{name} is not offered to {member.user.username} in {where}: {refused}"
            )
        if guild is not None:  # a DM has no member permissions
            perms = guild.permissions_in(channel, member.id)
            needed = int(schema.get("default_member_permissions") or 0) | USE_APPLICATION_COMMANDS
            if needed & ~perms:
                raise ValueError(
                    f"/{name} is not available to {member.user.username} in #{channel.name}"
                )
        return authorizing_owners(
            schema,
            guild_id=guild.id if guild is not None else None,
            user_id=member.id,
            shares_guild=shares_guild,
            user_installed=installed,
            bot_present=bot_present,
        )

    async def _settle(self, ix: Interaction, wait: bool) -> Interaction:
        if wait:
            await self.wait_for(
                lambda: ix.acknowledged or ix.expired, ix.deadline + 10, f"{ix} to be answered"
            )
        return ix

    def _channel_of(self, message: Message) -> Channel:
        channel = self.world.find_channel(message.channel_id)
        if channel is None:
            raise ValueError(f"the channel of message {message.id} was deleted")
        return channel

    def _component(
        self, member: Member, message: Message, custom_id: str, kinds: tuple[int, ...], stale: bool
    ) -> JSON:
        if not message.visible(member.id):
            raise ValueError(f"{member.user.username} cannot see message {message.id}")
        channel = self._channel_of(message)
        if channel.guild_id is None and not channel.has_recipient(member.user):
            raise ValueError(f"{member.user.username} is not in that DM")
        guild = self.world.guild_of(channel)
        if guild is not None and member.id not in guild.members:
            raise ValueError(f"{member.user.username} is not a member of {guild.name!r}")
        component = message.component(custom_id)
        if stale:
            return component or {"type": kinds[0]}
        if component is None:
            ids = [c.get("custom_id") for c in message.all_components() if c.get("custom_id")]
            raise ValueError(f"message {message.id} has no component {custom_id!r}; it has {ids}")
        if component.get("type") not in kinds:
            raise ValueError(f"component {custom_id!r} is of type {component.get('type')}")
        if component.get("disabled"):
            raise ValueError(f"component {custom_id!r} is disabled")
        return component

    async def _component_interaction(
        self, member: Member, message: Message, data: JSON, label: str, wait: bool
    ) -> Interaction:
        channel = self._channel_of(message)
        ix = interactions.create(
            self.state, MESSAGE_COMPONENT, member, channel, data, label, message
        )
        return await self._settle(ix, wait)

    @staticmethod
    def _modal_component(component: JSON, values: Mapping[str, str | list[str]]) -> JSON:
        kind = component.get("type")
        if kind == 1:
            children = component.get("components", [])
            return {"type": 1, "components": [Emulator._modal_field(c, values) for c in children]}
        if kind == 18:
            return {
                "type": 18,
                "id": component.get("id", 0),
                "component": Emulator._modal_field(component["component"], values),
            }
        return {"type": kind, "id": component.get("id", 0)}

    @staticmethod
    def _modal_field(field: JSON, values: Mapping[str, str | list[str]]) -> JSON:
        custom_id = field.get("custom_id", "")
        value = values.get(custom_id)
        if field.get("type") == 4:
            text = value if isinstance(value, str) else field.get("value") or ""
            if field.get("required", True) and not text:
                raise ValueError(f"text input {custom_id!r} is required")
            if not field.get("min_length", 0) <= len(text) <= field.get("max_length", 4000):
                raise ValueError(f"text input {custom_id!r}: length out of range")
            return {"type": 4, "custom_id": custom_id, "value": text, "id": field.get("id", 0)}
        if field.get("type") == 3:
            picked = value if isinstance(value, list) else []
            return {"type": 3, "custom_id": custom_id, "values": picked, "id": field.get("id", 0)}
        raise ValueError(f"modal component type {field.get('type')} is not emulated")


def overwrite_of(channel: Channel, target: int, kind: int) -> Overwrite:
    """The permission overwrite of ``channel`` for ``target`` (a role: ``kind`` 0, a member:
    1), made empty if it has none."""
    overwrite = next((o for o in channel.overwrites if o.id == target), None)
    if overwrite is None:
        overwrite = Overwrite(id=target, type=kind)
        channel.overwrites.append(overwrite)
    return overwrite
