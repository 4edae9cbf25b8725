"""Typed errors of the browser driver.

Actions never raise to the caller of `BrowserSession.perform`: every failure becomes an
`ActionError` with a typed `code` inside an `ActionResult`. Launching and connecting (which happen
before any session exists) raise `BrowserLaunchError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class ActionErrorCode(str, Enum):
    """Why an action failed. These strings appear in events and reports; never rename them."""

    TIMEOUT = "timeout"
    STALE_REF = "stale_ref"
    NOT_FOUND = "not_found"
    NAVIGATION_FAILED = "navigation_failed"
    BROWSER_CRASHED = "browser_crashed"
    INVALID_PARAMS = "invalid_params"
    BLOCKED_URL = "blocked_url"
    UNKNOWN_ACTION = "unknown_action"
    SESSION_CLOSED = "session_closed"
    TAB_CLOSED = "tab_closed"
    NOT_INTERACTABLE = "not_interactable"
    # Several visible elements match a target that does not say which (nth / first).
    AMBIGUOUS_TARGET = "ambiguous_target"
    SCRIPT_FAILED = "script_failed"
    RESULT_TOO_LARGE = "result_too_large"


@dataclass(frozen=True)
class ActionError:
    """A failed action: a typed code, a sentence a user can act on, and optional evidence."""

    code: ActionErrorCode
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code.value, "message": self.message, "details": dict(self.details)}


class BrowserActionError(Exception):
    """Raised inside the driver to abort an action; `perform` turns it into an `ActionResult`."""

    def __init__(self, code: ActionErrorCode, message: str, **details: Any) -> None:
        super().__init__(f"{code.value}: {message}")
        self.error = ActionError(code=code, message=message, details=details)


# How Chromium words a CDP call whose document was replaced under it (a page's own late
# navigation), by the moment the document went. Measured on 156: a title read during a navigation
# the read itself started fails "Inspected target navigated or closed", the next read "Execution
# context was destroyed"; a screenshot taken while the new document commits fails "Not attached
# to an active page".
_DOCUMENT_REPLACED = (
    "execution context was destroyed",
    "cannot find context with specified id",
    "inspected target navigated or closed",
    "not attached to an active page",
)


def document_replaced(exc: BaseException) -> bool:
    """Whether `exc` says only that the page's document was replaced while it was read: reading
    the next document may succeed."""
    text = str(exc).lower()
    return any(phrase in text for phrase in _DOCUMENT_REPLACED)


class LaunchErrorCode(str, Enum):
    CHROMIUM_NOT_FOUND = "chromium_not_found"
    LAUNCH_FAILED = "launch_failed"
    CONNECT_FAILED = "connect_failed"
    # An attached browser whose pages can send WebRTC UDP around the network fence (supply/udp_fence.py).
    UDP_NOT_FENCED = "udp_not_fenced"
    # An attached browser that may look up names its pages choose (supply/dns_fence.py).
    DNS_NOT_FENCED = "dns_not_fenced"
    # An attached browser whose pages may start a program outside it (supply/handler_fence.py).
    HANDLERS_NOT_FENCED = "handlers_not_fenced"


# The refusals of an attached browser by one of the fence's checks (ListBrowsers: refused_by_fence_probe).
FENCE_REFUSALS = frozenset({LaunchErrorCode.UDP_NOT_FENCED, LaunchErrorCode.DNS_NOT_FENCED, LaunchErrorCode.HANDLERS_NOT_FENCED})


class BrowserLaunchError(Exception):
    """Chromium could not be found, started or reached. `code` is typed, `str()` says what to do."""

    def __init__(self, code: LaunchErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
