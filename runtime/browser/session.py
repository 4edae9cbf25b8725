"""`BrowserSession`: one run's incognito context, its tabs, and the serial action dispatcher.

Every action goes through `perform`: it runs one at a time per session, is idempotent by
`action_id`, always ends with an `ActionResult` (a timeout or `browser_crashed` at worst), and
never raises. The typed convenience methods (`open_url`, `click`, `snapshot`, ...) build an
`Action` and call `perform`, so they share those guarantees.
"""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from runtime.artifacts import ArtifactStore
from runtime.browser.actions import (
    DEFAULT_ACTION_TIMEOUT_MS,
    Action,
    ActionName,
    ActionResult,
    Target,
)
from runtime.browser.errors import ActionError, ActionErrorCode, BrowserActionError
from runtime.browser.observation import TabEvent

if TYPE_CHECKING:
    import pyppeteer.browser
    import pyppeteer.target

    from runtime.browser.launch import Browser
    from runtime.browser.tab import Tab


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


@dataclass
class TabInfo:
    """What the session knows about one of its tabs."""

    tab_id: str
    url: str
    opener_tab_id: str | None
    closed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"tab_id": self.tab_id, "url": self.url, "opener_tab_id": self.opener_tab_id, "closed": self.closed}


Handler = Callable[["Tab", Action], Awaitable[tuple[dict[str, Any], Any]]]


class BrowserSession:
    """One run's browser state: an incognito context, a sticky primary tab, popups it opened.

    Create with `await browser.open_session(artifacts=...)`. `primary_tab_id` is fixed for the
    session's life; actions with `tab_id=None` go to it, never to "whatever tab is active".
    """

    def __init__(
        self,
        browser: Browser,
        *,
        session_id: str,
        context: Any,
        artifacts: ArtifactStore,
        on_tab_event: Callable[[TabEvent], None] | None,
        policy: SessionPolicy,
    ) -> None:
        self.browser = browser
        self.session_id = session_id
        self.artifacts = artifacts
        self.policy = policy
        self._context = context
        self._on_tab_event = on_tab_event
        self._tabs: dict[str, Tab] = {}
        self._tab_info: dict[str, TabInfo] = {}
        self._tab_by_target: dict[int, str] = {}
        self._tab_counter = itertools.count(1)
        self._snapshot_counter = itertools.count(1)
        self._auto_action_counter = itertools.count(1)
        self._primary_tab_id: str | None = None
        self._lock = asyncio.Lock()
        self._results: dict[str, ActionResult] = {}
        self._inflight: dict[str, asyncio.Future[ActionResult]] = {}
        self._opened_during_action: list[TabInfo] = []
        self._pending_tab_setups: set[asyncio.Task[None]] = set()
        self._stopped = False

    # ----------------------------------------------------------------- lifecycle

    @classmethod
    async def create(
        cls,
        browser: Browser,
        *,
        session_id: str | None,
        artifacts: ArtifactStore,
        on_tab_event: Callable[[TabEvent], None] | None,
        policy: SessionPolicy | None,
    ) -> BrowserSession:
        """Use `Browser.open_session`; this is its implementation."""
        from runtime.browser.tab import Tab

        if browser.crashed:
            raise BrowserActionError(ActionErrorCode.BROWSER_CRASHED, "the browser connection is gone")
        context = await browser.raw.createIncognitoBrowserContext()
        session = cls(
            browser,
            session_id=session_id or f"session-{uuid.uuid4().hex[:12]}",
            context=context,
            artifacts=artifacts,
            on_tab_event=on_tab_event,
            policy=policy or SessionPolicy(),
        )
        page = await context.newPage()
        primary = await Tab.attach(session, session._next_tab_id(), page, opener_tab_id=None)
        session._register_tab(primary, announce=False)
        session._primary_tab_id = primary.tab_id
        context.on("targetcreated", session._on_target_created)
        context.on("targetdestroyed", session._on_target_destroyed)
        return session

    @property
    def primary_tab_id(self) -> str:
        """The session's first tab. Sticky: popups and focus changes never move it."""
        assert self._primary_tab_id is not None
        return self._primary_tab_id

    @property
    def stopped(self) -> bool:
        return self._stopped

    @property
    def tabs(self) -> dict[str, TabInfo]:
        """Every tab the session has seen (including closed ones), by tab id."""
        return dict(self._tab_info)

    def tab(self, tab_id: str | None = None) -> Tab:
        """The live `Tab` for `tab_id` (default: primary). Raises `BrowserActionError(tab_closed)`."""
        resolved = tab_id or self.primary_tab_id
        tab = self._tabs.get(resolved)
        if tab is None:
            if resolved in self._tab_info:
                raise BrowserActionError(ActionErrorCode.TAB_CLOSED, f"tab {resolved} was closed")
            raise BrowserActionError(
                ActionErrorCode.INVALID_PARAMS,
                f"unknown tab_id {resolved!r}; this session's tabs: {sorted(self._tab_info)}",
            )
        return tab

    async def stop(self) -> ActionResult:
        """End the session: close its context and tabs. Safe to call more than once."""
        return await self.perform(Action(name=ActionName.SESSION_STOP.value, action_id=self._auto_id("stop")))

    # ----------------------------------------------------------------- dispatcher

    async def perform(self, action: Action) -> ActionResult:
        """Run one action and return its result; never raises.

        Actions run serially. A repeated `action_id` returns the first result (`replayed=True`)
        without touching the page; reusing an id for a different action is `invalid_params`.
        """
        recorded = self._results.get(action.action_id)
        if recorded is not None:
            if not _same_request(recorded, action):
                return _failure(
                    action,
                    ActionError(
                        ActionErrorCode.INVALID_PARAMS,
                        f"action_id {action.action_id!r} was already used for {recorded.name}; "
                        "use a new action_id for a different action",
                    ),
                )
            return replace(recorded, replayed=True)
        inflight = self._inflight.get(action.action_id)
        if inflight is not None:
            return replace(await asyncio.shield(inflight), replayed=True)
        future: asyncio.Future[ActionResult] = asyncio.get_running_loop().create_future()
        self._inflight[action.action_id] = future
        try:
            async with self._lock:
                result = await self._run(action)
            self._results[action.action_id] = result
            future.set_result(result)
            return result
        except BaseException as exc:  # cancellation of the caller: let waiters see a result too
            if not future.done():
                future.set_result(
                    _failure(action, ActionError(ActionErrorCode.TIMEOUT, f"action cancelled: {exc!r}"))
                )
            raise
        finally:
            self._inflight.pop(action.action_id, None)

    async def _run(self, action: Action) -> ActionResult:
        from runtime.browser.action_handlers import HANDLERS

        started = time.perf_counter()
        tab_id = action.tab_id or self._primary_tab_id

        def finish(ok: bool, data: dict[str, Any], error: ActionError | None, value: Any = None) -> ActionResult:
            return ActionResult(
                ok=ok,
                action_id=action.action_id,
                name=action.name,
                tab_id=tab_id,
                data=data,
                error=error,
                duration_ms=(time.perf_counter() - started) * 1000,
                value=value,
            )

        if action.session_id is not None and action.session_id != self.session_id:
            return finish(False, {}, ActionError(
                ActionErrorCode.INVALID_PARAMS,
                f"action {action.action_id} is addressed to session {action.session_id!r}, "
                f"not {self.session_id!r}",
            ))
        handler = HANDLERS.get(action.name)
        if handler is None:
            return finish(False, {}, ActionError(
                ActionErrorCode.UNKNOWN_ACTION,
                f"unknown action {action.name!r}; known: {sorted(HANDLERS)}",
            ))
        if action.name == ActionName.SESSION_STOP.value:
            await self._close_context()
            return finish(True, {"stopped": True}, None)
        if self._stopped:
            return finish(False, {}, ActionError(
                ActionErrorCode.SESSION_CLOSED, f"session {self.session_id} was stopped"
            ))
        if self.browser.crashed:
            return finish(False, {}, _crashed_error())
        if not isinstance(action.params, dict):
            return finish(False, {}, ActionError(ActionErrorCode.INVALID_PARAMS, "params must be an object"))
        timeout_ms = action.timeout_ms or self.policy.default_timeout_ms
        if timeout_ms <= 0:
            return finish(False, {}, ActionError(ActionErrorCode.INVALID_PARAMS, "timeout_ms must be > 0"))

        self._opened_during_action = []
        work = asyncio.ensure_future(self._run_handler(handler, tab_id, action, timeout_ms))
        crash_watch = asyncio.ensure_future(self.browser.disconnected.wait())
        try:
            done, _ = await asyncio.wait(
                {work, crash_watch}, timeout=timeout_ms / 1000, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            crash_watch.cancel()
        if work not in done:
            work.cancel()
            if crash_watch in done and self.browser.crashed:
                return finish(False, {}, _crashed_error())
            return finish(False, {}, ActionError(
                ActionErrorCode.TIMEOUT, f"{action.name} did not finish within {timeout_ms} ms"
            ))
        try:
            data, value = work.result()
        except BrowserActionError as exc:
            return finish(False, {}, exc.error)
        except Exception as exc:  # noqa: BLE001 - every failure must become a typed result
            return finish(False, {}, await self._classify_exception(action, exc))
        if action.name in _ACTIONS_THAT_MAY_OPEN_TABS:
            await self._settle_new_tabs()
            data = {**data, "opened_tabs": [info.to_dict() for info in self._opened_during_action]}
        return finish(True, data, None, value)

    async def _run_handler(
        self, handler: Handler, tab_id: str | None, action: Action, timeout_ms: int
    ) -> tuple[dict[str, Any], Any]:
        tab = self.tab(tab_id)
        tab.deadline = time.monotonic() + timeout_ms / 1000
        return await handler(tab, action)

    async def _classify_exception(self, action: Action, exc: Exception) -> ActionError:
        text = str(exc)
        lost_connection = isinstance(exc, ConnectionError) or any(
            marker in text for marker in ("Target closed", "Session closed", "Connection is closed", "Connection closed")
        )
        if lost_connection:
            # The disconnect notice can trail the failed CDP call by a moment.
            try:
                await asyncio.wait_for(self.browser.disconnected.wait(), timeout=0.5)
            except asyncio.TimeoutError:
                pass
            if self.browser.crashed or _process_died(self.browser):
                return _crashed_error()
            tab_id = action.tab_id or self._primary_tab_id
            return ActionError(ActionErrorCode.TAB_CLOSED, f"tab {tab_id} closed during {action.name}: {text}")
        if type(exc).__name__ == "TimeoutError":
            return ActionError(ActionErrorCode.TIMEOUT, f"{action.name}: {text}")
        return ActionError(ActionErrorCode.SCRIPT_FAILED, f"{action.name} failed: {type(exc).__name__}: {text}")

    # ----------------------------------------------------------------- tabs

    def _next_tab_id(self) -> str:
        return f"t{next(self._tab_counter)}"

    def next_snapshot_id(self) -> str:
        """Snapshot ids are unique across the session's tabs, so a ref names its tab's snapshot."""
        return f"s{next(self._snapshot_counter)}"

    def _register_tab(self, tab: Tab, *, announce: bool) -> None:
        self._tabs[tab.tab_id] = tab
        info = TabInfo(tab_id=tab.tab_id, url=tab.page.url, opener_tab_id=tab.opener_tab_id)
        self._tab_info[tab.tab_id] = info
        self._tab_by_target[id(tab.page.target)] = tab.tab_id
        if announce:
            self._opened_during_action.append(info)
            self._emit(TabEvent("opened", self.session_id, tab.tab_id, info.url, tab.opener_tab_id))

    def _on_target_created(self, target: pyppeteer.target.Target) -> None:
        if target.type != "page" or self._stopped:
            return
        task = asyncio.ensure_future(self._adopt_target(target))
        self._pending_tab_setups.add(task)
        task.add_done_callback(self._pending_tab_setups.discard)

    async def _adopt_target(self, target: pyppeteer.target.Target) -> None:
        from runtime.browser.tab import Tab

        if id(target) in self._tab_by_target:
            return
        opener = target.opener
        opener_tab_id = self._tab_by_target.get(id(opener)) if opener is not None else None
        try:
            page = await target.page()
        except Exception:  # noqa: BLE001 - the popup may close before we attach; nothing to adopt
            return
        if page is None or id(target) in self._tab_by_target:
            return
        tab = await Tab.attach(self, self._next_tab_id(), page, opener_tab_id=opener_tab_id)
        self._register_tab(tab, announce=True)

    def _on_target_destroyed(self, target: pyppeteer.target.Target) -> None:
        tab_id = self._tab_by_target.get(id(target))
        if tab_id is None or tab_id not in self._tabs:
            return
        self._tabs.pop(tab_id)
        info = self._tab_info[tab_id]
        info.closed = True
        self._emit(TabEvent("closed", self.session_id, tab_id, info.url, info.opener_tab_id))

    async def _settle_new_tabs(self) -> None:
        # Popups announce themselves a few milliseconds after the click that opened them.
        await asyncio.sleep(self.policy.popup_settle_ms / 1000)
        if self._pending_tab_setups:
            await asyncio.wait(set(self._pending_tab_setups), timeout=5)

    def _emit(self, event: TabEvent) -> None:
        if self._on_tab_event is not None:
            self._on_tab_event(event)

    def update_tab_url(self, tab_id: str, url: str) -> None:
        if tab_id in self._tab_info:
            self._tab_info[tab_id].url = url

    async def _close_context(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self.browser._forget_session(self.session_id)
        if self.browser.crashed:
            return
        try:
            await asyncio.wait_for(self._context.close(), timeout=5)
        except Exception:  # noqa: BLE001 - the context may already be gone with the browser
            pass

    # ----------------------------------------------------------------- convenience verbs

    def _auto_id(self, name: str) -> str:
        return f"{self.session_id}:{name}:{next(self._auto_action_counter)}"

    async def _do(
        self,
        name: ActionName,
        params: dict[str, Any],
        *,
        tab_id: str | None,
        action_id: str | None,
        timeout_ms: int | None,
    ) -> ActionResult:
        return await self.perform(
            Action(
                name=name.value,
                action_id=action_id or self._auto_id(name.value),
                tab_id=tab_id,
                params={k: v for k, v in params.items() if v is not None},
                timeout_ms=timeout_ms,
                session_id=self.session_id,
            )
        )

    async def start(self, url: str | None = None, *, action_id: str | None = None,
                    timeout_ms: int | None = None) -> ActionResult:
        """`session_start`: report the primary tab, navigating it to `url` when given."""
        return await self._do(ActionName.SESSION_START, {"url": url}, tab_id=None,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def open_url(self, url: str, *, tab_id: str | None = None, action_id: str | None = None,
                       timeout_ms: int | None = None) -> ActionResult:
        """`open_url`: navigate and wait for load. data: {url, status, title}. A 404 is ok=True
        with status=404 (the executor classifies it); network failures are `navigation_failed`."""
        return await self._do(ActionName.OPEN_URL, {"url": url}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def wait_for_loaded(self, *, tab_id: str | None = None, action_id: str | None = None,
                              timeout_ms: int | None = None) -> ActionResult:
        """`browser_wait_for_loaded`: until document.readyState is complete."""
        return await self._do(ActionName.BROWSER_WAIT_FOR_LOADED, {}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def screenshot(self, *, full_page: bool = False, tab_id: str | None = None,
                         action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`browser_screenshot`: PNG into the artifact store. data: {artifact, url, width, height}."""
        return await self._do(ActionName.BROWSER_SCREENSHOT, {"full_page": full_page}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def readability_extract(self, *, tab_id: str | None = None, action_id: str | None = None,
                                  timeout_ms: int | None = None) -> ActionResult:
        """`browser_readability_extract`: readable text (trafilatura, else innerText)."""
        return await self._do(ActionName.BROWSER_READABILITY_EXTRACT, {}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def xpath_scan(self, *, scope: str = "viewport", tab_id: str | None = None,
                         action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`browser_xpath_scan`: interactive elements with absolute XPaths and boxes."""
        return await self._do(ActionName.BROWSER_XPATH_SCAN, {"scope": scope}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def get_html(self, *, xpath: str | None = None, tab_id: str | None = None,
                       action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`browser_get_html`: the page's (or one element's) HTML into the artifact store."""
        return await self._do(ActionName.BROWSER_GET_HTML, {"xpath": xpath}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def snapshot(self, *, max_elements: int | None = None, max_chars: int | None = None,
                       tab_id: str | None = None, action_id: str | None = None,
                       timeout_ms: int | None = None) -> ActionResult:
        """`snapshot`: elements with refs. `result.value` is a `Snapshot`."""
        return await self._do(ActionName.SNAPSHOT, {"max_elements": max_elements, "max_chars": max_chars},
                              tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def observe(self, *, max_elements: int | None = None, max_chars: int | None = None,
                      tab_id: str | None = None, action_id: str | None = None,
                      timeout_ms: int | None = None) -> ActionResult:
        """`observe`: page summary + snapshot. `result.value` is an `Observation`."""
        return await self._do(ActionName.OBSERVE, {"max_elements": max_elements, "max_chars": max_chars},
                              tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def click(self, target: Target | dict[str, Any] | str, *, tab_id: str | None = None,
                    action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`act` kind=click on a target (ref string, `Target` or its dict form)."""
        return await self._act("click", target, {}, tab_id, action_id, timeout_ms)

    async def type_text(self, target: Target | dict[str, Any] | str, text: str, *, submit: bool = False,
                        clear: bool = True, tab_id: str | None = None, action_id: str | None = None,
                        timeout_ms: int | None = None) -> ActionResult:
        """`act` kind=type: replace (or append, clear=False) the field's text; Enter if submit."""
        return await self._act("type", target, {"text": text, "submit": submit, "clear": clear},
                               tab_id, action_id, timeout_ms)

    async def select(self, target: Target | dict[str, Any] | str, *, value: str | None = None,
                     label: str | None = None, tab_id: str | None = None, action_id: str | None = None,
                     timeout_ms: int | None = None) -> ActionResult:
        """`act` kind=select: choose an <option> by value or visible label."""
        return await self._act("select", target, {"value": value, "label": label}, tab_id, action_id, timeout_ms)

    async def press(self, key: str, *, target: Target | dict[str, Any] | str | None = None,
                    tab_id: str | None = None, action_id: str | None = None,
                    timeout_ms: int | None = None) -> ActionResult:
        """`act` kind=press: a key like "Enter", "Tab", "ArrowDown" (focusing `target` first)."""
        return await self._act("press", target, {"key": key}, tab_id, action_id, timeout_ms)

    async def scroll(self, *, direction: str = "down", amount: int = 600,
                     target: Target | dict[str, Any] | str | None = None, tab_id: str | None = None,
                     action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`act` kind=scroll: the window by `amount` px, or `target` into view."""
        return await self._act("scroll", target, {"direction": direction, "amount": amount},
                               tab_id, action_id, timeout_ms)

    async def _act(self, kind: str, target: Target | dict[str, Any] | str | None, params: dict[str, Any],
                   tab_id: str | None, action_id: str | None, timeout_ms: int | None) -> ActionResult:
        target_param = target.to_dict() if isinstance(target, Target) else target
        return await self._do(ActionName.ACT, {"kind": kind, "target": target_param, **params},
                              tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def wait(self, kind: str, value: str | int | None = None, *, regex: bool = False,
                   tab_id: str | None = None, action_id: str | None = None,
                   timeout_ms: int | None = None) -> ActionResult:
        """`wait`: kind load | text_includes (value=text) | url (value=substring, or regex) |
        timeout (value=ms). Ends with `timeout` when the condition is not met in time."""
        return await self._do(ActionName.WAIT, {"kind": kind, "value": value, "regex": regex or None},
                              tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def extract(self, fields: dict[str, Any] | None = None, *, readable: bool = False,
                      tab_id: str | None = None, action_id: str | None = None,
                      timeout_ms: int | None = None) -> ActionResult:
        """`extract`: fields {name: {selector | target, attr?, all?}} -> {fields, missing}, or readable
        text. `target` is any target `click` accepts (ref, role+name, text, css, xpath); a field
        nothing matches is None and listed in `missing`; a stale ref fails the action."""
        return await self._do(ActionName.EXTRACT, {"fields": fields, "readable": readable or None},
                              tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def verify(self, check: str, *, tab_id: str | None = None, action_id: str | None = None,
                     timeout_ms: int | None = None, **params: Any) -> ActionResult:
        """`verify`: check url_matches {value, regex?} | text_present {value} |
        title_includes {value} (case-insensitive, observed = the document title) |
        element_state {target, state: exists|visible|enabled|checked|value, expected?}.
        ok=True with data.passed telling the verdict; `result.value` is a `VerifyOutcome`."""
        target = params.get("target")
        if isinstance(target, Target):
            params["target"] = target.to_dict()
        return await self._do(ActionName.VERIFY, {"check": check, **params}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def fingerprint(self, *, tab_id: str | None = None, action_id: str | None = None,
                          timeout_ms: int | None = None) -> ActionResult:
        """`page_fingerprint`: hash of URL + DOM structure + text. `result.value` is a `PageFingerprint`."""
        return await self._do(ActionName.PAGE_FINGERPRINT, {}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def prepare_page(self, *, tab_id: str | None = None, action_id: str | None = None,
                           timeout_ms: int | None = None) -> ActionResult:
        """`prepare_page` (seed 003, mandatory before page analysis): wait for load, screenshot,
        readable text. `result.value` is a `PreparedPage`."""
        return await self._do(ActionName.PREPARE_PAGE, {}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def close(self, summary: str | None = None, *, action_id: str | None = None) -> ActionResult:
        """`close` (seed 002): finish the browser task with a summary; stops the session."""
        return await self._do(ActionName.CLOSE, {"summary": summary}, tab_id=None,
                              action_id=action_id, timeout_ms=None)


# Popups come from user gestures, so only these actions wait for them to settle before reporting
# `opened_tabs`; a tab a page opens on its own later is still tracked and announced as a TabEvent.
_ACTIONS_THAT_MAY_OPEN_TABS = {
    ActionName.ACT.value,
    ActionName.BROWSER_CLICK.value,
    ActionName.BROWSER_TYPE.value,
}


def _same_request(recorded: ActionResult, action: Action) -> bool:
    return recorded.name == action.name


def _failure(action: Action, error: ActionError) -> ActionResult:
    return ActionResult(ok=False, action_id=action.action_id, name=action.name, tab_id=action.tab_id, error=error)


def _crashed_error() -> ActionError:
    return ActionError(
        ActionErrorCode.BROWSER_CRASHED,
        "the browser process died or its connection dropped; start a new browser to continue",
    )


def _process_died(browser: Browser) -> bool:
    process = browser.raw.process
    return process is not None and process.poll() is not None
