"""Verity's browser driver: headless Chromium over CDP (pyppeteer transport), our verbs on top.

Each layer is a folder and imports only the ones below it (tests/architecture proves it):

- `vocabulary/`: `actions` (Action, ActionResult, Target), `errors`, `document` (which document a
  read saw), `observation`, `observation_context`, `tree` (what a model reads),
  `policy`. Plain data; nothing talks to Chromium.
- `scripts/`: the page side, as `.js` files: one namespace installed once in every document's
  isolated world (which the page's own scripts can neither see nor reach) and called by name with
  JSON arguments; `main_world/` for the few scripts that run in a page's own world.
- `launch/`: `launch_browser()` / `connect_browser(ws)` -> `Browser` (one Chromium, many runs;
  knows nothing of sessions): `chromium_start` (finding Chromium, its command line, the spawn:
  importable without pyppeteer), `chromium_process` (the process and its profile), `transport`
  (pyppeteer, patched), `no_download` (in place of pyppeteer's Chromium downloader: it refuses),
  `browser`, `starting`, `attach`, `endpoints`; beside them `reservation` (a
  session's context made ahead of the session) and `readable_text` (trafilatura's reading of a
  page, in a worker process).
- `tab/`: one page: `tab` (refs, snapshots, calls to the page scripts), `worlds` (its isolated
  worlds), `snapshot_capture` and `snapshot_pages`, `snapshot_tree` (the accessibility tree a
  model reads, across frames), `locate`, `document_tracking`, and
  `top_frame`: which navigations of its top frame the network policy refused, and
  `sent_requests`: what each of its requests carried, and whether the policy refused it.
- `action_handlers/`: the catalog, one handler per action name, grouped by job (navigation,
  waiting, read, gestures and their effects, field_reads, checks, recipe_scripts, tree_reads),
  built on tab.
- `session/`: `await open_session(browser, artifacts=ArtifactStore(run_dir))` -> `BrowserSession`
  (`browser_session`: one run: an incognito context, a sticky `primary_tab_id`, popups tracked
  and reported by `tab_tracking`; with `SessionPolicy(network=...)` every request of the context
  goes through the session's own policy proxy), its typed `verbs` and its `storage`.
- `supply/`: where runs get sessions: `BrowserProvider` (one Chromium shared by a process's runs,
  replaced when it dies), `BrowserPool` (several attached ones), and the checks of an attached
  browser: `udp_fence` refuses one whose pages can send WebRTC UDP around the session's proxy,
  `dns_fence` one that may look names up itself, `handler_fence` one whose pages may start a
  program outside it.

`await session.perform(Action(name=..., action_id=..., tab_id=..., params=..., timeout_ms=...))`
-> `ActionResult(ok, data, error)`: serial per session, idempotent by `action_id`, always ends
(timeout / browser_crashed at worst), never raises. Typed verbs (`open_url`, `observe`,
`snapshot`, `snapshot_tree`, `find_nodes`, `click`, `type_text`, `select`, `press`, `scroll`, `wait`,
`extract`, `verify`, `fingerprint`, `prepare_page`, `close`, ...) wrap `perform`.

Usage::

    browser = await launch_browser()
    session = await open_session(browser, artifacts=ArtifactStore(run_dir))
    await session.open_url("http://127.0.0.1:8000/form.html")
    snap = (await session.snapshot()).value                  # Snapshot with refs "s1:e3"...
    await session.click(snap.elements[0].ref)                 # or {"role": "button", "name": "Save"}
    (await session.verify("text_present", value="Saved")).data["passed"]
    await browser.close()

The package (and each of its folders) imports nothing until one of its names is asked for, so
`runtime.browser.launch.chromium_start` can spawn Chromium before pyppeteer and the rest are
imported (`verity run` does; BENCHMARKS.md, "Run start"). `from runtime.browser import Browser`
loads the module that defines it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from runtime.browser.launch import no_download
from runtime.lazy_exports import lazy_exports

# Before any of pyppeteer is imported: its downloader is never used (launch/no_download.py).
no_download.install()

if TYPE_CHECKING:
    from runtime.browser.vocabulary.actions import (
        DEFAULT_ACTION_TIMEOUT_MS,
        Action,
        ActionName,
        ActionResult,
        ActKind,
        Target,
        WaitKind,
    )
    from runtime.browser.vocabulary.errors import (
        ActionError,
        ActionErrorCode,
        BrowserActionError,
        BrowserLaunchError,
        LaunchErrorCode,
    )
    from runtime.browser.launch.chromium_start import LaunchOptions, find_chromium
    from runtime.browser.launch.browser import Browser
    from runtime.browser.launch.attach import connect_browser
    from runtime.browser.launch.starting import launch_browser
    from runtime.browser.vocabulary.observation import (
        BoundingBox,
        Observation,
        PageFingerprint,
        PRIMARY_TAB_ID,
        PreparedPage,
        Snapshot,
        SnapshotElement,
        TabEvent,
        VerifyOutcome,
    )
    from runtime.browser.vocabulary.observation_context import ContextEntry, ObservationContext
    from runtime.browser.vocabulary.tree import FoundNodes, SnapshotTree
    from runtime.browser.vocabulary.policy import SessionPolicy
    from runtime.browser.session.browser_session import BrowserSession, open_session
    from runtime.browser.session.tab_tracking import TabInfo

# Each exported name, by the module of runtime.browser that defines it.
_EXPORTED_FROM = {
    "vocabulary.actions": ("DEFAULT_ACTION_TIMEOUT_MS", "Action", "ActionName", "ActionResult", "ActKind", "Target", "WaitKind"),
    "vocabulary.errors": ("ActionError", "ActionErrorCode", "BrowserActionError", "BrowserLaunchError", "LaunchErrorCode"),
    "launch.chromium_start": ("LaunchOptions", "find_chromium"),
    "launch.browser": ("Browser",),
    "launch.attach": ("connect_browser",),
    "launch.starting": ("launch_browser",),
    "vocabulary.observation": ("BoundingBox", "Observation", "PageFingerprint", "PreparedPage", "PRIMARY_TAB_ID", "Snapshot", "SnapshotElement", "TabEvent", "VerifyOutcome"),
    "vocabulary.observation_context": ("ContextEntry", "ObservationContext"),
    "vocabulary.tree": ("FoundNodes", "SnapshotTree"),
    "vocabulary.policy": ("SessionPolicy",),
    "session.browser_session": ("BrowserSession", "open_session"),
    "session.tab_tracking": ("TabInfo",),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTED_FROM, globals())

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
    "FoundNodes",
    "LaunchErrorCode",
    "LaunchOptions",
    "Observation",
    "ObservationContext",
    "PageFingerprint",
    "PRIMARY_TAB_ID",
    "PreparedPage",
    "SessionPolicy",
    "Snapshot",
    "SnapshotElement",
    "SnapshotTree",
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
