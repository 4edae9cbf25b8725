"""`SessionPolicy`: the limits and URL rules one browser session runs under.

It sits at the bottom of the browser layers because the session sets it and the action handlers
read it; neither has to know the other to share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from runtime.browser.actions import DEFAULT_ACTION_TIMEOUT_MS
from runtime.browser.errors import ActionErrorCode, BrowserActionError


@dataclass(frozen=True)
class SessionPolicy:
    """Limits and URL rules for one session.

    `allowed_schemes`: navigation to any other scheme (file:, chrome:, javascript:) is refused
    with `blocked_url`. `blocked_url_prefixes`: URLs starting with one of these are refused, and
    actions on a tab currently showing one are refused (seed 003: never act on the operator UI).
    """

    allowed_schemes: tuple[str, ...] = ("http", "https", "about", "data")
    blocked_url_prefixes: tuple[str, ...] = ()
    default_timeout_ms: int = DEFAULT_ACTION_TIMEOUT_MS
    inline_limit_bytes: int = 256 * 1024
    snapshot_max_elements: int = 400
    snapshot_max_chars: int = 10_000
    popup_settle_ms: int = 100

    def check_navigation(self, url: str) -> None:
        """Refuse schemes outside the policy and URLs under a blocked prefix (`blocked_url`)."""
        scheme = urlsplit(url).scheme.lower()
        if not scheme:
            raise BrowserActionError(
                ActionErrorCode.INVALID_PARAMS,
                f"url {url!r} has no scheme; use an absolute URL like http://host/path",
            )
        if scheme not in self.allowed_schemes:
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
