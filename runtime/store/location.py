"""Where the run store lives: a SQLite file, or a PostgreSQL database named by a URL.

What can be neither (another scheme, a directory) is refused before anything is created. A
PostgreSQL URL may carry a password: `PostgresUrl` keeps it out of every repr, str and message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

# "postgresql://h/db" read as a path becomes "postgresql:/h/db": a scheme followed by ":/".
_URL_LIKE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/")
POSTGRES_SCHEMES = ("postgresql", "postgres")
WHAT_A_STORE_IS = "give a SQLite file path (default .verity/verity.db) or a postgresql://user@host:port/database URL"


@dataclass(frozen=True)
class PostgresUrl:
    """A PostgreSQL store's URL. `url` is what psycopg connects with; `shown` is safe to print."""

    url: str = field(repr=False)

    @property
    def shown(self) -> str:
        return redact_url(self.url)

    def __str__(self) -> str:
        return self.shown

    def __repr__(self) -> str:
        return f"PostgresUrl({self.shown!r})"


StoreLocation = Path | PostgresUrl


# libpq also takes the password as a query parameter: postgresql://u@h/db?password=...
_QUERY_PASSWORD = re.compile(r"(?i)(?<![^&])(password=)[^&#]*")


def redact_url(url: str) -> str:
    """`url` with any password (in its user part or its query) replaced by ***, for errors and logs."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # not even a URL: hide everything after the scheme's user
        return re.sub(r"(?<=://)[^@/]*@", "***@", url)
    if password is not None:
        user_info, _, host = parts.netloc.rpartition("@")
        user = user_info.split(":", 1)[0]
        parts = parts._replace(netloc=f"{user}:***@{host}")
    if parts.query:
        parts = parts._replace(query=_QUERY_PASSWORD.sub(r"\1***", parts.query))
    return parts.geturl()


def store_location_problem(location: str | StoreLocation) -> str | None:
    """Why `location` cannot be the run store, or None when it can."""
    if isinstance(location, PostgresUrl):
        return _postgres_url_problem(location.url)
    text = str(location)
    if _URL_LIKE.match(text):
        scheme = text.split(":", 1)[0]
        if scheme.lower() in POSTGRES_SCHEMES and text.lower().startswith(f"{scheme.lower()}://"):
            return _postgres_url_problem(text)
        return (
            f"store {redact_url(text)!r} names a {scheme} server: runs are kept in a SQLite file or a "
            f"PostgreSQL database; {WHAT_A_STORE_IS}"
        )
    if Path(text).is_dir():
        return f"store {text!r} is a directory: give the SQLite file's path, e.g. {text.rstrip('/')}/verity.db"
    return None


def url_passwords(url: str) -> set[str]:
    """The password(s) a URL carries, as written and decoded, so messages can be scrubbed of them."""
    try:
        parts = urlsplit(url)
        found = {parts.password} if parts.password else set()
    except ValueError:
        return set()
    found |= {value for name, value in parse_qsl(parts.query) if name.lower() == "password" and value}
    return found | {unquote(value) for value in found}


def parse_store_location(text: str) -> StoreLocation:
    """The store `text` names (check `store_location_problem` first)."""
    if text.lower().startswith(tuple(f"{scheme}://" for scheme in POSTGRES_SCHEMES)):
        return PostgresUrl(text)
    return Path(text)


def _postgres_url_problem(url: str) -> str | None:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError as error:
        return f"store {redact_url(url)!r} is not a valid PostgreSQL URL ({error}); {WHAT_A_STORE_IS}"
    if not parts.path.strip("/"):
        return f"store {redact_url(url)!r} names no database: {WHAT_A_STORE_IS}"
    return None
