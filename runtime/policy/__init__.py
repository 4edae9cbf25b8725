"""The network policy: one judge for "may this run send a request there?" and its enforcement.

A leaf package (stdlib, `runtime.outcomes`, `idna`): recipes, the executor and the browser session
all import it; it imports none of them.
"""

from runtime.policy.addresses import private_class
from runtime.policy.blocked_log import EXTERNAL_PROTOCOL, BlockedLog, BlockedRequest, OnBlocked
from runtime.policy.domain_patterns import (
    DomainPattern,
    DomainPatternError,
    domain_pattern_problem,
    is_localhost_name,
    parse_domain_pattern,
)
from runtime.policy.hosts import Host, HostError, HostKind, parse_host
from runtime.policy.network_policy import NetworkPolicy
from runtime.policy.proxy import PROXY_BYPASS_LIST, PolicyProxy
from runtime.policy.urls import UrlJudgement, judge_connect, judge_url, parse_url, url_allowed

__all__ = [
    "PROXY_BYPASS_LIST",
    "BlockedLog",
    "BlockedRequest",
    "EXTERNAL_PROTOCOL",
    "DomainPattern",
    "DomainPatternError",
    "Host",
    "HostError",
    "HostKind",
    "NetworkPolicy",
    "OnBlocked",
    "PolicyProxy",
    "UrlJudgement",
    "domain_pattern_problem",
    "is_localhost_name",
    "judge_connect",
    "judge_url",
    "parse_domain_pattern",
    "parse_host",
    "parse_url",
    "private_class",
    "url_allowed",
]
