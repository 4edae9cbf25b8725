"""From an allowed judgement to the addresses the proxy may connect to.

The proxy resolves names itself and connects only to an address it has just vetted, never to the
name again: a DNS answer that changes between the check and the connection (rebinding) cannot
move the request to a private address.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from ipaddress import ip_address

from runtime.policy.addresses import private_class
from runtime.policy.domain_patterns import is_localhost_name
from runtime.policy.urls import UrlJudgement

# (name, port) -> IP address strings, in the order to try them.
Resolver = Callable[[str, int], Awaitable[list[str]]]

LOOPBACK_ADDRESSES = ["127.0.0.1", "::1"]


async def system_resolver(name: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(name, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class UpstreamRefused(Exception):
    """The name resolved only to private addresses the policy does not allow."""

    def __init__(self, reason: str, klass: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.private_class = klass


class ResolutionFailed(Exception):
    """The name did not resolve (or not in time)."""


@dataclass(frozen=True)
class Upstream:
    addresses: tuple[str, ...]
    port: int


async def vetted_upstream(judgement: UrlJudgement, resolver: Resolver, timeout: float) -> Upstream:
    """The addresses an allowed judgement may reach, private ones removed when it asks for that."""
    host, port = judgement.endpoint, judgement.port
    assert judgement.allowed and host is not None and port is not None, "only allowed judgements reach upstream"
    if host.address is not None:
        return Upstream((host.bare,), port)
    if is_localhost_name(host.bare):
        return Upstream(tuple(LOOPBACK_ADDRESSES), port)  # RFC 6761, as Chromium does: never asked of DNS
    try:
        answers = await asyncio.wait_for(resolver(host.bare, port), timeout)
    except (OSError, asyncio.TimeoutError) as error:
        raise ResolutionFailed(f"{host.bare} did not resolve: {error or 'timed out'}") from None
    addresses = [a for a in answers if _is_address(a)]
    if not addresses:
        raise ResolutionFailed(f"{host.bare} resolved to no address")
    if not judgement.check_resolved_addresses:
        return Upstream(tuple(addresses), port)
    public = [a for a in addresses if private_class(ip_address(a)) is None]
    if not public:
        first = addresses[0]
        klass = private_class(ip_address(first)) or "private"
        reason = f"{host.bare} resolves to {first}, a {klass} address; private networks are not allowed for this run"
        raise UpstreamRefused(reason, klass)
    return Upstream(tuple(public), port)


def _is_address(text: str) -> bool:
    try:
        ip_address(text)
    except ValueError:
        return False
    return True
