"""Allowed-domain patterns for recipes: the rules live in `runtime.policy` (the one URL judge);
this module keeps the names recipe checks and the executor import."""

from __future__ import annotations

from runtime.policy.domain_patterns import domain_pattern_problem
from runtime.policy.urls import url_allowed

__all__ = ["domain_pattern_problem", "url_allowed"]
