"""`BrowserSession`: one run's incognito context, its tabs, and the serial action dispatcher.

The top of the browser layers: `open_session(browser, ...)` opens one on a `Browser` (launch),
tracks its tabs (tab_tracking, over tab) and runs actions through the catalog (action_handlers).

With a network policy (`SessionPolicy.network`) the session starts its own policy proxy and
creates its browser context with it as `proxyServer` (`proxyBypassList: <-loopback>`), so every
request of every target in the context is judged before it leaves the browser; the proxy lives
as long as the context. A navigation action whose top-frame navigation the policy refused ends
`blocked_url` with the refusal as evidence, never `navigation_failed`.

Every action goes through `perform`: it runs one at a time per session, is idempotent by
`action_id`, always ends with an `ActionResult` (a timeout or `browser_crashed` at worst), and
never raises. The typed verbs (`open_url`, `click`, `snapshot`, ...; see `SessionVerbs`) build
an `Action` and call `perform`, so they share those guarantees.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from runtime.artifacts import ArtifactStore
from runtime.browser.action_handlers import HANDLERS, ActionScope, Handler
from runtime.browser.vocabulary.actions import Action, ActionName, ActionResult
from runtime.browser.vocabulary.errors import ActionError, ActionErrorCode, BrowserActionError
from runtime.browser.launch.browser import Browser
from runtime.browser.vocabulary.observation import TabEvent
from runtime.browser.vocabulary.policy import SessionPolicy
from runtime.browser.launch.reservation import ContextReservation
from runtime.browser.session.storage import SessionStorage
from runtime.browser.tab.tab import Tab
from runtime.browser.session.tab_tracking import ACTIONS_THAT_MAY_OPEN_TABS, NetworkWatch, TabInfo, TabTracker
from runtime.browser.tab.sent_requests import SentRequest
from runtime.browser.tab.top_frame import TopFrameBlock
from runtime.browser.session.verbs import SessionVerbs, TabVerbs
from runtime.policy import PROXY_BYPASS_LIST, OnBlocked, PolicyProxy, judge_url

_log = logging.getLogger(__name__)

# Actions that move a tab to a URL: a refused top-frame navigation during one is its failure.
NAVIGATION_ACTIONS = frozenset({ActionName.OPEN_URL.value, ActionName.NAVIGATE_BACK.value, ActionName.SESSION_START.value})


async def open_session(
    browser: Browser,
    session_id: str | None = None,
    *,
    artifacts: ArtifactStore,
    on_tab_event: Callable[[TabEvent], None] | None = None,
    policy: SessionPolicy | None = None,
    on_blocked: OnBlocked | None = None,
    reservation: ContextReservation | None = None,
) -> BrowserSession:
    """Open a session on `browser`: a fresh incognito context with one primary tab (about:blank).

    `on_tab_event` is called for tabs the page opens or closes (popups, target=_blank). With
    `policy.network`, the context's requests go through a policy proxy of the session's own, and
    `on_blocked` hears each request it refuses before the browser gets the refusal. The browser
    stops the session when it closes. Raises `BrowserActionError(browser_crashed)` if the
    browser is gone.

    `reservation` is a context made ahead for this session (`reservation.py`): the session takes
    it, its proxy serving the address the context was made with. One this session cannot take
    (another browser's, or no network policy to serve it with) is released.
    """
    if browser.crashed:
        raise BrowserActionError(ActionErrorCode.BROWSER_CRASHED, "the browser connection is gone")
    policy = policy or SessionPolicy()
    if reservation is not None and (reservation.browser is not browser or policy.network is None):
        await reservation.release()
        reservation = None
    listener = reservation.listener if reservation is not None else None
    proxy = await PolicyProxy(policy.network, on_blocked=on_blocked).start(listener) if policy.network is not None else None
    try:
        if reservation is not None:
            context = reservation.context
        else:
            context = await browser.create_context(
                proxy_server=proxy.proxy_server if proxy else None, proxy_bypass_list=PROXY_BYPASS_LIST
            )
        session = BrowserSession(
            browser,
            session_id=session_id or f"session-{uuid.uuid4().hex[:12]}",
            context=context,
            artifacts=artifacts,
            on_tab_event=on_tab_event,
            policy=policy,
            proxy=proxy,
        )
        await session._tabs.open_primary(context, reservation.page if reservation is not None else None)
        if reservation is not None and proxy is not None:
            _log.debug("session %s takes the browser context reserved ahead; its proxy serves %s", session.session_id, proxy.proxy_server)
    except BaseException:
        if proxy is not None:
            await proxy.stop()
        raise
    browser.on_close(session.session_id, session.stop)
    return session


class BrowserSession(SessionVerbs):
    """One run's browser state: an incognito context, a sticky primary tab, popups it opened.

    Open with `await open_session(browser, artifacts=...)`. Actions with `tab_id=None` go to
    `primary_tab_id`, never to "whatever tab is active"; it changes only by `switch_tab` (or when
    `close_tab` closes it).
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
        proxy: PolicyProxy | None = None,
    ) -> None:
        super().__init__(session_id)
        self.browser = browser
        self.artifacts = artifacts
        self.policy = policy
        self.proxy = proxy
        self._context = context
        watch = NetworkWatch(partial(judge_url, policy=proxy.policy), proxy.log.refusal_of, proxy.log.record_soon) if proxy is not None else None
        self._tabs = TabTracker(session_id, browser, on_tab_event, watch)
        self._lock = asyncio.Lock()
        self._results: dict[str, ActionResult] = {}
        self._inflight: dict[str, asyncio.Future[ActionResult]] = {}
        self._stopped = False
        # Told the text about to be typed into a password field, before it is typed: whoever
        # keeps the run's evidence learns it is secret before any of it (a CDP log line) exists.
        self.on_secret_typed: Callable[[str], None] | None = None
        # The values screenshots cover (fields and texts showing them), asked at each capture.
        self.secret_values: Callable[[], tuple[str, ...]] = tuple
        self._storage: SessionStorage | None = None
        # Which browser of the server it is on (ListBrowsers' id), and who hears it has closed
        # (a pool whose waiting runs may take its place).
        self.browser_id = "local"
        self.on_closed: Callable[[], None] | None = None

    # ----------------------------------------------------------------- lifecycle

    @property
    def primary_tab_id(self) -> str:
        """The session's first tab until `switch_tab` moves it. Sticky: popups and focus changes never do."""
        return self._tabs.primary_tab_id

    @property
    def storage(self) -> SessionStorage:
        """The context's cookies and the primary tab's localStorage (storage.py)."""
        if self._storage is None:
            self._storage = SessionStorage(self.browser, self._context._id, self._tabs.tab())
        return self._storage

    @property
    def stopped(self) -> bool:
        return self._stopped

    @property
    def tabs(self) -> dict[str, TabInfo]:
        """Every tab the session has seen (including closed ones), by tab id."""
        return self._tabs.tabs

    def tab(self, tab_id: str | None = None) -> Tab:
        """The live `Tab` for `tab_id` (default: primary). Raises `BrowserActionError(tab_closed)`."""
        return self._tabs.tab(tab_id)

    def in_tab(self, tab_id: str) -> TabVerbs:
        """This session's verbs aimed at `tab_id`: actions that name no tab go there."""
        return TabVerbs(self, tab_id)

    def listen_to_tabs(self, listener: Callable[[TabEvent], None]) -> None:
        """Hear every later change of the session's tabs (opened, navigated, closed, primary)."""
        self._tabs.listen(listener)

    def listen_to_sent_requests(self, listener: Callable[[SentRequest], None]) -> None:
        """Hear every later request of the session's tabs that the network policy refused."""
        self._tabs.listen_to_sent_requests(listener)

    def top_frame_blocks(self, tab_id: str | None = None) -> list[TopFrameBlock]:
        """The tab's (default: primary) refused top-frame navigations so far, oldest first;
        always empty without a network policy."""
        return self._tabs.top_frame_blocks(tab_id)

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
        started = time.perf_counter()
        tab_id = action.tab_id or self.primary_tab_id

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

        self._tabs.mark()
        watch = self._tabs.top_frame(tab_id)
        refused_before = watch.count if watch is not None else 0
        work = asyncio.ensure_future(self._run_handler(handler, tab_id, action, timeout_ms))
        crash_watch = asyncio.ensure_future(self.browser.disconnected.wait())
        try:
            done, _ = await asyncio.wait(
                {work, crash_watch}, timeout=timeout_ms / 1000, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            crash_watch.cancel()
        refused = watch.since(refused_before) if watch is not None else []
        if work not in done:
            work.cancel()
            if crash_watch in done and self.browser.crashed:
                return finish(False, {}, _crashed_error())
            if refused and action.name in NAVIGATION_ACTIONS:
                return finish(False, {}, _navigation_refused(refused))
            return finish(False, {}, ActionError(
                ActionErrorCode.TIMEOUT, f"{action.name} did not finish within {timeout_ms} ms"
            ))
        refused = watch.since(refused_before) if watch is not None else []
        try:
            data, value = work.result()
        except BrowserActionError as exc:
            keep = exc.error.code is ActionErrorCode.BLOCKED_URL or not refused or action.name not in NAVIGATION_ACTIONS
            return finish(False, {}, exc.error if keep else _navigation_refused(refused))
        except Exception as exc:  # noqa: BLE001 - every failure must become a typed result
            if refused and action.name in NAVIGATION_ACTIONS:
                return finish(False, {}, _navigation_refused(refused))
            return finish(False, {}, await self._classify_exception(action, exc))
        if refused:
            if action.name in NAVIGATION_ACTIONS:
                return finish(False, {}, _navigation_refused(refused))
            data = {**data, "refused_navigations": [block.evidence() for block in refused]}
        if action.name in ACTIONS_THAT_MAY_OPEN_TABS:
            opened = await self._tabs.opened_since_mark()
            data = {**data, "opened_tabs": [info.to_dict() for info in opened]}
        return finish(True, data, None, value)

    async def _run_handler(
        self, handler: Handler, tab_id: str | None, action: Action, timeout_ms: int
    ) -> tuple[dict[str, Any], Any]:
        tab = self.tab(tab_id)
        tab.deadline = time.monotonic() + timeout_ms / 1000
        await self._tabs.bring_to_front(tab.tab_id)
        scope = ActionScope(
            tab=tab,
            session_id=self.session_id,
            policy=self.policy,
            artifacts=self.artifacts,
            primary_tab=self.tab,
            end_session=self._close_context,
            secret_typed=self.on_secret_typed,
            secret_values=self.secret_values,
            tabs=self._tabs,
        )
        return await handler(scope, action)

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
            if self.browser.crashed or self.browser.process_died:
                return _crashed_error()
            tab_id = action.tab_id or self.primary_tab_id
            return ActionError(ActionErrorCode.TAB_CLOSED, f"tab {tab_id} closed during {action.name}: {text}")
        if type(exc).__name__ == "TimeoutError":
            return ActionError(ActionErrorCode.TIMEOUT, f"{action.name}: {text}")
        return ActionError(ActionErrorCode.SCRIPT_FAILED, f"{action.name} failed: {type(exc).__name__}: {text}")

    async def _close_context(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self._tabs.stop_watching()
        self.browser.drop_on_close(self.session_id)
        try:
            if not self.browser.crashed:
                await asyncio.wait_for(self._context.close(), timeout=5)
        except Exception:  # noqa: BLE001 - the context may already be gone with the browser
            pass
        finally:
            # Only after the context: requests its pages send while closing (unload beacons) are
            # still refused by the proxy, and once it is gone the context can reach nothing.
            if self.proxy is not None:
                await self.proxy.stop()
            if self.on_closed is not None:
                self.on_closed()


def _same_request(recorded: ActionResult, action: Action) -> bool:
    return recorded.name == action.name


def _failure(action: Action, error: ActionError) -> ActionResult:
    return ActionResult(ok=False, action_id=action.action_id, name=action.name, tab_id=action.tab_id, error=error)


def _navigation_refused(refused: list[TopFrameBlock]) -> ActionError:
    first = refused[0]
    return ActionError(
        ActionErrorCode.BLOCKED_URL,
        f"the network policy refused the top frame's navigation to {first.url} ({first.blocker_kind.value}): {first.reason}",
        {**first.evidence(), "refused_navigations": [block.evidence() for block in refused]},
    )


def _crashed_error() -> ActionError:
    return ActionError(
        ActionErrorCode.BROWSER_CRASHED,
        "the browser process died or its connection dropped; start a new browser to continue",
    )
