"""Verity's browser driver: headless Chromium over CDP (pyppeteer transport), our verbs on top.

Layers, each importing only the ones below it:

- vocabulary: `actions` (Action, ActionResult, Target), `errors`, `observation`, `policy`, and
  `shown`: the scripts that judge what a person can see.
- `launch`: `launch_browser()` / `connect_browser(ws)` -> `Browser` (one Chromium, many runs;
  knows nothing of sessions).
- `tab`: one page: refs, snapshots, evaluation (`snapshot_capture` collects the elements);
  `top_frame`: which navigations of its top frame the network policy refused.
- `action_handlers`: the catalog, one handler per action name, grouped by job, built on tab.
- `tab_tracking`, `verbs`, `session`: `await open_session(browser, artifacts=ArtifactStore(run_dir))`
  -> `BrowserSession` (one run: an incognito context, a sticky `primary_tab_id`, popups tracked
  and reported; with `SessionPolicy(network=...)` every request of the context goes through the
  session's own policy proxy); `udp_fence`: `require_udp_fence(browser)` refuses an attached
  browser whose pages can send WebRTC UDP around that proxy.
- `await session.perform(Action(name=..., action_id=..., tab_id=..., params=..., timeout_ms=...))`
  -> `ActionResult(ok, data, error)`: serial per session, idempotent by `action_id`, always ends
  (timeout / browser_crashed at worst), never raises. Typed verbs (`open_url`, `observe`,
  `snapshot`, `click`, `type_text`, `select`, `press`, `scroll`, `wait`, `extract`, `verify`,
  `fingerprint`, `prepare_page`, `close`, ...) wrap `perform`.

Usage::

    browser = await launch_browser()
    session = await open_session(browser, artifacts=ArtifactStore(run_dir))
    await session.open_url("http://127.0.0.1:8000/form.html")
    snap = (await session.snapshot()).value                  # Snapshot with refs "s1:e3"...
    await session.click(snap.elements[0].ref)                 # or {"role": "button", "name": "Save"}
    (await session.verify("text_present", value="Saved")).data["passed"]
    await browser.close()
"""

from runtime.browser.actions import (
    DEFAULT_ACTION_TIMEOUT_MS,
    Action,
    ActionName,
    ActionResult,
    ActKind,
    Target,
    WaitKind,
)
from runtime.browser.errors import (
    ActionError,
    ActionErrorCode,
    BrowserActionError,
    BrowserLaunchError,
    LaunchErrorCode,
)
from runtime.browser.launch import (
    Browser,
    LaunchOptions,
    connect_browser,
    find_chromium,
    launch_browser,
)
from runtime.browser.observation import (
    BoundingBox,
    Observation,
    PageFingerprint,
    PreparedPage,
    Snapshot,
    SnapshotElement,
    TabEvent,
    VerifyOutcome,
)
from runtime.browser.observation_context import ContextEntry, ObservationContext
from runtime.browser.policy import SessionPolicy
from runtime.browser.session import BrowserSession, open_session
from runtime.browser.tab_tracking import TabInfo

__all__ = [
    "DEFAULT_ACTION_TIMEOUT_MS",
    "Action",
    "ActionError",
    "ActionErrorCode",
    "ActionName",
    "ActionResult",
    "ActKind",
    "BoundingBox",
    "Browser",
    "BrowserActionError",
    "BrowserLaunchError",
    "BrowserSession",
    "ContextEntry",
    "LaunchErrorCode",
    "LaunchOptions",
    "Observation",
    "ObservationContext",
    "PageFingerprint",
    "PreparedPage",
    "SessionPolicy",
    "Snapshot",
    "SnapshotElement",
    "TabEvent",
    "TabInfo",
    "Target",
    "VerifyOutcome",
    "WaitKind",
    "connect_browser",
    "find_chromium",
    "launch_browser",
    "open_session",
]
