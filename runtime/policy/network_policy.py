"""`NetworkPolicy`: where one run may send requests. Plain data, built once per run."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from runtime.policy.domain_patterns import DomainPattern, parse_domain_pattern
from runtime.policy.hosts import Host


@dataclass(frozen=True)
class NetworkPolicy:
    """`allowed_domains` as in a recipe's target (empty: every host); `allow_private_network`
    lets requests reach private addresses that no allowed_domains entry names explicitly."""

    patterns: tuple[DomainPattern, ...] = ()
    allow_private_network: bool = False

    @classmethod
    def of(cls, allowed_domains: Iterable[str], *, allow_private_network: bool = False) -> NetworkPolicy:
        """Raises DomainPatternError on a bad entry (recipes are validated before this)."""
        return cls(tuple(parse_domain_pattern(p) for p in allowed_domains), allow_private_network)

    @property
    def allowed_domains(self) -> list[str]:
        return [p.text for p in self.patterns]

    def matching_pattern(self, host: Host, port: int) -> DomainPattern | None:
        return next((p for p in self.patterns if p.matches(host, port)), None)
