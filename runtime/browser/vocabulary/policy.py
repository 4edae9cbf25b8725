"""`SessionPolicy`: the limits and URL rules one browser session runs under.

It sits at the bottom of the browser layers because the session sets it and the action handlers
read it; neither has to know the other to share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from runtime.browser.vocabulary.actions import DEFAULT_ACTION_TIMEOUT_MS
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError
from runtime.policy import NetworkPolicy, UrlJudgement, judge_url


@dataclass(frozen=True)
class SessionPolicy:
    """Limits and URL rules for one session.

    `network`: the run's network policy. With it, the session's browser context sends every
    request through a policy proxy that enforces it, and every URL the session is asked to open or
    a click would follow is judged by `runtime.policy.judge_url` first (refused: `blocked_url`
    with the blocker kind). Without it (driver tests, tools that browse freely) nothing is
    enforced and only `allowed_schemes` applies.

    `readable_html_limit_bytes`: pages whose HTML is larger get their visible text as readable
    text (trafilatura is not run on them); the prepared page says so in `text_note`.

    `blocked_url_prefixes`: URLs starting with one of these are refused, and actions on a tab
    currently showing one are refused (seed 003: never act on the operator UI).
    """

    allowed_schemes: tuple[str, ...] = ("http", "https", "about", "data")
    blocked_url_prefixes: tuple[str, ...] = ()
    default_timeout_ms: int = DEFAULT_ACTION_TIMEOUT_MS
    inline_limit_bytes: int = 256 * 1024
    snapshot_max_elements: int = 400
    snapshot_max_chars: int = 10_000
    # trafilatura's cost grows with the HTML it reads (about 2.4 s for genindex-all's 1.7 MB):
    # above this size the readable text is the page's visible text (BENCHMARKS.md, Observe).
    readable_html_limit_bytes: int = 512 * 1024
    network: NetworkPolicy | None = None

    def judge(self, url: str) -> UrlJudgement | None:
        """The URL judge's answer under this session's network policy; None when there is none."""
        return judge_url(url, self.network) if self.network is not None else None

    def check_navigation(self, url: str) -> None:
        """Refuse what the network policy refuses (or, without one, schemes outside
        `allowed_schemes`), and URLs under a blocked prefix (`blocked_url`)."""
        judgement = self.judge(url)
        if judgement is not None and not judgement.allowed:
            raise refused(judgement, f"{url} is refused by the run's network policy")
        scheme = urlsplit(url).scheme.lower()
        if not scheme:
            raise BrowserActionError(
                ActionErrorCode.INVALID_PARAMS,
                f"url {url!r} has no scheme; use an absolute URL like http://host/path",
            )
        if judgement is None and scheme not in self.allowed_schemes:
            raise BrowserActionError(
                ActionErrorCode.BLOCKED_URL,
                f"scheme {scheme!r} of {url} is not allowed (allowed: {', '.join(self.allowed_schemes)})",
                url=url,
            )
        prefix = self.blocked_prefix_of(url)
        if prefix is not None:
            raise BrowserActionError(ActionErrorCode.BLOCKED_URL, f"{url} is under the blocked prefix {prefix}", url=url)

    def blocked_prefix_of(self, url: str) -> str | None:
        """The first blocked prefix `url` starts with, or None."""
        return next((prefix for prefix in self.blocked_url_prefixes if url.startswith(prefix)), None)


def refused(judgement: UrlJudgement, what: str, **evidence: object) -> BrowserActionError:
    """`blocked_url` for a URL the judge refused: its blocker kind, why, and the judge's evidence."""
    assert judgement.blocker_kind is not None
    return BrowserActionError(
        ActionErrorCode.BLOCKED_URL,
        f"{what} ({judgement.blocker_kind.value}): {judgement.reason}",
        url=judgement.url,
        blocker_kind=judgement.blocker_kind.value,
        judgement=judgement.evidence(),
        **evidence,
    )
