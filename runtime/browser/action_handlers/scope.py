"""What one action's handler may touch, and the handler's shape.

The session builds an `ActionScope` for each action it runs; a handler does its work on
`scope.tab` and reads the rest from the scope, so handlers never reach back into the session.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from runtime.artifacts import ArtifactStore
from runtime.browser.vocabulary.actions import Action
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError
from runtime.browser.vocabulary.policy import SessionPolicy
from runtime.browser.tab.tab import Tab

Result = tuple[dict[str, Any], Any]


class TabInfoLike(Protocol):
    tab_id: str
    url: str

    def to_dict(self) -> dict[str, Any]: ...


class SessionTabs(Protocol):
    """The session's tabs as the tab actions use them (the session's tab tracking)."""

    @property
    def primary_tab_id(self) -> str: ...

    def make_primary(self, tab_id: str) -> TabInfoLike: ...

    async def close(self, tab_id: str) -> TabInfoLike: ...

    async def open_new(self) -> TabInfoLike: ...


@dataclass(frozen=True)
class ActionScope:
    """The tab an action runs on, plus the session-wide things a handler may use.

    `primary_tab()` is the session's sticky primary tab; `end_session()` closes the session's
    browser context (the `close` action).
    """

    tab: Tab
    session_id: str
    policy: SessionPolicy
    artifacts: ArtifactStore
    primary_tab: Callable[[], Tab]
    end_session: Callable[[], Awaitable[None]]
    # Hears a text about to be typed into a password field (BrowserSession.on_secret_typed).
    secret_typed: Callable[[str], None] | None = None
    # The values a screenshot must not show (BrowserSession.secret_values): covered while capturing.
    secret_values: Callable[[], tuple[str, ...]] = tuple
    # The session's tabs, for the actions that switch, close or open one.
    tabs: SessionTabs | None = None

    async def refuse_blocked_tab(self) -> None:
        """Refuse to act on a tab whose page is under a blocked prefix (seed 003: not the operator UI)."""
        if not self.policy.blocked_url_prefixes:
            return
        url = await self.tab.current_url()
        prefix = self.policy.blocked_prefix_of(url)
        if prefix is not None:
            raise BrowserActionError(
                ActionErrorCode.BLOCKED_URL,
                f"tab {self.tab.tab_id} shows {url} (blocked prefix {prefix}); refusing to act on it",
                url=url,
            )


Handler = Callable[[ActionScope, Action], Awaitable[Result]]
