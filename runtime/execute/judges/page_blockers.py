"""Which blocker a loaded page is: soft 404, login wall, captcha, bot wall, rate limit, refusal,
server error or unexpected status, from its status, headers, URL, title, headings and text.

Pure: target validation passes what the browser saw as `PageSignals` and gets a `BlockerFinding`
(kind, reason, evidence) or None. The rules, in order (README "Outcomes" repeats them):

1. HTTP 429 is `rate_limited`, with `Retry-After` (seconds or an HTTP date) in the evidence.
2. Any other status than the expected one is classified by status, refined by what the page
   says: 404/410 `page_not_found`; 401 `login_required` when it carries a `WWW-Authenticate`
   challenge or login signals, else `access_denied`; 403 `access_denied` unless the page is a
   captcha, bot wall or login wall; 451 (unavailable for legal reasons) `access_denied`; 5xx `server_error` unless it is a captcha or bot wall or says
   it is rate limiting; anything else `status_mismatch`. On an error status a phrase counts
   wherever it stands in the title or a heading, and a strong phrase anywhere in the text.
3. A page with the expected status is a blocker only when it says so prominently (the finding is
   marked `soft`): when a title segment (the title split at " | ", " - ", "_" ...) or the main
   heading is about a phrase and nothing else (fillers such as "Oops", "404", "抱歉" aside); or,
   on a short page (at most SHORT_PAGE_CHARS of visible text, a CJK character counting as three),
   when another heading is about one, or a strong phrase appears in the text outside the
   headings. A heading that names a phrase among other words ("How to fix HTTP 429 Too Many
   Requests errors") is about the subject, not a block. So an article about captchas, a footer
   "Log in" link and a product called "404 Error Coffee" are not blockers, while
   "Page not found | Shop" with a long menu and footer is.
   A bare page (at most BARE_PAGE_CHARS, no price or decimal on it) is also one whose title
   segment or main heading is about a placeholder word ("Coming soon", "It works!") alone, or
   whose text says it is a placeholder ("This site is under construction"); on a page with
   content, such a sentence counts only as its title or main heading (a banner is no placeholder).
   Precedence: rate_limited, captcha, access_blocked, login_required, page_not_found,
   access_denied, server_error.
4. Login walls have extra signals: a redirect from the requested URL to a sign-in path
   (/login, /signin, /auth ...), or a password field together with a login word in the title or
   main heading, or anywhere on a short page. A captcha widget counts on a short page or with a
   captcha word in the title or main heading.
5. A recipe that expects an error status (say 404) gets no text-based detection on that page.
6. A layer drawn over the content (`covering_layer`) is what a person meets first: on a page that
   is no blocker by the rules above, its headings, text, password field and captcha widget are
   judged by them as a page of their own (a short one, as such a layer is), so a sign-in box, a
   paywall or a captcha over a long article is that wall. A layer that is no wall is no blocker,
   nor is a sign-in or subscribe prompt that offers a way past it (a close button, "Maybe later",
   "Continue without signing in"): a popup over a page a person reads once it is put away, unless
   the value read lies inside the prompt itself.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

from runtime.execute.judges.blocker_phrases import FILLERS, LOGIN_PATH, PHRASES, PhraseSet
from runtime.execute.judges.covering_layer import CoveringLayer
from runtime.outcomes import BlockerKind

SHORT_PAGE_CHARS = 1000
# A page with almost nothing but its title and heading, and no value on it (a price, a decimal):
# a placeholder ("Coming soon", "It works!"), not a small shop shelf headed "Coming soon".
BARE_PAGE_CHARS = 300
# A decimal (not a dotted date such as 01.12.2026) or an amount of money.
_VALUE = re.compile(r"(?<![\d.])\d+[.,]\d+(?![\d.])|[$€£¥₹]\s?\d|\d\s?(?:元|円|usd|eur|cny|gbp|jpy)\b", re.IGNORECASE)
_WIDE_SCRIPT = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_TITLE_SEPARATORS = re.compile(r"\s+[|\-–—·:»]+\s+|\s*[_｜|]\s*|::")
_RETRY_IN_TEXT = re.compile(
    r"(?:try again|retry|wait)\D{0,20}?(\d{1,5})\s*(seconds?|secs?|s|minutes?|mins?)\b|(\d{1,5})\s*(秒|分钟)(?:后|之后)", re.IGNORECASE
)


@dataclass(frozen=True)
class PageSignals:
    """What the browser saw of one document. `headings` are h1-h3 texts in page order (the first
    is the main heading); `text` is the visible text; `requested_url` is where the navigation was
    sent, when a redirect may have moved it."""

    url: str
    status: int | None
    title: str = ""
    text: str = ""
    headings: tuple[str, ...] = ()
    headers: Mapping[str, str] = field(default_factory=dict)
    requested_url: str = ""
    has_password_field: bool = False
    has_captcha_widget: bool = False
    # False when `text` is the readable text from the HTML (the page showed none): it holds what
    # no browser running scripts shows, such as a <noscript> notice.
    text_is_shown: bool = True
    # The layer drawn over the content, when one covers the page (rule 6).
    cover: CoveringLayer | None = None


@dataclass(frozen=True)
class BlockerFinding:
    kind: BlockerKind
    reason: str
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def soft(self) -> bool:
        return bool(self.evidence.get("soft"))


def _clean(text: str) -> str:
    """The text as the phrases are written: NFKC, straight apostrophes, single spaces, lower case."""
    return " ".join(unicodedata.normalize("NFKC", text).replace("’", "'").split()).lower()


@dataclass(frozen=True)
class _Reading:
    """The page's text prepared for matching."""

    title_segments: tuple[str, ...]
    main_heading: str
    headings: tuple[str, ...]
    text: str
    text_is_shown: bool = True

    @classmethod
    def of(cls, page: PageSignals) -> _Reading:
        title = _clean(page.title)
        segments = tuple(s for s in _TITLE_SEPARATORS.split(title) if s.strip())
        headings = tuple(h for h in (_clean(h) for h in page.headings) if h)
        main = headings[0] if headings else ""
        return cls((title, *segments) if title else (), main, headings, _clean(page.text), page.text_is_shown)

    @functools.cached_property
    def short(self) -> bool:
        return _weighted_length(self.text) <= SHORT_PAGE_CHARS

    @functools.cached_property
    def bare(self) -> bool:
        return _weighted_length(self.text) <= BARE_PAGE_CHARS and not _VALUE.search(self.text)

    @property
    def body(self) -> str:
        """The visible text less the headings: a heading counts only when it is about a phrase."""
        body = self.text
        for heading in self.headings:
            body = body.replace(heading, " ", 1)
        return body

    def lines(self) -> tuple[tuple[str, str], ...]:
        return (*(("title", s) for s in self.title_segments), *((("heading", self.main_heading),) if self.main_heading else ()))


def _weighted_length(text: str) -> int:
    """Characters, a CJK one counting as three: one carries about as much as a short English word."""
    if len(text) > SHORT_PAGE_CHARS:  # long enough whatever its script; counting would cost more
        return len(text)
    return len(text) + 2 * len(_WIDE_SCRIPT.findall(text))


def _first(patterns: tuple[re.Pattern[str], ...], text: str) -> re.Match[str] | None:
    """The match of the first of `patterns` (in their order) found in `text`."""
    return next((m for m in (p.search(text) for p in patterns) if m is not None), None)


def _about(line: str, patterns: tuple[re.Pattern[str], ...]) -> str | None:
    """The first phrase `line` is about and nothing else (fillers aside)."""
    for pattern in patterns:
        match = pattern.search(line)
        if match is None:
            continue
        rest = FILLERS.sub(" ", line[: match.start()] + " " + line[match.end() :])
        if not re.search(r"[^\W_]", rest):
            return match.group(0)
    return None


def _prominent(phrases: PhraseSet, reading: _Reading) -> tuple[str, str] | None:
    """(phrase, where) when the page says it is this kind of blocker (rule 3)."""
    for where, line in reading.lines():
        lines = phrases.strong + phrases.weak + phrases.placeholder + phrases.shown + (phrases.bare if reading.bare else ())
        if (phrase := _about(line, lines)) is not None:
            return phrase, where
    if reading.short:
        for heading in reading.headings[1:]:
            if (phrase := _about(heading, phrases.strong + phrases.weak)) is not None:
                return phrase, "heading"
        in_text = phrases.strong + (phrases.shown if reading.text_is_shown else ()) + (phrases.placeholder if reading.bare else ())
        if match := _first(in_text, reading.body):
            return match.group(0), "text"
    return None


def _mentioned(phrases: PhraseSet, reading: _Reading) -> tuple[str, str] | None:
    """(phrase, where) for an error page: any phrase in the title or a heading, a strong one anywhere."""
    places = (*(("title", s) for s in reading.title_segments[:1]), *(("heading", h) for h in reading.headings))
    for where, line in places:
        if match := _first(phrases.strong + phrases.weak + phrases.shown, line):
            return match.group(0), where
    if match := _first(phrases.strong + (phrases.shown if reading.text_is_shown else ()), reading.text):
        return match.group(0), "text"
    return None


def _phrases(kind: BlockerKind) -> PhraseSet:
    return next(p for p in PHRASES if p.kind is kind)


def _login_signal(page: PageSignals, reading: _Reading, *, error_page: bool) -> tuple[str, str] | None:
    """(signal, detail) when the page is a login wall (rule 4)."""
    login = _phrases(BlockerKind.LOGIN_REQUIRED)
    requested = urlsplit(page.requested_url).path if page.requested_url else ""
    if requested and not LOGIN_PATH.search(requested) and LOGIN_PATH.search(urlsplit(page.url).path):
        return "redirect", f"redirected from {page.requested_url} to the sign-in page {page.url}"
    found = _mentioned(login, reading) if error_page else _prominent(login, reading)
    if found is not None:
        return "text", f"{found[0]!r} in the {found[1]}"
    if page.has_password_field:
        lines = [reading.title_segments[0] if reading.title_segments else "", reading.main_heading]
        if reading.short:
            lines.append(reading.text)
        for line in lines:
            if match := _first(login.strong + login.weak, line):
                return "form", f"a password field and {match.group(0)!r}"
    return None


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """`Retry-After` as seconds from now: delay-seconds or an HTTP date (RFC 9110 10.2.3)."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _header(page: PageSignals, name: str) -> str | None:
    return next((v for k, v in page.headers.items() if k.lower() == name), None)


def _retry_evidence(page: PageSignals, reading: _Reading, now: datetime | None) -> dict[str, Any]:
    """When to ask again: the `Retry-After` header, else a "try again in 30 seconds" on the page."""
    header = _header(page, "retry-after")
    if header is not None:
        return {"retry_after": header, "retry_after_seconds": retry_after_seconds(header, now), "retry_after_source": "header"}
    match = _RETRY_IN_TEXT.search(reading.text)
    if match is None:
        return {}
    amount, unit = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
    minutes = unit.lower().startswith("m") or unit == "分钟"
    return {"retry_after": match.group(0), "retry_after_seconds": float(amount) * (60 if minutes else 1), "retry_after_source": "text"}


def _finding(page: PageSignals, reading: _Reading, kind: BlockerKind, reason: str, signal: str, **extra: Any) -> BlockerFinding:
    evidence = {"url": page.url, "status": page.status, "page_chars": len(reading.text), "signal": signal, "soft": False, **extra}
    return BlockerFinding(kind, reason, evidence)


def _captcha_widget(page: PageSignals, reading: _Reading, *, error_page: bool) -> tuple[str, str] | None:
    """A captcha widget counts on an error page, on a short page, or under a captcha title or heading."""
    if not page.has_captcha_widget:
        return None
    if error_page or reading.short:
        return "captcha widget", "form"
    heads = _Reading(reading.title_segments[:1], reading.main_heading, (reading.main_heading,), "")
    return _mentioned(_phrases(BlockerKind.CAPTCHA), heads)


def detect_blocker(page: PageSignals, *, expected_status: int = 200, now: datetime | None = None) -> BlockerFinding | None:
    """The blocker this page is, or None when it looks like an ordinary page (see the module rules)."""
    reading = _Reading.of(page)
    status = page.status
    if status == 429:
        retry = _retry_evidence(page, reading, now)
        return _finding(page, reading, BlockerKind.RATE_LIMITED, f"{page.url} answered HTTP 429 Too Many Requests", "status", **retry)
    if status is not None and status != expected_status:
        return _by_status(page, reading, status, expected_status, now)
    if not 200 <= expected_status < 300:
        return None
    for phrases in PHRASES:
        if phrases.kind is BlockerKind.LOGIN_REQUIRED:
            login = _login_signal(page, reading, error_page=False)
            if login is not None:
                return _finding(page, reading, phrases.kind, f"{page.url} is a login wall: {login[1]}", login[0], soft=True)
            continue
        hit = _prominent(phrases, reading)
        if hit is None and phrases.kind is BlockerKind.CAPTCHA:
            hit = _captcha_widget(page, reading, error_page=False)
        if hit is not None:
            extra = _retry_evidence(page, reading, now) if phrases.kind is BlockerKind.RATE_LIMITED else {}
            reason = f"{page.url} answered HTTP {status} but says {hit[0]!r} in its {hit[1]}"
            return _finding(page, reading, phrases.kind, reason, "text", soft=True, phrase=hit[0], where=hit[1], **extra)
    return _covered(page, expected_status, now) if page.cover is not None else None


def _covered(page: PageSignals, expected_status: int, now: datetime | None) -> BlockerFinding | None:
    """Rule 6: the layer over the page, judged as the page a person meets."""
    layer = page.cover
    assert layer is not None
    met = PageSignals(
        url=page.url, status=page.status, text=layer.text, headings=layer.headings, headers=page.headers,
        has_password_field=layer.has_password_field, has_captcha_widget=layer.has_captcha_widget,
    )
    finding = detect_blocker(met, expected_status=expected_status, now=now)
    if finding is None or (finding.kind is BlockerKind.LOGIN_REQUIRED and layer.dismissal() is not None and not layer.holds_value):
        # A sign-in or subscribe prompt with a way past it ("Maybe later", "×") is a popup over a
        # page served to anyone, not a wall: the evidence records it and the control. A value read
        # inside it is the prompt's own ("Last seen 999.99"): there it stays a wall.
        return None
    said = finding.reason.removeprefix(f"{page.url} ").removeprefix(f"answered HTTP {page.status} but ")
    reason = f"{page.url} is covered by {layer.named()}, a layer that {said}"
    evidence = {**finding.evidence, "signal": "covering_layer", "layer_signal": finding.evidence.get("signal"), "covering_layer": layer.evidence()}
    return BlockerFinding(finding.kind, reason, evidence)


def _by_status(page: PageSignals, reading: _Reading, status: int, expected: int, now: datetime | None) -> BlockerFinding:
    """Rule 2: an unexpected status, refined by what the page says."""
    for kind in (BlockerKind.RATE_LIMITED, BlockerKind.CAPTCHA, BlockerKind.ACCESS_BLOCKED):
        hit = _mentioned(_phrases(kind), reading)
        if hit is None and kind is BlockerKind.CAPTCHA:
            hit = _captcha_widget(page, reading, error_page=True)
        if hit is not None:
            extra = _retry_evidence(page, reading, now) if kind is BlockerKind.RATE_LIMITED else {}
            reason = f"{page.url} answered HTTP {status} and says {hit[0]!r} in its {hit[1]}"
            return _finding(page, reading, kind, reason, "text", phrase=hit[0], where=hit[1], **extra)
    if status in (404, 410):
        return _finding(page, reading, BlockerKind.PAGE_NOT_FOUND, f"{page.url} answered HTTP {status}", "status")
    if status == 451:
        return _finding(page, reading, BlockerKind.ACCESS_DENIED, f"{page.url} answered HTTP 451 Unavailable For Legal Reasons", "status")
    if status in (401, 403):
        challenge = _header(page, "www-authenticate")
        if status == 401 and challenge:
            reason = f"{page.url} answered HTTP 401 with an authentication challenge"
            return _finding(page, reading, BlockerKind.LOGIN_REQUIRED, reason, "header", www_authenticate=challenge)
        login = _login_signal(page, reading, error_page=True)
        if login is not None:
            reason = f"{page.url} answered HTTP {status} and is a login wall: {login[1]}"
            return _finding(page, reading, BlockerKind.LOGIN_REQUIRED, reason, login[0])
        return _finding(page, reading, BlockerKind.ACCESS_DENIED, f"{page.url} answered HTTP {status}", "status")
    if status >= 500:
        retry = _retry_evidence(page, reading, now)
        return _finding(page, reading, BlockerKind.SERVER_ERROR, f"{page.url} answered HTTP {status}", "status", **retry)
    reason = f"{page.url} answered HTTP {status}, expected {expected}"
    return _finding(page, reading, BlockerKind.STATUS_MISMATCH, reason, "status", expected_status=expected)


# What a replan is told per blocker kind this module adds or sharpens; the executor merges it into
# target_check.REPLAN_GUIDANCE (ACCESS_BLOCKED no longer covers captchas, which have their own kind).
BLOCKER_GUIDANCE: dict[BlockerKind, str] = {
    BlockerKind.LOGIN_REQUIRED: (
        "the page asks to sign in and the run has no credentials; do not guess any: search for a public page on an "
        "allowed domain that shows the same content"
    ),
    BlockerKind.CAPTCHA: "the page is a captcha; do not try to solve or retry it: search for another source on an allowed domain",
    BlockerKind.RATE_LIMITED: (
        "the site is rate limiting this client; do not ask it again before its Retry-After time has passed: wait it out, "
        "or search for another source on an allowed domain"
    ),
    BlockerKind.SCHEME_NOT_ALLOWED: (
        "the URL is not http(s) (file:, data:, blob:, javascript: ...) and cannot be read; search for the page on an allowed domain"
    ),
    BlockerKind.ACCESS_BLOCKED: "the page is a bot wall or firewall block; do not retry it: search for another source on an allowed domain",
}
_SOFT_404_GUIDANCE = (
    "the page answered HTTP 200 but says it does not exist (a soft 404); search for a fresh page and validate it before parsing"
)


def replan_guidance(finding: BlockerFinding, general: Mapping[BlockerKind, str] | None = None) -> str:
    """The guidance sentence for this finding: BLOCKER_GUIDANCE over `general`, with the Retry-After
    wait spelt out for rate limits and a soft 404 said to be one."""
    if finding.kind is BlockerKind.PAGE_NOT_FOUND and finding.soft:
        return _SOFT_404_GUIDANCE
    sentence = BLOCKER_GUIDANCE.get(finding.kind) or (general or {}).get(finding.kind) or "search for another page on an allowed domain"
    seconds = finding.evidence.get("retry_after_seconds")
    if finding.kind is BlockerKind.RATE_LIMITED and seconds is not None:
        sentence = f"{sentence} (Retry-After: wait {seconds:g} s)"
    return sentence
