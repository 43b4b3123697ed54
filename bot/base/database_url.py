"""``THOLOS_DB``, the database's URL: which backend it names, and the URL with its passwords
hidden for logs and messages."""

from __future__ import annotations

from urllib.parse import unquote, unquote_plus, urlsplit, urlunsplit

from bot.base.logs import MASK


def is_postgres_url(url: str) -> bool:
    """Whether ``THOLOS_DB`` names a PostgreSQL database rather than a SQLite file."""
    return url.startswith(("postgresql://", "postgres://"))


def redact(url: str) -> str:
    """``url`` with its passwords hidden, for logs and messages: the user info's and a
    ``password=`` query parameter's (libpq's, which asyncpg reads too); user, host, port, path
    and the other parameters kept. A SQLite path is returned as it is."""
    return _split(url)[0]


def url_passwords(url: str) -> tuple[str, ...]:
    """The passwords a database URL carries (:func:`redact` hides them), as written and
    decoded (``%40`` is ``@``), for the logs to mask wherever they would appear."""
    return _split(url)[1]


def _split(url: str) -> tuple[str, tuple[str, ...]]:
    """``url`` redacted, and its passwords."""
    if not is_postgres_url(url):
        return url, ()
    parts = urlsplit(url)
    found, netloc = [], parts.netloc
    if parts.password:
        found += [parts.password, unquote(parts.password)]
        user_info, _, host = netloc.rpartition("@")
        netloc = f"{user_info.partition(':')[0]}:{MASK}@{host}"
    parameters = []
    for parameter in parts.query.split("&") if parts.query else ():
        key, equals, value = parameter.partition("=")
        if unquote_plus(key) == "password" and value:
            found += [value, unquote_plus(value)]
            parameter = f"{key}{equals}{MASK}"
        parameters.append(parameter)
    redacted = urlunsplit(parts._replace(netloc=netloc, query="&".join(parameters)))
    return redacted, tuple(dict.fromkeys(found))
