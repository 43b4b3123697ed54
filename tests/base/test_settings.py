"""Settings from the environment: the database, and the shards a process runs."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bot.base.settings import Settings, SettingsError

TOKEN = {"DISCORD_TOKEN": "x"}


def load(**environ: str) -> Settings:
    return Settings.load(environ={**TOKEN, **environ}, env_file=None)


def test_the_database_is_a_sqlite_path_or_a_postgres_url_and_never_printed():
    """THOLOS_DB is taken as given; repr hides it (a URL may carry a password)."""
    assert load().database == "tholos.db"
    url = "postgresql://bot:s3cret@db:5432/tholos"
    settings = load(THOLOS_DB=url)
    assert settings.database == url
    assert "s3cret" not in repr(settings)


def test_unsharded_by_default():
    """Without THOLOS_SHARD_COUNT the process runs everything and registers the commands."""
    settings = load()
    assert not settings.sharded and settings.registers_commands
    assert settings.shards.owns(123 << 22)


@pytest.mark.parametrize(
    ("ids", "expected"), [("0-3", (0, 1, 2, 3)), ("0,2", (0, 2)), ("1, 3-4", (1, 3, 4))]
)
def test_shard_ids_take_ranges_and_lists(ids, expected):
    """THOLOS_SHARD_IDS: ``0-3`` or ``0,2`` (or both)."""
    settings = load(THOLOS_SHARD_COUNT="6", THOLOS_SHARD_IDS=ids)
    assert settings.shard_count == 6 and settings.shard_ids == expected


def test_a_process_owns_the_guilds_of_its_shards():
    """Discord's formula: shard = (guild_id >> 22) % shard_count; shard 0's process alone
    registers the commands."""
    first = load(THOLOS_SHARD_COUNT="2", THOLOS_SHARD_IDS="0")
    second = load(THOLOS_SHARD_COUNT="2", THOLOS_SHARD_IDS="1")
    for guild in (4 << 22, 7 << 22, (1 << 40) + (3 << 22)):
        assert first.shards.owns(guild) != second.shards.owns(guild)
    assert first.shards.owns(4 << 22) and second.shards.owns(7 << 22)
    assert first.registers_commands and not second.registers_commands


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"THOLOS_SHARD_IDS": "0"}, "needs THOLOS_SHARD_COUNT"),
        ({"THOLOS_SHARD_COUNT": "0"}, "whole number"),
        ({"THOLOS_SHARD_COUNT": "two"}, "whole number"),
        ({"THOLOS_SHARD_COUNT": "2", "THOLOS_SHARD_IDS": "2"}, "outside 0-1"),
        ({"THOLOS_SHARD_COUNT": "2", "THOLOS_SHARD_IDS": "a-b"}, "must look like"),
    ],
)
def test_bad_shard_settings_say_what_to_fix(environ, message):
    """A malformed shard setting is refused with a message naming it."""
    with pytest.raises(SettingsError, match=message):
        load(**environ)


def test_the_reminder_time_is_seconds_zero_for_off_or_unset():
    """THOLOS_REMINDER_AFTER: unset means half the idle-claim time (``None``), 0 turns
    reminders off, anything else is seconds; a malformed value names the setting."""
    assert load().reminder_after is None
    assert load(THOLOS_REMINDER_AFTER="0").reminder_after == 0.0
    assert load(THOLOS_REMINDER_AFTER=" 1.5 ").reminder_after == 1.5
    for bad in ("soon", "-1", "nan", "inf"):
        with pytest.raises(SettingsError, match="THOLOS_REMINDER_AFTER"):
            load(THOLOS_REMINDER_AFTER=bad)


def test_metrics_and_log_format_are_off_and_text_by_default():
    default = load()
    assert (default.metrics_port, default.metrics_host, default.log_format) == (
        None,
        "127.0.0.1",
        "text",
    )
    chosen = load(
        THOLOS_METRICS_PORT="9108", THOLOS_METRICS_HOST="0.0.0.0", THOLOS_LOG_FORMAT="JSON"
    )
    assert (chosen.metrics_port, chosen.metrics_host, chosen.log_format) == (
        9108,
        "0.0.0.0",
        "json",
    )


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"THOLOS_METRICS_PORT": "http"}, "THOLOS_METRICS_PORT must be a TCP port"),
        ({"THOLOS_METRICS_PORT": "70000"}, "THOLOS_METRICS_PORT must be a TCP port"),
        ({"THOLOS_LOG_FORMAT": "xml"}, "THOLOS_LOG_FORMAT must be text or json"),
    ],
)
def test_bad_metrics_or_log_settings_say_what_to_fix(environ, message):
    with pytest.raises(SettingsError, match=message):
        load(**environ)


ROOT = Path(__file__).resolve().parents[2]
VARIABLE = re.compile(r"(?:DISCORD|THOLOS|LOG)_[A-Z_]+")


def read_by_the_bot() -> set[str]:
    """The environment variables ``bot/base/settings.py`` reads: its string constants that name
    one (every setting is read there and nowhere else)."""
    tree = ast.parse((ROOT / "bot" / "base" / "settings.py").read_text())
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and VARIABLE.fullmatch(node.value)
    }


def documented() -> set[str]:
    """The variables of the settings table of ``docs/hosting.md`` (its first column)."""
    return set(re.findall(r"^\| `((?:DISCORD|THOLOS|LOG)_[A-Z_]+)` \|", HOSTING.read_text(), re.M))


HOSTING = ROOT / "docs" / "hosting.md"


def test_every_setting_is_in_env_example_and_in_the_table():
    """``.env.example``, ``bot/base/settings.py`` and the configuration table name the same
    settings: a newcomer who copies the example sees every one."""
    example = set(re.findall(r"^([A-Z_]+)=", (ROOT / ".env.example").read_text(), re.M))
    code = read_by_the_bot()
    assert "THOLOS_THREADS" in code and "DISCORD_API_BASE" in code
    assert example == code, f"in .env.example only: {example - code}; missing: {code - example}"
    assert documented() == code, f"the table lacks {code - documented()}"


def test_no_env_file_means_none_read(tmp_path, monkeypatch):
    """``env_file=None`` reads no file, even with a ``.env`` in the working directory (a
    checkout that followed the quick start has one); by default ``./.env`` is read."""
    (tmp_path / ".env").write_text("DISCORD_TOKEN=x\nTHOLOS_DB=./from-dot-env.db\n")
    monkeypatch.chdir(tmp_path)
    assert load().database == "tholos.db"
    assert Settings.load(environ={}).database == "./from-dot-env.db"
