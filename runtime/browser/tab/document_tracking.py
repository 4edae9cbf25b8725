"""Following the documents of one tab's top frame over its CDP session.

Three events say everything (measured on Chromium 1xx):

- `Page.frameNavigated` for the top frame: a new document at a URL, with its loader id;
- `Runtime.executionContextCreated` with `auxData.isDefault` for the top frame: a new main-world
  context, which every new document gets, and the only sign of a `javascript:` URL swapping the
  document (it keeps the loader id and URL, and no frameNavigated fires);
- `Network.responseReceived` of type Document for the top frame: the status and headers of the
  response a loader delivered (a 401 with an auth challenge fails the navigation but still
  answers here first).

CDP delivers a session's events before the reply to any command sent after them, so reading
`current()` right after a read's `Runtime.evaluate` returns tells which document the read saw.
"""

from __future__ import annotations

import time
from typing import Any

from runtime.browser.vocabulary.document import DocumentIdentity

# Response headers that say what a page is (blocker detection reads them); the rest are dropped.
# Not X-Verity-Blocker: a page can send it too, and only the proxy's own log says what the proxy
# refused (the tab's TopFrameWatch reads that log; issue 33).
KEPT_HEADERS = ("retry-after", "www-authenticate", "location", "content-type")


class DocumentTracker:
    def __init__(self, tab_id: str, cdp: Any) -> None:
        self.tab_id = tab_id
        self._cdp = cdp
        self.frame_id = ""
        self.url = "about:blank"
        self.loader_id = ""
        self.number = 0
        self.committed_at = time.time()
        # Top-frame navigations requested or started so far: an act compares it before and after.
        self.navigations_started = 0
        self.loading = False
        self._responses: dict[str, tuple[int, dict[str, str]]] = {}

    async def start(self) -> None:
        """Learn the current document, then follow the events (enabling their domains)."""
        self._cdp.on("Page.frameNavigated", self._on_frame_navigated)
        self._cdp.on("Page.navigatedWithinDocument", self._on_within_document)
        self._cdp.on("Runtime.executionContextCreated", self._on_context_created)
        self._cdp.on("Network.responseReceived", self._on_response)
        self._cdp.on("Page.frameRequestedNavigation", self._on_navigation_requested)
        self._cdp.on("Page.frameStartedLoading", self._on_started_loading)
        self._cdp.on("Page.frameStoppedLoading", self._on_stopped_loading)
        tree = (await self._cdp.send("Page.getFrameTree"))["frameTree"]["frame"]
        self.frame_id, self.url, self.loader_id = tree["id"], tree.get("url", self.url), tree.get("loaderId", "")
        await self._cdp.send("Page.enable")
        await self._cdp.send("Network.enable")
        # Runtime.enable reports the existing contexts, and so numbers the current document, only
        # on a session where Runtime was off. The page's own session has it on already, so the
        # document the frame tree showed is counted here: the first one this tab knows.
        await self._cdp.send("Runtime.enable")
        if self.number == 0:
            self.number = 1
            self.committed_at = time.time()

    def current(self) -> DocumentIdentity:
        status, headers = self._responses.get(self.loader_id, (None, {}))
        return DocumentIdentity(
            tab_id=self.tab_id,
            frame_id=self.frame_id,
            url=self.url,
            loader_id=self.loader_id,
            number=self.number,
            status=status,
            committed_at=self.committed_at,
            headers=dict(headers),
        )

    def response_of(self, loader_id: str) -> tuple[int | None, dict[str, str]]:
        """Status and kept headers of a loader's response, also for one whose navigation failed."""
        status, headers = self._responses.get(loader_id, (None, {}))
        return status, dict(headers)

    def latest_loader(self) -> str:
        """The loader id of the last top-frame document response, committed or not."""
        return next(reversed(self._responses), "")

    def _on_frame_navigated(self, params: dict[str, Any]) -> None:
        frame = params.get("frame") or {}
        if frame.get("parentId") or (self.frame_id and frame.get("id") != self.frame_id):
            return
        self.frame_id = frame.get("id", self.frame_id)
        self.url = frame.get("url", "") + frame.get("urlFragment", "")
        self.loader_id = frame.get("loaderId", "")
        self.committed_at = time.time()

    def _on_navigation_requested(self, params: dict[str, Any]) -> None:
        if params.get("frameId") == self.frame_id:
            self.navigations_started += 1

    def _on_started_loading(self, params: dict[str, Any]) -> None:
        if params.get("frameId") == self.frame_id:
            self.navigations_started += 1
            self.loading = True

    def _on_stopped_loading(self, params: dict[str, Any]) -> None:
        if params.get("frameId") == self.frame_id:
            self.loading = False

    def _on_within_document(self, params: dict[str, Any]) -> None:
        if params.get("frameId") == self.frame_id:
            self.url = params.get("url", self.url)

    def _on_context_created(self, params: dict[str, Any]) -> None:
        aux = (params.get("context") or {}).get("auxData") or {}
        if aux.get("isDefault") and aux.get("frameId") == self.frame_id:
            self.number += 1
            self.committed_at = time.time()

    def _on_response(self, params: dict[str, Any]) -> None:
        if params.get("type") != "Document" or params.get("frameId") != self.frame_id:
            return
        response = params.get("response") or {}
        headers = {str(k).lower(): str(v) for k, v in (response.get("headers") or {}).items() if str(k).lower() in KEPT_HEADERS}
        self._responses[str(params.get("loaderId", ""))] = (int(response.get("status", 0)), headers)
        if len(self._responses) > 64:  # only recent loaders matter
            self._responses.pop(next(iter(self._responses)))
