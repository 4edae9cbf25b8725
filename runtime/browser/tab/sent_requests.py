"""`SentRequestWatch`: what one tab's requests carried, and whether the network policy refused them.

The policy proxy decides, but it cannot read what it refuses: an https request or a WebSocket
shows it only a CONNECT to a host and port, and it refuses before any body arrives. The tab's own
CDP events show each request as the page made it, before it leaves the browser (measured on
Chromium 156):

- `Network.requestWillBeSent`: any request of any frame of the tab (fetch, XHR, sendBeacon
  (`Ping`), an image, a form's submission as a `Document`), with its method and `postData` (or
  `postDataEntries`) when it has a body;
- `Network.webSocketCreated`: a WebSocket's URL (its handshake is no `requestWillBeSent`);
- `Network.responseReceived`: an allowed address answered (the request was delivered), unless it
  is the proxy's refusal (its header only points at it; the proxy's log says so, as for
  `TopFrameWatch`); `Network.loadingFailed`: the end of a request the session's judge allowed but
  the proxy refused all the same (a name that resolves to a private address).

A request whose URL the session's judge refuses is refused as it is made: the proxy enforces that
very judge. Each refused request, and each delivered one, goes to `record` once as a
`SentRequest` (`blocker_kind` None when delivered). Which of a run's values it carried is the
executor's question (execute/judges/sent_data.py), since only the run knows what it put into the
page. The body is kept in memory only, never shown: it may hold a secret.
"""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runtime.browser.tab.top_frame import Judge, RefusalLookup
from runtime.outcomes import BlockerKind

_BLOCKER_HEADER = "x-verity-blocker"
_NETWORK_SCHEMES = ("http:", "https:", "ws:", "wss:")
# Enough to find a typed value in any form's body; a larger upload is cut, not kept whole.
BODY_CHARS = 64 * 1024
# Requests still waiting for their end: only recent ones can still be refused by the proxy.
_PENDING = 256


@dataclass(frozen=True)
class SentRequest:
    """One request as the page made it, refused (`blocker_kind`) or delivered (None).
    `resource_type` is CDP's (`Fetch`, `XHR`, `Ping` for sendBeacon, `Image`, `Document`,
    `WebSocket` ...); `seen_by` is `judge` (refused as it was made), `proxy` (the proxy's own
    refusal) or `response` (an allowed address answered). `body` is never shown anywhere."""

    tab_id: str
    frame_id: str
    request_id: str
    url: str
    method: str
    resource_type: str
    body: str
    blocker_kind: BlockerKind | None
    reason: str
    seen_by: str
    at: float
    # time.monotonic() when the request was heard being made: which act of the run it came during.
    made: float = 0.0


class SentRequestWatch:
    """Follows one tab's requests; `record` gets each refused one, and each delivered one, once."""

    def __init__(self, tab_id: str, judge: Judge, refusal_for: RefusalLookup, record: Callable[[SentRequest], None]) -> None:
        self.tab_id = tab_id
        self._judge = judge
        self._refusal_for = refusal_for
        self._record = record
        self._pending: dict[str, dict[str, Any]] = {}  # requestId -> what the request carried
        self._recorded: set[str] = set()

    async def start(self, cdp: Any) -> None:
        cdp.on("Network.requestWillBeSent", self._on_request)
        cdp.on("Network.webSocketCreated", self._on_websocket)
        cdp.on("Network.responseReceived", self._on_response)
        cdp.on("Network.loadingFailed", self._on_failed)
        cdp.on("Network.loadingFinished", self._on_finished)
        await cdp.send("Network.enable")

    def _on_request(self, params: dict[str, Any]) -> None:
        request = params.get("request") or {}
        url = str(request.get("url", ""))
        if not url.lower().startswith(_NETWORK_SCHEMES):
            return  # data:, blob: ... never leave the browser
        carried = {
            "url": url,
            "method": str(request.get("method", "GET")),
            "type": str(params.get("type", "Other")),
            "frame": str(params.get("frameId", "")),
            "body": _body_of(request),
            "made": time.monotonic(),
        }
        request_id = str(params.get("requestId", ""))
        # A redirect hop reuses the request id: the hop is judged as a request of its own.
        self._recorded.discard(request_id)
        self._judged(request_id, carried)

    def _on_websocket(self, params: dict[str, Any]) -> None:
        url = str(params.get("url", ""))
        if url.lower().startswith(_NETWORK_SCHEMES):
            carried = {"url": url, "method": "GET", "type": "WebSocket", "frame": "", "body": "", "made": time.monotonic()}
            self._judged(str(params.get("requestId", "")), carried)

    def _judged(self, request_id: str, carried: dict[str, Any]) -> None:
        url = carried["url"]
        # The same host rules hold for a WebSocket; only the scheme differs.
        asked = "http" + url[2:] if url[:3].lower() == "ws:" else "https" + url[3:] if url[:4].lower() == "wss:" else url
        judgement = self._judge(asked)
        if not judgement.allowed and judgement.blocker_kind is not None:
            self._send(request_id, carried, judgement.blocker_kind, judgement.reason, "judge")
            return
        self._pending.pop(request_id, None)
        self._pending[request_id] = carried
        if len(self._pending) > _PENDING:
            self._pending.pop(next(iter(self._pending)))

    def _on_response(self, params: dict[str, Any]) -> None:
        request_id = str(params.get("requestId", ""))
        headers = {str(k).lower() for k in ((params.get("response") or {}).get("headers") or {})}
        if _BLOCKER_HEADER in headers:  # only a pointer: the proxy's log says whether it refused
            self._ended(request_id)
            return
        carried = self._pending.pop(request_id, None)
        if carried is not None:  # an allowed address answered: what the request carried got there
            self._send(request_id, carried, None, "", "response")

    def _on_failed(self, params: dict[str, Any]) -> None:
        self._ended(str(params.get("requestId", "")))

    def _on_finished(self, params: dict[str, Any]) -> None:
        self._pending.pop(str(params.get("requestId", "")), None)

    def _ended(self, request_id: str) -> None:
        carried = self._pending.pop(request_id, None)
        if carried is None:
            return
        refusal = self._refusal_for(carried["url"])
        if refusal is not None:  # otherwise a failure that is no refusal (the host is down)
            self._send(request_id, carried, refusal.blocker_kind, refusal.reason, "proxy")

    def _send(self, request_id: str, carried: dict[str, Any], kind: BlockerKind | None, reason: str, seen_by: str) -> None:
        if request_id in self._recorded:
            return
        self._recorded.add(request_id)
        if len(self._recorded) > _PENDING * 4:
            self._recorded.clear()  # ids are unique per tab: forgetting old ones repeats nothing
            self._recorded.add(request_id)
        self._record(
            SentRequest(
                self.tab_id, carried["frame"], request_id, carried["url"], carried["method"], carried["type"],
                carried["body"], kind, reason, seen_by, time.time(), carried["made"],
            )
        )


def _body_of(request: dict[str, Any]) -> str:
    """The request's body as text, as far as CDP gave it with the event."""
    text = request.get("postData")
    if isinstance(text, str):
        return text[:BODY_CHARS]
    parts: list[str] = []
    for entry in request.get("postDataEntries") or []:
        try:
            parts.append(base64.b64decode(str(entry.get("bytes", ""))).decode("utf-8", "replace"))
        except (binascii.Error, ValueError):
            continue
    return "".join(parts)[:BODY_CHARS]
