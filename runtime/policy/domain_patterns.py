"""Allowed-domain patterns: `example.com`, `*.example.com`, `127.0.0.1:8080`, `[::1]:8080`.

Decision (documented in the README): `*.example.com` matches any subdomain at any depth
(`a.example.com`, `a.b.example.com`) but NOT `example.com` itself; list `example.com` too to allow
the apex. This follows TLS certificate wildcards and keeps a wildcard from silently widening to the
apex, where a different service often lives. A pattern may carry a port (`127.0.0.1:8080`); a
pattern without one matches any port. A pattern's host is parsed like a URL's (`hosts.parse_host`),
so `0x7f.0.0.1` and `127.0.0.1` name the same address and compare equal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from runtime.policy.hosts import Host, HostError, HostKind, parse_host

_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
_PORT = re.compile(r"[0-9]{1,5}")
MAX_PORT = 65535


class DomainPatternError(ValueError):
    """Why a text is not an allowed-domain pattern (the message is shown to the recipe author)."""


@dataclass(frozen=True)
class DomainPattern:
    """One allowed-domain entry, parsed. For a wildcard, `host` is the part after `*.`."""

    text: str
    host: Host
    wildcard: bool
    port: int | None

    def matches(self, host: Host, port: int) -> bool:
        if self.port is not None and port != self.port:
            return False
        if self.wildcard:
            return host.kind is HostKind.DOMAIN and host.bare.endswith("." + self.host.bare)
        return host.kind is self.host.kind and host.bare == self.host.bare

    @property
    def names_loopback_or_literal(self) -> bool:
        """The entry itself names a private host: an IP literal, or `localhost` / `*.localhost`
        (RFC 6761: those names are loopback). A recipe that lists one means that host."""
        return self.host.kind is not HostKind.DOMAIN or is_localhost_name(self.host.bare)


def is_localhost_name(name: str) -> bool:
    """`localhost` and every name under `.localhost` resolve to loopback (RFC 6761), in Chromium too."""
    name = name.rstrip(".").lower()
    return name == "localhost" or name.endswith(".localhost")


def parse_domain_pattern(text: str) -> DomainPattern:
    """Parse one entry; raises DomainPatternError naming what is wrong."""
    if "://" in text or "/" in text:
        raise DomainPatternError(f"{text!r} is a URL; give a host such as example.com or *.example.com")
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        raise DomainPatternError(f"{text!r} contains whitespace or a control character")
    if text.count("*") > 1 or ("*" in text and not text.startswith("*.")):
        raise DomainPatternError(f"{text!r}: a wildcard may only be a leading `*.` label, as in *.example.com")
    if text != text.lower():
        raise DomainPatternError(f"{text!r}: write domains in lowercase")
    wildcard = text.startswith("*.")
    name, port_text = _split_port(text.removeprefix("*."), text)
    port = _port(port_text, text) if port_text is not None else None
    if name.startswith("["):
        host = _parsed(name, text)
    else:
        if not name.isascii():
            raise DomainPatternError(f"{text!r}: write international domains in punycode ({_punycode_hint(name)})")
        if not _NAME.fullmatch(name):
            raise DomainPatternError(f"{text!r} is not a host name (letters, digits, '-' and '.' labels, optional :port)")
        host = _parsed(name, text)
    if wildcard and host.kind is not HostKind.DOMAIN:
        raise DomainPatternError(f"{text!r}: a wildcard needs a domain name, not an IP address")
    return DomainPattern(text=text, host=host, wildcard=wildcard, port=port)


def domain_pattern_problem(text: str) -> str | None:
    """Why `text` is not a valid allowed-domain pattern, or None when it is."""
    try:
        parse_domain_pattern(text)
    except DomainPatternError as error:
        return str(error)
    return None


def _split_port(rest: str, text: str) -> tuple[str, str | None]:
    if rest.startswith("["):
        close = rest.find("]")
        if close < 0:
            raise DomainPatternError(f"{text!r}: an IPv6 address must end with ']'")
        name, after = rest[: close + 1], rest[close + 1 :]
        if after and not after.startswith(":"):
            raise DomainPatternError(f"{text!r}: only ':port' may follow an IPv6 address")
        return name, after[1:] if after else None
    if rest.count(":") > 1:
        raise DomainPatternError(f"{text!r}: write an IPv6 address in brackets, as in [::1]:8080")
    name, colon, port = rest.partition(":")
    return name, port if colon else None


def _port(port_text: str, text: str) -> int:
    if not _PORT.fullmatch(port_text) or not 1 <= int(port_text) <= MAX_PORT:
        raise DomainPatternError(f"{text!r}: the port must be a number from 1 to {MAX_PORT}")
    return int(port_text)


def _parsed(name: str, text: str) -> Host:
    try:
        return parse_host(name)
    except HostError as error:
        raise DomainPatternError(f"{text!r}: {error}") from None


def _punycode_hint(name: str) -> str:
    try:
        return parse_host(name).name
    except HostError:
        return "xn--..."
