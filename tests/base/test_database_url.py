"""The database's URL (``bot.base.database_url``): its passwords hidden for logs and messages."""

import pytest

from bot.base.database_url import redact, url_passwords


@pytest.mark.parametrize(
    ("url", "redacted", "passwords"),
    [
        (
            "postgresql://ana:s3cret@db:5432/tholos",
            "postgresql://ana:***@db:5432/tholos",
            ("s3cret",),
        ),
        ("postgres://ana:s3cret@db/tholos", "postgres://ana:***@db/tholos", ("s3cret",)),
        ("postgresql://ana@db/tholos", "postgresql://ana@db/tholos", ()),
        ("postgresql://db/tholos", "postgresql://db/tholos", ()),
        ("postgresql://ana:@db/tholos", "postgresql://ana:@db/tholos", ()),
        (
            "postgresql://ana:p%40ss:w@[::1]:5433/tholos",
            "postgresql://ana:***@[::1]:5433/tholos",
            ("p%40ss:w", "p@ss:w"),
        ),
        (
            "postgresql://ana:pw@[2001:db8::7]/tholos?sslmode=require&application_name=bot",
            "postgresql://ana:***@[2001:db8::7]/tholos?sslmode=require&application_name=bot",
            ("pw",),
        ),
        (
            "postgresql://ana@db/tholos?sslmode=require&password=a+b%26c&port=5432",
            "postgresql://ana@db/tholos?sslmode=require&password=***&port=5432",
            ("a+b%26c", "a b&c"),
        ),
        (
            "postgresql://ana:one@db/tholos?password=two",
            "postgresql://ana:***@db/tholos?password=***",
            ("one", "two"),
        ),
        ("./tholos.db", "./tholos.db", ()),
        ("/var/lib/tholos/ana:s3cret@home.db", "/var/lib/tholos/ana:s3cret@home.db", ()),
    ],
)
def test_a_database_url_keeps_everything_but_its_passwords(url, redacted, passwords):
    """Database URLs in messages keep the user, host (IPv6 too), port, database and the other
    parameters, never a password (in the user info or a ``password=`` parameter); the logs
    mask each password as written and decoded. A SQLite path is not a URL."""
    assert redact(url) == redacted
    assert url_passwords(url) == passwords
    assert not any(password in redacted for password in passwords)
