"""`NetworkPolicy`: where one run may send requests. Plain data, built once per run."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from runtime.policy.domain_patterns import DomainPattern, parse_domain_pattern
from runtime.policy.hosts import Host


@dataclass(frozen=True)
class NetworkPolicy:
    """`allowed_domains` as in a recipe's target (empty: every host).

    Private addresses (loopback, RFC 1918, link-local, metadata ...) need one of:
    - `allow_private_network`: the run may reach any private host its patterns admit;
    - an allowed_domains entry that is that IP literal or a localhost name, while
      `listed_private_hosts` holds. A recipe run from the command line is its author's own, so
      its listed hosts count; a recipe sent to the server over gRPC is someone else's, and there
      only the server's configuration may open private networks (`listed_private_hosts=False`).
    """

    patterns: tuple[DomainPattern, ...] = ()
    allow_private_network: bool = False
    listed_private_hosts: bool = True

    @classmethod
    def of(cls, allowed_domains: Iterable[str], *, allow_private_network: bool = False, listed_private_hosts: bool = True) -> NetworkPolicy:
        """Raises DomainPatternError on a bad entry (recipes are validated before this)."""
        return cls(tuple(parse_domain_pattern(p) for p in allowed_domains), allow_private_network, listed_private_hosts)

    @property
    def allowed_domains(self) -> list[str]:
        return [p.text for p in self.patterns]

    def matching_pattern(self, host: Host, port: int) -> DomainPattern | None:
        return next((p for p in self.patterns if p.matches(host, port)), None)

    def also_allowing(self, endpoints: Iterable[tuple[Host, int]]) -> NetworkPolicy:
        """This policy plus exact `host:port` entries (a recipe's fallback search page, which is
        where the recipe says to search, not a target). An empty pattern list already allows
        every host, so it stays empty."""
        if not self.patterns:
            return self
        added = tuple(DomainPattern(text=f"{host.name}:{port}", host=host, wildcard=False, port=port) for host, port in endpoints)
        return replace(self, patterns=self.patterns + tuple(p for p in added if p not in self.patterns))
