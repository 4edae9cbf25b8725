"""`data.validate-target` (seed 001): is the latest observation the page the recipe is after?

Pure logic over a `PageObservation`: HTTP status, navigation errors, allowed domains, access
blocks and validation keywords, in that order, so the first blocker named is the most basic one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from runtime.outcomes import BlockerKind
from runtime.recipe.domains import url_allowed

SNIPPET_CHARS = 240

# Phrases of captcha pages, WAF denials and bot walls. Matched case-insensitively in title + text.
ACCESS_BLOCK_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\bcaptcha\b",
        r"\baccess denied\b",
        r"\bare you a robot\b",
        r"\bverify (?:that )?you are (?:a )?human\b",
        r"\bunusual traffic\b",
        r"\bbot (?:check|detection|protection)\b",
        r"\brequest (?:was )?blocked\b",
        r"访问被拒绝",
        r"验证码",
        r"人机验证",
    )
)


@dataclass(frozen=True)
class PageObservation:
    """What one navigate/observe (or a followed search result) saw, as plain data."""

    state_id: str
    url: str
    status: int | None
    title: str
    text: str
    error_code: str = ""
    error_message: str = ""
    screenshot_path: str = ""

    @property
    def snippet(self) -> str:
        return " ".join(self.text.split())[:SNIPPET_CHARS]

    def evidence(self) -> dict[str, Any]:
        evidence: dict[str, Any] = {"url": self.url, "status": self.status, "title": self.title, "snippet": self.snippet}
        if self.error_code:
            evidence["error"] = f"{self.error_code}: {self.error_message}"
        return evidence


@dataclass(frozen=True)
class TargetCheck:
    """The verdict of `data.validate-target`: `valid`, or `blocked` with a blocker kind and why."""

    valid: bool
    blocker_kind: BlockerKind | None
    reason: str
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def outcome(self) -> str:
        return "valid" if self.valid else "blocked"


def status_blocker(status: int) -> BlockerKind:
    if status == 404:
        return BlockerKind.PAGE_NOT_FOUND
    if status in (401, 403):
        return BlockerKind.ACCESS_DENIED
    if status >= 500:
        return BlockerKind.SERVER_ERROR
    return BlockerKind.STATUS_MISMATCH


def access_block_phrase(observation: PageObservation) -> str | None:
    haystack = f"{observation.title}\n{observation.text}"
    for pattern in ACCESS_BLOCK_PATTERNS:
        match = pattern.search(haystack)
        if match:
            return match.group(0)
    return None


def validate_target(
    observation: PageObservation,
    *,
    expected_status: int,
    allowed_domains: list[str],
    keywords: list[str],
) -> TargetCheck:
    """Check one observation against the recipe's target. `keywords` are already filled in."""
    evidence = observation.evidence()
    evidence["expected_status"] = expected_status

    def blocked(kind: BlockerKind, reason: str) -> TargetCheck:
        return TargetCheck(False, kind, reason, evidence)

    if observation.error_code:
        return blocked(BlockerKind.NAVIGATION_FAILED, observation.error_message or f"could not load {observation.url}: {observation.error_code}")
    if observation.status is not None and observation.status != expected_status:
        kind = status_blocker(observation.status)
        return blocked(kind, f"{observation.url} answered HTTP {observation.status}, expected {expected_status}")
    if not url_allowed(observation.url, allowed_domains):
        return blocked(BlockerKind.DOMAIN_NOT_ALLOWED, f"{observation.url} is not on an allowed domain ({', '.join(allowed_domains)})")
    phrase = access_block_phrase(observation)
    if phrase is not None:
        evidence["block_phrase"] = phrase
        return blocked(BlockerKind.ACCESS_BLOCKED, f"{observation.url} shows an access block ({phrase!r})")
    haystack = f"{observation.title}\n{observation.text}".casefold()
    missing = [k for k in keywords if k.casefold() not in haystack]
    evidence["keywords_found"] = [k for k in keywords if k not in missing]
    if missing:
        evidence["keywords_missing"] = missing
        return blocked(BlockerKind.KEYWORDS_MISSING, f"{observation.url} lacks the keyword(s) {', '.join(map(repr, missing))}")
    return TargetCheck(True, None, f"{observation.url} is the target: HTTP {observation.status}, allowed domain, keywords present", evidence)


# What the replanner is told per blocker (seed 001's blocker-specific guidance).
REPLAN_GUIDANCE: dict[BlockerKind, str] = {
    BlockerKind.PAGE_NOT_FOUND: "the last page returned 404; search for a fresh page and validate it before parsing",
    BlockerKind.ACCESS_DENIED: "the site refused access (401/403); look for another source on an allowed domain",
    BlockerKind.ACCESS_BLOCKED: "the page is a captcha or bot wall; do not retry it, search for another source",
    BlockerKind.SERVER_ERROR: "the server failed (5xx); search for a mirror or another page on an allowed domain",
    BlockerKind.STATUS_MISMATCH: "the page answered an unexpected HTTP status; search for the canonical page",
    BlockerKind.DOMAIN_NOT_ALLOWED: "the page is outside the allowed domains; search and follow only allowed-domain results",
    BlockerKind.KEYWORDS_MISSING: "the page does not mention the target; search with stricter keywords",
    BlockerKind.NAVIGATION_FAILED: "the page could not be loaded; search for a reachable page",
    BlockerKind.NO_SEARCH_RESULTS: "the search found nothing usable; loosen the query",
    BlockerKind.EXTRACTION_FAILED: "the page lacks the fields to extract; search for a page that shows them",
    BlockerKind.QUOTE_FETCH_FAILED: "the quote could not be read from the page; search for a fresh quote page and validate before parsing",
}
