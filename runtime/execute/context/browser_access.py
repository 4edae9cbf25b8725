"""The run's way into the browser: its session (opened on first use), driver actions bracketed by
ToolUsed events and recorded with the running state, page preparation and its artifacts.

A dead browser is not an outcome a plan can route: any action that finds it dead stops the run
with browser_crashed.

Driver actions go to the tab the running state acts in (`tabs`, context/run_tabs.py: the primary
tab unless the state's step names another), and so does each tab's page state.

It also knows each tab's current page path (issue 8): it begins with each navigation the run
starts itself (`open_and_prepare`, or `refuse` for a URL the run's judge refused), and a
navigation of that tab's top frame that the network policy refused since then stops it
(`path_refusal`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from runtime.browser import ActionErrorCode, ActionResult, BrowserSession, PreparedPage
from runtime.browser.session.verbs import SessionVerbs
from runtime.events import ArtifactStored, EventLog, ToolUsed
from runtime.execute.context.action_ids import ActionIds
from runtime.execute.context.network import PathRefusal
from runtime.execute.context.run_tabs import PageState, RunTabs
from runtime.execute.context.sent_data import RunSentData
from runtime.execute.step_outcome import RunStopped
from runtime.execute.record.step_record import StepRecorder
from runtime.execute.judges.target_check import PageObservation
from runtime.outcomes import StopReason
from runtime.policy import UrlJudgement

SessionOpener = Callable[[], Awaitable[BrowserSession]]
# A driver call gets the session's verbs aimed at the acting tab, and its action id.
DriverCall = Callable[[SessionVerbs, str], Awaitable[ActionResult]]


class BrowserAccess:
    def __init__(self, open_session: SessionOpener, events: EventLog, action_ids: ActionIds, recorder: StepRecorder) -> None:
        self._open_session = open_session
        self.events = events
        self.action_ids = action_ids
        self.recorder = recorder
        self.current: BrowserSession | None = None  # None until the first action opens it
        # Every URL this run asked to open or landed on; a replan does not follow them again.
        self.opened_urls: set[str] = set()
        self.tabs = RunTabs(events, lambda: recorder.record.state_id if recorder.record is not None else "")
        # What the run put into its pages, and the refused requests that carried it (EXEC-101).
        self.sent_data = RunSentData(events.secrets)

    def new_action_id(self, name: str) -> str:
        return self.action_ids.new(name)

    async def session(self) -> BrowserSession:
        if self.current is None:
            self.current = await self._open_session()
            self.tabs.bind(self.current.primary_tab_id)
            self.current.listen_to_tabs(self.tabs.heard)
            self.current.listen_to_sent_requests(self.sent_data.heard)
        return self.current

    async def verbs(self) -> SessionVerbs:
        """The session's verbs aimed at the tab the running state acts in."""
        session = await self.session()
        return session if self.tabs.acting is None else session.in_tab(self.tabs.acting)

    @property
    def page(self) -> PageState:
        """The page state of the tab the running state acts in."""
        return self.tabs.page

    async def follow_new_tab(self, since: str | None) -> None:
        """The `sticky_tab` switch off (seed 004's rollback): a tab opened since `since` (the
        newest tab before the state) becomes the primary tab, as an active tab would."""
        newest = self.tabs.newest
        if self.current is None or newest is None or newest == since or newest in self.tabs.closed or newest == self.tabs.primary:
            return
        await self.run_action("switch_tab", f"follow the new tab {newest} (sticky_tab off)", lambda s, a: s.switch_tab(newest, action_id=a, timeout_ms=5_000))

    @property
    def primary_tab_id(self) -> str:
        return self.current.primary_tab_id if self.current is not None else ""

    async def run_action(self, name: str, summary: str, call: DriverCall) -> ActionResult:
        """One driver action in the acting tab, bracketed by ToolUsed events; a dead browser stops the run."""
        session = await self.session()
        verbs = await self.verbs()
        tab_id = self.tabs.acting_id
        action_id = self.new_action_id(name)
        self.events.emit(ToolUsed(tool=name, action_id=action_id, phase="start", summary=summary, tab_id=tab_id))
        # Its execute_tool span (README Tracing): the page, tab and snapshot it ended on.
        with self.recorder.spans.tool(name, action_id) as span:
            result = await call(verbs, action_id)
            span.finish(
                ok=result.ok, error_code=result.error.code.value if result.error else "",
                url=result.data.get("url"), tab_id=result.tab_id, snapshot_id=result.data.get("snapshot_id"),
            )
        summary_of_result = result_summary(result) if result.ok else ""
        if result.ok:
            self.events.emit(ToolUsed(tool=name, action_id=action_id, phase="success", summary=summary_of_result, tab_id=tab_id))
        else:
            assert result.error is not None
            self.events.emit(
                ToolUsed(tool=name, action_id=action_id, phase="error", summary=result.error.message, error_code=result.error.code.value, tab_id=tab_id)
            )
        self.recorder.add_tool_result(
            {
                "action": name,
                "action_id": action_id,
                "ok": result.ok,
                "duration_ms": round(result.duration_ms, 1),
                "error": result.error.to_dict() if result.error else None,
                "summary": summary_of_result,
            }
        )
        # A failed action is first asked whether the browser is still there: a timeout or an error
        # under a killed Chromium is the crash, not the failure it looked like.
        if result.error_code is ActionErrorCode.BROWSER_CRASHED or session.browser.crashed or (not result.ok and await session.browser.is_gone()):
            raise RunStopped(
                StopReason.BROWSER_CRASHED,
                f"the browser died during {name}: " + (result.error.message if result.error else "connection lost"),
                evidence={"action": name, "action_id": action_id},
            )
        return result

    async def gone(self) -> bool:
        """Has the run's browser died or disconnected? False before a session was opened."""
        return self.current is not None and await self.current.browser.is_gone()

    def stop_if_crashed(self, detail: str) -> None:
        """For work that talks to the session directly (condition checks): a dead browser stops the run."""
        if self.current is not None and self.current.browser.crashed:
            raise RunStopped(StopReason.BROWSER_CRASHED, detail)

    async def fingerprint(self, timeout_ms: int) -> str:
        result = await self.run_action("page_fingerprint", "fingerprint the page", lambda s, a: s.fingerprint(action_id=a, timeout_ms=timeout_ms))
        return str(result.data.get("digest", "")) if result.ok else ""

    def path_refusal(self) -> PathRefusal | None:
        """Why the acting tab's current page path stops: the run's own refusal of its URL, else
        the first refused navigation of the tab's top frame since the path began. Nothing on
        such a path may be read."""
        page = self.page
        if page.refused_start is not None:
            return page.refused_start
        blocks = self.current.top_frame_blocks(self.tabs.acting_id)[page.path_start :] if self.current is not None else []
        return PathRefusal.of_block(blocks[0]) if blocks else None

    def refuse(self, state_id: str, url: str, judgement: UrlJudgement) -> PageObservation:
        """A URL the run's judge refused starts a path that stops at once; the browser never sees it."""
        self._begin_path()
        refusal = self.page.refused_start = PathRefusal.of_judgement(judgement)
        return PageObservation(state_id, url, None, "", "", "blocked_url", refusal.reason, requested_url=url)

    def _begin_path(self) -> None:
        page = self.page
        page.refused_start = None
        page.path_start = len(self.current.top_frame_blocks(self.tabs.acting_id)) if self.current is not None else 0

    async def open_and_prepare(self, state_id: str, url: str, timeout_ms: int) -> PageObservation:
        """Navigate, then seed 003's mandatory page preparation (loaded -> screenshot + readable text)."""
        self.opened_urls.add(url)
        await self.session()
        self._begin_path()
        opened = await self.run_action("open_url", f"open {url}", lambda s, a: s.open_url(url, action_id=a, timeout_ms=timeout_ms))
        if not opened.ok:
            assert opened.error is not None
            details = opened.error.details
            # A navigation that failed after a response (a 401 challenge nobody answers) keeps
            # its status and headers: they may say what the page is.
            return PageObservation(
                state_id, url, details.get("status"), "", "", opened.error.code.value, opened.error.message,
                requested_url=url, headers=dict(details.get("headers") or {}),
            )
        self.opened_urls.add(str(opened.data.get("url", url)))
        return await self.prepare(state_id, timeout_ms, status=opened.data.get("status"), requested_url=url)

    async def prepare(self, state_id: str, timeout_ms: int, status: int | None = None, requested_url: str = "") -> PageObservation:
        """The page as it is now, prepared: loaded, screenshot stored, readable text read."""
        prepared = await self.run_action("prepare_page", "wait for load, screenshot, readable text", lambda s, a: s.prepare_page(action_id=a, timeout_ms=timeout_ms))
        if not prepared.ok:
            assert prepared.error is not None
            return PageObservation(state_id, "", status, "", "", prepared.error.code.value, prepared.error.message, requested_url=requested_url)
        page: PreparedPage = prepared.value
        for ref in (page.screenshot, page.html_artifact, page.text_artifact):
            if ref is not None:
                self.events.emit(
                    ArtifactStored(artifact_id=ref.id, artifact_kind=ref.kind, path=ref.path, media_type=ref.media_type, size=ref.size, sha256=ref.sha256)
                )
        text = page.text
        if not text and page.text_artifact is not None:
            text = await asyncio.to_thread(Path(page.text_artifact.path).read_text, encoding="utf-8")
        signs = page.signals
        return PageObservation(
            state_id,
            page.url,
            page.status if page.status is not None else status,
            page.title,
            text,
            screenshot_path=page.screenshot.path,
            requested_url=requested_url,
            headings=signs.headings,
            visible_text=signs.visible_text,
            has_password_field=signs.has_password_field,
            has_captcha_widget=signs.has_captcha_widget,
            cover=signs.cover,
            headers=dict(signs.headers),
            document=page.document,
            content_digest=page.content_digest,
            text_note=page.text_note,
        )


def result_summary(result: ActionResult) -> str:
    data = result.data
    for key in ("summary", "message"):
        if isinstance(data.get(key), str) and data[key]:
            return data[key][:200]
    if "status" in data and "url" in data:
        return f"{data.get('url')} HTTP {data.get('status')}"
    if "url" in data:
        return str(data["url"])
    return ", ".join(f"{k}={v}" for k, v in list(data.items())[:4] if not isinstance(v, (dict, list)))[:200]
