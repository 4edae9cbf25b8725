"""The action vocabulary of the driver: `Action` in, `ActionResult` out, and element `Target`s.

Action names are public (events, logs, recipes): seed 003's catalog (`session_start`,
`browser_click`, ...) and seed 002's verbs (`open_url`, `observe`, `act`, ...) keep their spelling.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from runtime.browser.vocabulary.errors import ActionError, ActionErrorCode, BrowserActionError


class ActionName(str, Enum):
    """Every action `BrowserSession.perform` understands, with its params (all optional unless
    marked *required*; every action also accepts `tab_id` on `Action`, default: the primary tab).

    Seed 003 catalog:
      - session_start       {url?}                         -> {tab_id, url, title, status?}
      - session_stop        {}                             -> {stopped: true}
      - browser_wait_for_loaded {}                         -> {status: "complete", url}
      - browser_screenshot  {full_page?: bool, image_type?: png|jpeg, target?}
                                                           -> {artifact: ArtifactRef, url, width, height, image_type}
      - browser_readability_extract {}                     -> {text, title, url, artifact?: ArtifactRef, source}
      - browser_xpath_scan  {scope?: "viewport"|"document"} -> {elements: [{xpath, tag, text, bbox}]}
      - browser_click       {xpath *required*}             -> {clicked: true, ...}
      - browser_type        {xpath *required*, text *required*, submit?: bool} -> {typed: true}
      - browser_get_html    {xpath?}                       -> {artifact: ArtifactRef, url, size}
    Seed 002 verbs:
      - open_url            {url *required*}               -> {url, status, title, opened_tabs}
      - navigate_back       {}                             -> {url, status, title, went_back_from}
      - observe             {max_elements?, max_chars?, text_chars?, start?, role?, text?, within?,
                             snapshot_id?}                 -> Observation.to_dict()
      - snapshot            {max_elements?, max_chars?, start?, role?, text?, within?, snapshot_id?}
                                                           -> Snapshot.to_dict() (one page)
      - act                 {kind *required*: click|type|select|press|scroll|hover|drag|select_text|
                             check|uncheck|upload, target?, text?, submit?, clear?, value?, label?,
                             key?, direction?, amount?, files? (upload: paths)}
                                                           -> {kind, target: {...}, opened_tabs, ...}
      - wait                {kind *required*: load|text_includes|url|timeout, value?, regex?}
                                                           -> {kind, satisfied: true, waited_ms}
      - extract             {fields?: {name: {selector | target, attr?, all?, whence?}}, readable?: bool,
                             fingerprint?: bool}
                                                           -> {fields: {...}, missing} or {text, ...}
                            (target: any Target form; `all` needs a CSS selector; with
                             fingerprint, the read document's PageFingerprint, same evaluation)
      - close               {summary?}                     -> {closed: true, summary}
    Observe -> Act -> Verify (seed 004):
      - verify              {check *required*: url_matches|text_present|title_includes|element_state, ...}
                                                           -> VerifyOutcome.to_dict()
      - page_fingerprint    {closed_roots?: bool}          -> PageFingerprint.to_dict()
      - read_links          {navigation *required*: CSS, served?: bool}
                                                           -> {url, live: [{href, key, text, navigation, visible}],
                                                               served: [href + "\n" + text] | null}
      - prepare_page        {}                             -> PreparedPage.to_dict()
    The tree a model reads:
      - snapshot_tree       {ref?, depth?, start?, max_chars?, keep_same?}
                                                           -> SnapshotTree.to_dict() + rendered
                            (no ref: a new tree snapshot, which with keep_same keeps the latest's
                            id when it reads the same in the same document; a ref: the part under it, refs kept)
      - find_nodes          {text *required* (text, or /regex/flags), limit?}
                                                           -> FoundNodes.to_dict() + rendered
    Page scripts:
      - browser_evaluate    {script *required*, args?, world?: isolated|main, max_bytes?, model_script?}
                                                           -> {result, world, size, url}
    Tabs (the action's tab_id is the tab acted on):
      - switch_tab          {}                             -> {tab_id, url, opener_tab_id, closed, primary_tab_id}
      - close_tab           {}                             -> the same, closed: true (the primary passes on)
      - new_tab             {}                             -> the same, for a new blank tab in the background
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
    NAVIGATE_BACK = "navigate_back"
    OBSERVE = "observe"
    SNAPSHOT = "snapshot"
    ACT = "act"
    WAIT = "wait"
    EXTRACT = "extract"
    CLOSE = "close"
    VERIFY = "verify"
    PAGE_FINGERPRINT = "page_fingerprint"
    READ_LINKS = "read_links"
    PREPARE_PAGE = "prepare_page"
    BROWSER_EVALUATE = "browser_evaluate"
    SWITCH_TAB = "switch_tab"
    CLOSE_TAB = "close_tab"
    NEW_TAB = "new_tab"
    SNAPSHOT_TREE = "snapshot_tree"
    FIND_NODES = "find_nodes"


class ActKind(str, Enum):
    CLICK = "click"
    TYPE = "type"
    SELECT = "select"
    PRESS = "press"
    SCROLL = "scroll"
    HOVER = "hover"
    DRAG = "drag"
    SELECT_TEXT = "select_text"
    CHECK = "check"
    UNCHECK = "uncheck"
    UPLOAD = "upload"


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


# The ways of finding an element, in the order `Target.kind` reports them (`name` alone last).
LOCATOR_KINDS = ("ref", "role", "text", "label", "placeholder", "alt", "title", "test_id", "css", "xpath")
_TEXT_KEYS = (*LOCATOR_KINDS, "name", "has_text")
_TARGET_KEYS = (*_TEXT_KEYS, "nth", "index", "first", "exact", "within", "frame")


def _invalid(message: str) -> BrowserActionError:
    return BrowserActionError(ActionErrorCode.INVALID_PARAMS, message)


@dataclass(frozen=True)
class Target:
    """Which element an act/extract/verify addresses, in Playwright's vocabulary. Exactly one way
    of finding it (locate.py has the matching rules):

    - `ref`: a snapshot ref like ``s3:e12``; only refs of the tab's latest snapshot are valid,
      and only while the very same DOM node is still connected (else `stale_ref`).
    - `role` (+ optional `name`): the ARIA role and accessible name shown in snapshots; `name`
      alone: any element with that accessible name.
    - `text`, `label`, `placeholder`, `alt`, `title`: the element's text, its label (a <label>,
      aria-labelledby or aria-label), or that attribute.
    - `test_id`: the `data-testid` attribute, compared exactly.
    - `css`, `xpath`: a selector or expression.

    Narrowing: `has_text` keeps matches whose text contains it; `within` searches inside the one
    element another target names; `frame` searches the document of the iframe a target names.
    Names and texts match case-insensitively, whole matches before partial ones; `exact=True`
    compares case-sensitively and whole. Strictness: when several visible elements match, `nth`
    (0-based in document order, negative from the end; `index` is the same) or `first` must say
    which one, else the action fails with `ambiguous_target`.
    """

    ref: str | None = None
    role: str | None = None
    name: str | None = None
    text: str | None = None
    label: str | None = None
    placeholder: str | None = None
    alt: str | None = None
    title: str | None = None
    test_id: str | None = None
    css: str | None = None
    xpath: str | None = None
    index: int | None = None
    first: bool = False
    exact: bool = False
    has_text: str | None = None
    within: Target | None = None
    frame: Target | None = None

    def __post_init__(self) -> None:
        kinds = [k for k in LOCATOR_KINDS if getattr(self, k)]
        if self.name and not self.role and not kinds:
            kinds = ["name"]
        if len(kinds) != 1:
            raise _invalid(f"a target needs exactly one of ref, role (+name), name, {', '.join(LOCATOR_KINDS[2:])}; got {kinds or 'none'}")
        if self.ref and (self.within or self.frame or self.has_text or self.index is not None or self.first):
            raise _invalid("a ref names one element already: it takes no within, frame, has_text, nth or first")
        if self.index is not None and self.first:
            raise _invalid("give nth or first, not both")

    @property
    def kind(self) -> str:
        for key in LOCATOR_KINDS:
            if getattr(self, key):
                return key
        return "name"

    @classmethod
    def from_params(cls, value: Any, *, field_path: str = "params.target") -> Target:
        """Build a Target from action params: a dict with the keys above, or a bare ref string.
        `frame` may also be a CSS selector string for the iframe."""
        if isinstance(value, Target):
            return value
        if isinstance(value, str):
            return cls(ref=value)
        if not isinstance(value, dict):
            raise _invalid(f"{field_path} must be an object like {{'ref': 's1:e3'}} or a ref string, got {type(value).__name__}")
        unknown = sorted(set(value) - set(_TARGET_KEYS))
        if unknown:
            raise _invalid(f"{field_path} has unknown keys {unknown}; allowed: {list(_TARGET_KEYS)}")
        for key in _TEXT_KEYS:
            if value.get(key) is not None and not isinstance(value[key], str):
                raise _invalid(f"{field_path}.{key} must be a string")
        if "nth" in value and "index" in value:
            raise _invalid(f"{field_path}: give nth or index, not both")
        nth = value.get("nth", value.get("index"))
        if nth is not None and (not isinstance(nth, int) or isinstance(nth, bool)):
            raise _invalid(f"{field_path}.nth must be an integer")
        frame = value.get("frame")
        if isinstance(frame, str):
            frame = {"css": frame}
        return cls(
            **{key: value.get(key) for key in _TEXT_KEYS},
            index=nth,
            first=bool(value.get("first", False)),
            exact=bool(value.get("exact", False)),
            within=cls.from_params(value["within"], field_path=f"{field_path}.within") if value.get("within") is not None else None,
            frame=cls.from_params(frame, field_path=f"{field_path}.frame") if frame is not None else None,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in _TEXT_KEYS if getattr(self, k)}
        if self.index is not None:
            out["nth"] = self.index
        if self.first:
            out["first"] = True
        if self.exact:
            out["exact"] = True
        if self.within is not None:
            out["within"] = self.within.to_dict()
        if self.frame is not None:
            out["frame"] = self.frame.to_dict()
        return out
