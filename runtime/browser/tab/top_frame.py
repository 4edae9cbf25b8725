"""`TopFrameWatch`: every navigation of one tab's top frame that the network policy refused.

The policy proxy refuses a request before it leaves the browser, but a refused top-frame
navigation still commits a document (the proxy's 403, at the other host's URL), and navigations
to `javascript:`, `data:` or `blob:` URLs never reach the proxy at all. So the tab's own CDP
events say which navigation was refused, how it began and through which redirect hop, as soon as
it is attempted (measured on Chromium 156):

- `Page.frameRequestedNavigation` / `Page.frameScheduledNavigation` (the latter is the only sign
  of a `javascript:` URL, whose result may replace the document without any frameNavigated):
  the URL a script, link, form, meta refresh or Refresh header asked for, and that trigger;
- `Network.requestWillBeSent` of type Document, with `redirectResponse` for each redirect hop;
- `Network.responseReceived` of a response the proxy's own log says it refused (a name that
  resolves to a private address, a redirect to another scheme): the proxy's `X-Verity-Blocker`
  header only points at it, since a page can send that header too (issue 33), and a response the
  proxy did not refuse is never taken for a refusal;
- `Network.loadingFailed`: a refused CONNECT (https), matched with the proxy's log;
- `Page.frameNavigated`: a committed document whose scheme the judge refuses.

Each attempt is judged with the session's URL judge; a refusal is kept as a `TopFrameBlock`.
Frames other than the top one are the proxy's business alone: their refusals are blocked
requests, not a refused page.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runtime.outcomes import BlockerKind
from runtime.policy import BlockedRequest, UrlJudgement

Judge = Callable[[str], UrlJudgement]
RefusalLookup = Callable[[str], BlockedRequest | None]

_BLOCKER_HEADER = "x-verity-blocker"
# A document Chromium commits for a load that failed; the failure is not a policy matter.
_FAILED_LOAD_PREFIX = "chrome-error:"


@dataclass(frozen=True)
class TopFrameBlock:
    """One refused top-frame navigation: the attempted URL, what refused it and how it began.

    `trigger` is CDP's reason (`scriptInitiated`, `anchorClick`, `metaTagRefresh`,
    `httpHeaderRefresh`, `formSubmissionPost` ...), `redirect` for a redirect hop (then
    `redirect_from` and `redirect_status` name the response that sent it), or the request's
    initiator. `seen_by` says where it was caught: `judge` (before anything left), `proxy` (its
    refusal) or `commit` (a document of a refused scheme)."""

    tab_id: str
    frame_id: str
    url: str
    blocker_kind: BlockerKind
    reason: str
    trigger: str
    seen_by: str
    at: float
    redirect_from: str | None = None
    redirect_status: int | None = None

    def evidence(self) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "url": self.url,
            "blocker_kind": self.blocker_kind.value,
            "reason": self.reason,
            "trigger": self.trigger,
            "seen_by": self.seen_by,
            "tab_id": self.tab_id,
            "frame_id": self.frame_id,
        }
        if self.redirect_from is not None:
            shown["redirect_from"] = self.redirect_from
            shown["redirect_status"] = self.redirect_status
        return shown


class TopFrameWatch:
    """Follows one tab's top frame; `blocks` grows as navigations are refused, one entry per
    refused URL per document (a refusal seen again while the same document is shown, as the
    request goes out and its 403 comes back, is the same attempt)."""

    def __init__(self, tab_id: str, judge: Judge, refusal_for: RefusalLookup) -> None:
        self.tab_id = tab_id
        self.blocks: list[TopFrameBlock] = []
        self._judge = judge
        self._refusal_for = refusal_for
        self._frame_id = ""
        self._triggers: dict[str, str] = {}  # URL -> how its navigation was asked for
        self._requests: dict[str, str] = {}  # requestId -> URL, for loadingFailed
        self._document = 0  # top-frame commits so far
        self._recorded: set[tuple[int, str, BlockerKind]] = set()

    async def start(self, cdp: Any) -> None:
        """Listen first, then learn the top frame and enable the domains the events come from."""
        cdp.on("Page.frameRequestedNavigation", self._on_requested)
        cdp.on("Page.frameScheduledNavigation", self._on_requested)
        cdp.on("Page.frameNavigated", self._on_navigated)
        cdp.on("Network.requestWillBeSent", self._on_request)
        cdp.on("Network.responseReceived", self._on_response)
        cdp.on("Network.loadingFailed", self._on_failed)
        tree = await cdp.send("Page.getFrameTree")
        self._frame_id = tree["frameTree"]["frame"]["id"]
        await cdp.send("Page.enable")
        await cdp.send("Network.enable")

    @property
    def count(self) -> int:
        return len(self.blocks)

    def since(self, mark: int) -> list[TopFrameBlock]:
        """The blocks recorded after the first `mark` ones."""
        return self.blocks[mark:]

    # ----------------------------------------------------------------- events

    def _on_requested(self, params: dict[str, Any]) -> None:
        if params.get("frameId") != self._frame_id or params.get("disposition", "currentTab") != "currentTab":
            return  # another frame, or a navigation that opens a new tab (the proxy's business)
        url, trigger = str(params.get("url", "")), str(params.get("reason", ""))
        _remember(self._triggers, url, trigger)
        self._judge_attempt(url, trigger)

    def _on_request(self, params: dict[str, Any]) -> None:
        if params.get("type") != "Document" or params.get("frameId") != self._frame_id:
            return
        url = str((params.get("request") or {}).get("url", ""))
        _remember(self._requests, str(params.get("requestId", "")), url)
        redirect = params.get("redirectResponse")
        if redirect:
            status = redirect.get("status")
            hop = {"redirect_from": str(redirect.get("url", "")), "redirect_status": int(status) if isinstance(status, (int, float)) else None}
            self._judge_attempt(url, "redirect", **hop)
        else:
            self._judge_attempt(url, self._triggers.get(url) or str((params.get("initiator") or {}).get("type", "other")))

    def _on_response(self, params: dict[str, Any]) -> None:
        if params.get("type") != "Document" or params.get("frameId") != self._frame_id:
            return
        response = params.get("response") or {}
        headers = {str(k).lower(): str(v) for k, v in (response.get("headers") or {}).items()}
        if _BLOCKER_HEADER not in headers:
            return
        url = str(response.get("url", ""))
        # The proxy logs a refusal before it answers, so its own 403 is always found here.
        refusal = self._refusal_for(url)
        if refusal is not None:
            self._record(url, refusal.blocker_kind, refusal.reason, self._triggers.get(url, "navigation"), "proxy")

    def _on_failed(self, params: dict[str, Any]) -> None:
        url = self._requests.get(str(params.get("requestId", "")))
        if params.get("type") != "Document" or url is None:
            return
        refusal = self._refusal_for(url)
        if refusal is not None:  # otherwise a failure that is no refusal (the host is down)
            self._record(url, refusal.blocker_kind, refusal.reason, self._triggers.get(url, "navigation"), "proxy")

    def _on_navigated(self, params: dict[str, Any]) -> None:
        frame = params.get("frame") or {}
        url = str(frame.get("url", ""))
        if frame.get("id") != self._frame_id or frame.get("parentId") or url.startswith(_FAILED_LOAD_PREFIX):
            return
        judgement = self._judge(url)
        if not judgement.allowed and judgement.scheme not in ("http", "https"):
            self._refuse(judgement, "navigation", "commit")  # a blob: document, say; once per attempt
        self._document += 1

    # ----------------------------------------------------------------- bookkeeping

    def _judge_attempt(self, url: str, trigger: str, **hop: Any) -> None:
        judgement = self._judge(url)
        if not judgement.allowed:
            self._refuse(judgement, trigger, "judge", **hop)

    def _refuse(self, judgement: UrlJudgement, trigger: str, seen_by: str, **hop: Any) -> None:
        assert judgement.blocker_kind is not None
        self._record(judgement.url, judgement.blocker_kind, judgement.reason, trigger, seen_by, **hop)

    def _record(self, url: str, kind: BlockerKind, reason: str, trigger: str, seen_by: str, **hop: Any) -> None:
        key = (self._document, url, kind)
        if key in self._recorded:
            return
        self._recorded.add(key)
        self.blocks.append(TopFrameBlock(self.tab_id, self._frame_id, url, kind, reason, trigger, seen_by, time.time(), **hop))


def _remember(table: dict[str, Any], key: str, value: Any, limit: int = 64) -> None:
    """Keep the latest `limit` entries: only recent navigations matter."""
    table.pop(key, None)
    table[key] = value
    if len(table) > limit:
        table.pop(next(iter(table)))
