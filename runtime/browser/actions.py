"""The action vocabulary of the driver: `Action` in, `ActionResult` out, and element `Target`s.

Action names are public (events, logs, recipes): seed 003's catalog (`session_start`,
`browser_click`, ...) and seed 002's verbs (`open_url`, `observe`, `act`, ...) keep their spelling.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from runtime.browser.errors import ActionError, ActionErrorCode, BrowserActionError


class ActionName(str, Enum):
    """Every action `BrowserSession.perform` understands, with its params (all optional unless
    marked *required*; every action also accepts `tab_id` on `Action`, default: the primary tab).

    Seed 003 catalog:
      - session_start       {url?}                         -> {tab_id, url, title, status?}
      - session_stop        {}                             -> {stopped: true}
      - browser_wait_for_loaded {}                         -> {status: "complete", url}
      - browser_screenshot  {full_page?: bool}             -> {artifact: ArtifactRef, url, width, height}
      - browser_readability_extract {}                     -> {text, title, url, artifact?: ArtifactRef, source}
      - browser_xpath_scan  {scope?: "viewport"|"document"} -> {elements: [{xpath, tag, text, bbox}]}
      - browser_click       {xpath *required*}             -> {clicked: true, ...}
      - browser_type        {xpath *required*, text *required*, submit?: bool} -> {typed: true}
      - browser_get_html    {xpath?}                       -> {artifact: ArtifactRef, url, size}
    Seed 002 verbs:
      - open_url            {url *required*}               -> {url, status, title, opened_tabs}
      - observe             {max_elements?, max_chars?, text_chars?} -> Observation.to_dict()
      - snapshot            {max_elements?, max_chars?}    -> Snapshot.to_dict()
      - act                 {kind *required*: click|type|select|press|scroll, target?, text?,
                             submit?, clear?, value?, label?, key?, direction?, amount?}
                                                           -> {kind, target: {...}, opened_tabs, ...}
      - wait                {kind *required*: load|text_includes|url|timeout, value?, regex?}
                                                           -> {kind, satisfied: true, waited_ms}
      - extract             {fields?: {name: {selector | target, attr?, all?}}, readable?: bool}
                                                           -> {fields: {...}, missing} or {text, ...}
                            (target: any Target form; `all` needs a CSS selector)
      - close               {summary?}                     -> {closed: true, summary}
    Observe -> Act -> Verify (seed 004):
      - verify              {check *required*: url_matches|text_present|title_includes|element_state, ...}
                                                           -> VerifyOutcome.to_dict()
      - page_fingerprint    {}                             -> PageFingerprint.to_dict()
      - prepare_page        {}                             -> PreparedPage.to_dict()
    Page scripts:
      - browser_evaluate    {script *required*, args?, world?: isolated|main, max_bytes?}
                                                           -> {result, world, size, url}
    """

    SESSION_START = "session_start"
    SESSION_STOP = "session_stop"
    BROWSER_WAIT_FOR_LOADED = "browser_wait_for_loaded"
    BROWSER_SCREENSHOT = "browser_screenshot"
    BROWSER_READABILITY_EXTRACT = "browser_readability_extract"
    BROWSER_XPATH_SCAN = "browser_xpath_scan"
    BROWSER_CLICK = "browser_click"
    BROWSER_TYPE = "browser_type"
    BROWSER_GET_HTML = "browser_get_html"
    OPEN_URL = "open_url"
    OBSERVE = "observe"
    SNAPSHOT = "snapshot"
    ACT = "act"
    WAIT = "wait"
    EXTRACT = "extract"
    CLOSE = "close"
    VERIFY = "verify"
    PAGE_FINGERPRINT = "page_fingerprint"
    PREPARE_PAGE = "prepare_page"
    BROWSER_EVALUATE = "browser_evaluate"


class ActKind(str, Enum):
    CLICK = "click"
    TYPE = "type"
    SELECT = "select"
    PRESS = "press"
    SCROLL = "scroll"


class WaitKind(str, Enum):
    LOAD = "load"
    TEXT_INCLUDES = "text_includes"
    URL = "url"
    TIMEOUT = "timeout"
    SELECTOR = "selector"
    NETWORK_IDLE = "network_idle"


DEFAULT_ACTION_TIMEOUT_MS = 15_000


@dataclass(frozen=True)
class Action:
    """One request to the driver.

    `action_id` makes the action idempotent within its session: performing an action whose id
    was already performed returns the recorded result without touching the page again.
    `tab_id=None` means the session's sticky primary tab (never "whatever tab is active").
    `session_id`, when given, must name the session the action is sent to.
    """

    name: str
    action_id: str
    tab_id: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    timeout_ms: int | None = None
    session_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "action_id": self.action_id,
            "tab_id": self.tab_id,
            "params": dict(self.params),
            "timeout_ms": self.timeout_ms,
            "session_id": self.session_id,
        }


@dataclass(frozen=True)
class ActionResult:
    """The outcome of one action: `ok` with JSON-ready `data`, or not `ok` with an `error`.

    `value` carries the typed object behind `data` when there is one (`Snapshot`,
    `Observation`, `PreparedPage`, `VerifyOutcome`, `PageFingerprint`); it is not serialised.
    `replayed` is True when the result came from the idempotency record of an earlier
    action with the same `action_id`.
    """

    ok: bool
    action_id: str
    name: str
    tab_id: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    error: ActionError | None = None
    duration_ms: float = 0.0
    replayed: bool = False
    value: Any = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "action_id": self.action_id,
            "name": self.name,
            "tab_id": self.tab_id,
            "data": self.data,
            "error": self.error.to_dict() if self.error else None,
            "duration_ms": round(self.duration_ms, 1),
            "replayed": self.replayed,
        }

    @property
    def error_code(self) -> ActionErrorCode | None:
        return self.error.code if self.error else None


_TARGET_KEYS = ("ref", "role", "name", "text", "css", "xpath")


@dataclass(frozen=True)
class Target:
    """Which element an act/extract/verify addresses. Exactly one way of finding it:

    - `ref`: a snapshot ref like ``s3:e12``; only refs of the tab's latest snapshot are valid,
      and only while the very same DOM node is still connected (else `stale_ref`).
    - `role` (+ optional `name`): the role and accessible name shown in snapshots.
    - `text`: the element's visible text / accessible name.
    - `css`: a CSS selector, evaluated in the top document.
    - `xpath`: an XPath expression, evaluated in the top document.

    role/name/text match case-insensitively, exact matches before substring ones (`exact=True`
    allows exact matches only). When several elements match, `index` picks one (0-based, in
    document order across frames and shadow roots).
    """

    ref: str | None = None
    role: str | None = None
    name: str | None = None
    text: str | None = None
    css: str | None = None
    xpath: str | None = None
    index: int = 0
    exact: bool = False

    def __post_init__(self) -> None:
        kinds = [k for k in ("ref", "role", "text", "css", "xpath") if getattr(self, k)]
        if self.name and not self.role and not kinds:
            kinds = ["name"]
        if len(kinds) != 1:
            raise BrowserActionError(
                ActionErrorCode.INVALID_PARAMS,
                "a target needs exactly one of ref, role (+name), name, text, css or xpath; "
                f"got {kinds or 'none'}",
            )
        if self.index < 0:
            raise BrowserActionError(ActionErrorCode.INVALID_PARAMS, "target.index must be >= 0")

    @property
    def kind(self) -> str:
        for key in ("ref", "role", "text", "css", "xpath", "name"):
            if getattr(self, key):
                return key
        return "none"

    @classmethod
    def from_params(cls, value: Any, *, field_path: str = "params.target") -> Target:
        """Build a Target from action params: a dict with the keys above, or a bare ref string."""
        if isinstance(value, Target):
            return value
        if isinstance(value, str):
            return cls(ref=value)
        if not isinstance(value, dict):
            raise BrowserActionError(
                ActionErrorCode.INVALID_PARAMS,
                f"{field_path} must be an object like {{'ref': 's1:e3'}} or a ref string, "
                f"got {type(value).__name__}",
            )
        unknown = sorted(set(value) - set(_TARGET_KEYS) - {"index", "exact"})
        if unknown:
            raise BrowserActionError(
                ActionErrorCode.INVALID_PARAMS,
                f"{field_path} has unknown keys {unknown}; allowed: {list(_TARGET_KEYS)} + index, exact",
            )
        for key in _TARGET_KEYS:
            if key in value and not isinstance(value[key], str):
                raise BrowserActionError(
                    ActionErrorCode.INVALID_PARAMS, f"{field_path}.{key} must be a string"
                )
        index = value.get("index", 0)
        if not isinstance(index, int) or isinstance(index, bool):
            raise BrowserActionError(ActionErrorCode.INVALID_PARAMS, f"{field_path}.index must be an integer")
        return cls(
            ref=value.get("ref"),
            role=value.get("role"),
            name=value.get("name"),
            text=value.get("text"),
            css=value.get("css"),
            xpath=value.get("xpath"),
            index=index,
            exact=bool(value.get("exact", False)),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in _TARGET_KEYS if getattr(self, k)}
        if self.index:
            out["index"] = self.index
        if self.exact:
            out["exact"] = True
        return out
