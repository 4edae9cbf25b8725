"""`data.validate-target` (seed 001): is the latest observation the page the recipe is after?

Pure logic over a `PageObservation`, in this order, so the first blocker named is the most basic:

1. the URL, through the one URL judge (`runtime/policy/urls.judge_url`): scheme, then domain. It
   comes before the status, so the policy proxy's 403 refusal of another host is reported as the
   domain it refused, not as access_denied;
2. a navigation that failed with no response is `navigation_failed`;
3. what the page is (`page_blockers.detect_blocker`): status, headers, title, headings, text. A
   login page is no blocker for a run that means to log in (`login_intent.LoginMeans`): it is
   the page the run works on, and its evidence says so (`login_page`);
4. the validation keywords.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from runtime.browser.vocabulary.document import DocumentIdentity
from runtime.execute.judges.covering_layer import CoveringLayer
from runtime.execute.judges.login_intent import LoginMeans
from runtime.execute.judges.page_blockers import BLOCKER_GUIDANCE, BlockerFinding, PageSignals, detect_blocker
from runtime.outcomes import BlockerKind
from runtime.policy.network_policy import NetworkPolicy
from runtime.policy.urls import UrlJudgement, judge_url

SNIPPET_CHARS = 240


@dataclass(frozen=True)
class PageObservation:
    """What one navigate/observe (or a followed search result) saw, as plain data.

    `requested_url` is where a navigation was sent (a redirect may have moved it); `headings`,
    `visible_text`, the password field and captcha widget flags and `headers` are what blocker
    detection reads; `document` is the identity of the document all of it was read from, and
    `content_digest` a hash of its content at that moment.
    """

    state_id: str
    url: str
    status: int | None
    title: str
    text: str
    error_code: str = ""
    error_message: str = ""
    screenshot_path: str = ""
    requested_url: str = ""
    headings: tuple[str, ...] = ()
    visible_text: str = ""
    has_password_field: bool = False
    has_captcha_widget: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    document: DocumentIdentity | None = None
    content_digest: str = ""
    # Why the readable text is not trafilatura's (the page's HTML was over the size limit).
    text_note: str = ""
    # The layer drawn over the page when it was read (scripts/covering_layer.js), if one covered it.
    cover: dict[str, Any] | None = None

    @property
    def snippet(self) -> str:
        return " ".join((self.text or self.visible_text).split())[:SNIPPET_CHARS]

    def evidence(self) -> dict[str, Any]:
        evidence: dict[str, Any] = {"url": self.url, "status": self.status, "title": self.title, "snippet": self.snippet}
        if self.error_code:
            evidence["error"] = f"{self.error_code}: {self.error_message}"
        if self.document is not None:
            evidence["document"] = self.document.to_dict()
        if self.text_note:
            evidence["readable_text"] = self.text_note
        return evidence

    def signals(self) -> PageSignals:
        return PageSignals(
            url=self.url,
            status=self.status,
            title=self.title,
            text=self.visible_text or self.text,
            headings=self.headings,
            headers=self.headers,
            requested_url=self.requested_url,
            has_password_field=self.has_password_field,
            has_captcha_widget=self.has_captcha_widget,
            text_is_shown=bool(self.visible_text),
            cover=CoveringLayer.from_dict(self.cover),
        )


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

    def finding(self) -> BlockerFinding | None:
        return BlockerFinding(self.blocker_kind, self.reason, self.evidence) if self.blocker_kind is not None else None


@functools.lru_cache(maxsize=64)
def _domains_policy(allowed_domains: tuple[str, ...]) -> NetworkPolicy:
    # The page is already loaded: the question is which site it is, not whether the network may
    # reach it, so private networks are the network policy's business, not this check's.
    return NetworkPolicy.of(allowed_domains, allow_private_network=True)


def judge_page_url(url: str, allowed_domains: list[str]) -> UrlJudgement:
    """The URL judge on a page's URL; an allowed URL with no host (about:blank) is no web page."""
    judgement = judge_url(url, _domains_policy(tuple(allowed_domains)))
    if judgement.allowed and judgement.host is None:
        return UrlJudgement(False, BlockerKind.SCHEME_NOT_ALLOWED, f"{url} is not a web page", url, scheme=judgement.scheme)
    return judgement


def _refused_frame(layer: CoveringLayer, allowed_domains: list[str]) -> UrlJudgement | None:
    """The judgement on the first web frame in `layer` from a site the recipe does not allow."""
    for url in layer.frames:
        if url.startswith(("http://", "https://")):
            judgement = judge_page_url(url, allowed_domains)
            if not judgement.allowed:
                return judgement
    return None


def validate_target(
    observation: PageObservation,
    *,
    expected_status: int,
    allowed_domains: list[str],
    keywords: list[str],
    login: LoginMeans | None = None,
) -> TargetCheck:
    """Check one observation against the recipe's target. `keywords` are already filled in;
    `login` is how the run logs in, when it can."""
    evidence = observation.evidence()
    evidence["expected_status"] = expected_status

    def blocked(kind: BlockerKind, reason: str, **extra: Any) -> TargetCheck:
        return TargetCheck(False, kind, reason, {**evidence, **extra})

    url = observation.url or observation.requested_url
    judgement = judge_page_url(url, allowed_domains) if url else None
    if judgement is not None and not judgement.allowed:
        assert judgement.blocker_kind is not None
        return blocked(judgement.blocker_kind, f"{url}: {judgement.reason}", url_judgement=judgement.evidence())
    if observation.error_code and observation.status is None:
        return blocked(BlockerKind.NAVIGATION_FAILED, observation.error_message or f"could not load {url}: {observation.error_code}")
    finding = detect_blocker(observation.signals(), expected_status=expected_status)
    # An HTTP authentication challenge (WWW-Authenticate) is no form a plan can fill.
    if finding is not None and finding.kind is BlockerKind.LOGIN_REQUIRED and login is not None and "www_authenticate" not in finding.evidence:
        evidence["login_page"] = {"detected": finding.reason, "run_logs_in": login.evidence()}
        finding = None
    if finding is not None:
        return blocked(finding.kind, finding.reason, **{k: v for k, v in finding.evidence.items() if k not in ("url", "status")})
    if observation.error_code:
        return blocked(BlockerKind.NAVIGATION_FAILED, observation.error_message or f"could not load {url}: {observation.error_code}")
    layer = CoveringLayer.from_dict(observation.cover)
    if layer is not None:  # a layer over the page that is no wall: no blocker, but on the record
        evidence["covering_layer"] = layer.evidence()
        # A frame drawn over the page from a site the recipe does not allow: what a person meets
        # there is unknown to the run (the policy refused it), so the page under it is not judged valid.
        refused = _refused_frame(layer, allowed_domains)
        if refused is not None:
            assert refused.blocker_kind is not None
            reason = f"{url} is covered by {layer.named()}, a frame from {refused.url}: {refused.reason}"
            return blocked(refused.blocker_kind, reason, signal="covering_layer", url_judgement=refused.evidence())
    # The keywords must be in what the page shows: its title or its visible text. The readable
    # text (trafilatura, from the HTML) also holds text the page hides, which a page could fill
    # with any keyword, so it never counts, not even on a page that shows no text at all.
    haystack = f"{observation.title}\n{observation.visible_text}".casefold()
    missing = [k for k in keywords if k.casefold() not in haystack]
    evidence["keywords_found"] = [k for k in keywords if k not in missing]
    if missing:
        return blocked(BlockerKind.KEYWORDS_MISSING, f"{url} lacks the keyword(s) {', '.join(map(repr, missing))}", keywords_missing=missing)
    return TargetCheck(True, None, f"{url} is the target: HTTP {observation.status}, allowed domain, no blocker, keywords present", evidence)


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
    **BLOCKER_GUIDANCE,
}
