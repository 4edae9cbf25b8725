"""The one URL judge: may this run send a request to this URL (or this CONNECT authority)?

Every caller goes through `judge_url`: a recipe's start URL, inputs, fallback results, agent tool
arguments, link targets, and each request the policy proxy sees. The URL is read the way the WHATWG
URL standard (and so Chromium) reads it, never with urllib:

- leading/trailing C0 controls and spaces are stripped, tabs and newlines anywhere removed;
- for http(s)/ws(s) any mix of `/` and `\\` after the scheme starts the authority, and `\\` ends it;
- the host is what follows the LAST `@` of the authority (userinfo is dropped);
- the host is percent-decoded, UTS #46-mapped, punycoded, lowercased; IPv4 in any numeric form
  and IPv6 literals are canonicalised (`hosts.parse_host`); the default port is implied.

Only http and https may be navigated to; ws and wss only as a WebSocket; about:blank is the one
other URL allowed. Everything else (data:, blob:, javascript:, file:, filesystem:, chrome:,
view-source:, about:*, ...) is `scheme_not_allowed`. Hosts outside `allowed_domains` and private
addresses (unless the policy allows them) are `domain_not_allowed`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from runtime.outcomes import BlockerKind
from runtime.policy.addresses import private_class
from runtime.policy.domain_patterns import MAX_PORT, is_localhost_name
from runtime.policy.hosts import Host, HostError, HostKind, parse_host
from runtime.policy.network_policy import NetworkPolicy

DEFAULT_PORTS: dict[str, int] = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
NAVIGATION_SCHEMES = ("http", "https")
# The WebSocket constructor accepts http(s) URLs too and turns them into ws(s).
WEBSOCKET_SCHEMES = ("ws", "wss", "http", "https")

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_C0_OR_SPACE = "".join(chr(c) for c in range(0x21))
_AUTHORITY_END = re.compile(r"[/\\?#]")
_DIGITS = re.compile(r"[0-9]+")


class UrlError(ValueError):
    """The text is not a URL a browser would load. `part` says which part failed."""

    def __init__(self, message: str, part: str) -> None:
        super().__init__(message)
        self.part = part  # "scheme" or "host"


@dataclass(frozen=True)
class ParsedUrl:
    """Scheme, host and port as the browser reads them. `host` is None for non-special schemes."""

    scheme: str
    host: Host | None
    port: int | None  # None when absent or the scheme's default
    rest: str  # what follows `scheme:` (for special schemes, what follows the authority)

    @property
    def effective_port(self) -> int | None:
        return self.port if self.port is not None else DEFAULT_PORTS.get(self.scheme)


@dataclass(frozen=True)
class UrlJudgement:
    """The judge's answer. `host`/`port`/`scheme` are normalised; `check_resolved_addresses` tells
    the proxy that the host is a name whose resolved addresses must not be private."""

    allowed: bool
    blocker_kind: BlockerKind | None
    reason: str
    url: str
    scheme: str | None = None
    host: str | None = None
    port: int | None = None
    matched_pattern: str | None = None
    private_class: str | None = None
    check_resolved_addresses: bool = False
    endpoint: Host | None = field(default=None, repr=False, compare=False)

    def evidence(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"url": self.url, "allowed": self.allowed, "reason": self.reason}
        if self.blocker_kind is not None:
            shown["blocker_kind"] = self.blocker_kind.value
        for name in ("scheme", "host", "port", "matched_pattern", "private_class"):
            value = getattr(self, name)
            if value is not None:
                shown[name] = value
        return shown


@functools.lru_cache(maxsize=1024)
def parse_url(text: str) -> ParsedUrl:
    """Split an absolute URL like the URL standard's basic parser (no base URL). The result is
    immutable and depends on the text alone, so the same URL (judged by the proxy, the navigation
    and the page check) is parsed once."""
    text = text.strip(_C0_OR_SPACE).replace("\t", "").replace("\n", "").replace("\r", "")
    match = _SCHEME.match(text)
    if match is None:
        raise UrlError(f"{text[:80]!r} is not an absolute URL (no scheme)", "scheme")
    scheme = match.group(0)[:-1].lower()
    after = text[match.end() :]
    if scheme not in DEFAULT_PORTS:
        return ParsedUrl(scheme, None, None, after)
    after = after.lstrip("/\\")
    end = _AUTHORITY_END.search(after)
    authority, rest = (after[: end.start()], after[end.start() :]) if end else (after, "")
    host_port = authority.rpartition("@")[2]
    host_text, port_text = split_host_port(host_port)
    if not host_text:
        raise UrlError(f"{text[:80]!r} has no host", "host")
    port = _port(port_text, text) if port_text else None
    if port == DEFAULT_PORTS[scheme]:
        port = None
    try:
        host = parse_host(host_text)
    except HostError as error:
        raise UrlError(str(error), "host") from None
    return ParsedUrl(scheme, host, port, rest)


def split_host_port(host_port: str) -> tuple[str, str | None]:
    """`host:port` split at the first colon outside `[...]`; the port text may be empty."""
    inside = False
    for index, char in enumerate(host_port):
        if char == "[":
            inside = True
        elif char == "]":
            inside = False
        elif char == ":" and not inside:
            return host_port[:index], host_port[index + 1 :]
    return host_port, None


def _port(port_text: str, text: str) -> int:
    if not _DIGITS.fullmatch(port_text) or int(port_text) > MAX_PORT:
        raise UrlError(f"{text[:80]!r}: the port {port_text!r} is not a number from 0 to {MAX_PORT}", "host")
    return int(port_text)


def judge_url(url: str, policy: NetworkPolicy, *, websocket: bool = False) -> UrlJudgement:
    """May a request (a navigation, a subresource, or with `websocket` a WebSocket) go to `url`?"""
    try:
        parsed = parse_url(url)
    except UrlError as error:
        kind = BlockerKind.SCHEME_NOT_ALLOWED if error.part == "scheme" else BlockerKind.DOMAIN_NOT_ALLOWED
        return UrlJudgement(False, kind, str(error), url)
    if not websocket and parsed.scheme == "about" and _is_about_blank(parsed.rest):
        return UrlJudgement(True, None, "about:blank is an empty page", url, scheme="about")
    schemes = WEBSOCKET_SCHEMES if websocket else NAVIGATION_SCHEMES
    if parsed.scheme not in schemes:
        what = "a WebSocket" if websocket else "a page or request"
        hint = "; ws: and wss: only for a WebSocket" if parsed.scheme in ("ws", "wss") else ""
        return UrlJudgement(
            False, BlockerKind.SCHEME_NOT_ALLOWED, f"{parsed.scheme}: is not allowed for {what} (only {', '.join(schemes)}){hint}", url,
            scheme=parsed.scheme,
        )
    assert parsed.host is not None and parsed.effective_port is not None
    return judge_endpoint(parsed.host, parsed.effective_port, policy, url=url, scheme=parsed.scheme)


def judge_connect(authority: str, policy: NetworkPolicy) -> UrlJudgement:
    """Judge a proxy CONNECT target `host:port` (https and WebSocket tunnels)."""
    host_text, port_text = split_host_port(authority)
    if not host_text or not port_text:
        return UrlJudgement(False, BlockerKind.DOMAIN_NOT_ALLOWED, f"{authority[:80]!r} is not host:port", authority)
    try:
        port = _port(port_text, authority)
        host = parse_host(host_text)
    except (UrlError, HostError) as error:
        return UrlJudgement(False, BlockerKind.DOMAIN_NOT_ALLOWED, str(error), authority)
    return judge_endpoint(host, port, policy, url=authority, scheme=None)


def judge_endpoint(host: Host, port: int, policy: NetworkPolicy, *, url: str, scheme: str | None) -> UrlJudgement:
    """The host rules, once scheme and syntax are settled: allowed_domains, then private networks."""
    where = {"url": url, "scheme": scheme, "host": host.name, "port": port, "endpoint": host}
    pattern = policy.matching_pattern(host, port)
    if policy.patterns and pattern is None:
        listed = ", ".join(policy.allowed_domains)
        return UrlJudgement(False, BlockerKind.DOMAIN_NOT_ALLOWED, f"{host.name}:{port} is not on an allowed domain ({listed})", **where)
    matched = pattern.text if pattern else None
    named_explicitly = pattern is not None and pattern.names_loopback_or_literal and policy.listed_private_hosts
    address = host.address
    if address is not None:
        klass = private_class(address)
    elif is_localhost_name(host.bare):
        klass = "loopback"
    else:
        klass = None
    if klass is not None and not policy.allow_private_network and not named_explicitly:
        how = (
            "a private host must be listed in allowed_domains as an IP literal or localhost name, or the policy must allow private networks"
            if policy.listed_private_hosts
            else "private networks are not allowed for this run (the server's allow_private_network)"
        )
        reason = f"{host.name} is a {klass} address; {how}"
        return UrlJudgement(False, BlockerKind.DOMAIN_NOT_ALLOWED, reason, matched_pattern=matched, private_class=klass, **where)
    check_resolved = host.kind is HostKind.DOMAIN and klass is None and not policy.allow_private_network
    reason = f"{host.name}:{port} is allowed" + (f" by {matched!r}" if matched else " (no allowed_domains: every host)")
    return UrlJudgement(True, None, reason, matched_pattern=matched, private_class=klass, check_resolved_addresses=check_resolved, **where)


def _is_about_blank(rest: str) -> bool:
    return rest == "blank" or rest.startswith(("blank?", "blank#"))


def scheme_problem(url: str) -> str | None:
    """The judge's scheme question alone: why `url` can never be opened (not an absolute URL, or a
    scheme other than http(s)), or None. Asked of the URLs a recipe names when it is validated;
    the host question needs the run's policy and is asked when the run opens the page."""
    judgement = judge_url(url, _domains_only(()))
    if judgement.allowed or judgement.blocker_kind is not BlockerKind.SCHEME_NOT_ALLOWED:
        return None
    return judgement.reason


def url_allowed(url: str, allowed_domains: list[str] | tuple[str, ...]) -> bool:
    """Is `url` an http(s) URL on an allowed domain? The domain question alone (private networks
    allowed), for checks of a page already loaded; an empty list allows every host."""
    judgement = judge_url(url, _domains_only(tuple(allowed_domains)))
    return judgement.allowed and judgement.host is not None


@functools.lru_cache(maxsize=64)
def _domains_only(allowed_domains: tuple[str, ...]) -> NetworkPolicy:
    return NetworkPolicy.of(allowed_domains, allow_private_network=True)
