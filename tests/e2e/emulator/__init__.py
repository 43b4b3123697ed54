"""A Discord emulator on 127.0.0.1 for end-to-end tests of the real bot (see ../README.md)."""

from .activities import ActivityInstance
from .api import Emulator
from .interactions import Interaction
from .journal import Violation
from .messages import Attachment, MediaItem, Message
from .model import Channel, Guild, Member, Role, User
from .player import RandomPlayer
from .process import BotProcess
from .state import Application, Config

__all__ = [
    "ActivityInstance",
    "Application",
    "Attachment",
    "BotProcess",
    "Channel",
    "Config",
    "Emulator",
    "Guild",
    "Interaction",
    "MediaItem",
    "Member",
    "Message",
    "RandomPlayer",
    "Role",
    "User",
    "Violation",
]
