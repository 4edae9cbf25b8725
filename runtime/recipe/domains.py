"""Allowed-domain wildcards.

Decision (documented in the README): `*.example.com` matches any subdomain at any depth
(`a.example.com`, `a.b.example.com`) but NOT `example.com` itself; list `example.com` too to allow
the apex. This follows TLS certificate wildcards and keeps a wildcard from silently widening to the
apex, where a different service often lives. A pattern may carry a port (`127.0.0.1:8080`); a
pattern without one matches any port.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_PATTERN = re.compile(rf"^(?:\*\.)?{_LABEL}(?:\.{_LABEL})*(?::\d{{1,5}})?$")


def domain_pattern_problem(pattern: str) -> str | None:
    """Why `pattern` is not a valid allowed-domain pattern, or None when it is."""
    if "://" in pattern or "/" in pattern:
        return f"{pattern!r} is a URL; give a host such as example.com or *.example.com"
    if pattern.count("*") > 1 or ("*" in pattern and not pattern.startswith("*.")):
        return f"{pattern!r}: a wildcard may only be a leading `*.` label, as in *.example.com"
    if pattern != pattern.lower():
        return f"{pattern!r}: write domains in lowercase"
    if not _PATTERN.match(pattern):
        return f"{pattern!r} is not a host name (letters, digits, '-' and '.' labels, optional :port)"
    return None


def host_matches(host: str, port: int | None, pattern: str) -> bool:
    name, _, pattern_port = pattern.partition(":")
    if pattern_port and port != int(pattern_port):
        return False
    host = host.lower().rstrip(".")
    if name.startswith("*."):
        return host.endswith(name[1:])
    return host == name


def url_allowed(url: str, patterns: list[str] | tuple[str, ...]) -> bool:
    """True when the URL's host matches one pattern. An empty pattern list allows every host."""
    if not patterns:
        return True
    parts = urlsplit(url)
    if not parts.hostname:
        return False
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return any(host_matches(parts.hostname, port, p) for p in patterns)
