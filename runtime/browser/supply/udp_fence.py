"""`probe_udp_fence(browser)`: can pages in a Verity context send UDP around its policy proxy?

A context's proxy carries HTTP, WebSocket and WebRTC over TCP; WebRTC over UDP goes straight to a
STUN/TURN server or a remote candidate unless Chromium was started with
`--webrtc-ip-handling-policy=disable_non_proxied_udp`. Verity launches its own Chromium with that
flag (launch/chromium_start.py); a browser attached with `--browser-ws` was started by someone
else, and a launch flag cannot be given to it afterwards, nor can the policy be set per context
over CDP. So an attached browser is asked, by behaviour, before any run uses it
(scripts/main_world/udp_probe.js):

A fresh context with a refuse-everything policy proxy (the same kind a run gets) opens a page
that makes an `RTCPeerConnection` with `iceTransportPolicy: 'relay'` and one TURN server,
`turn:127.0.0.1:PORT?transport=udp`, where the probe listens on a loopback UDP socket. Relay-only
gathering asks no interface for host candidates, so nothing is multicast (mDNS) and the only
place a datagram can go is that socket. A fenced browser sends the TURN Allocate over TCP to the
proxy (refused) or not at all; an unfenced one sends it as a datagram to the socket.

The verdict is decided by what happened, never by a timer: the Allocate is sent when gathering
starts and gathering completes only after it was answered or gave up, so once the page says
gathering completed, every datagram it sent is already in the socket's queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import weakref
from dataclasses import dataclass

from runtime.browser.vocabulary.errors import BrowserLaunchError, LaunchErrorCode
from runtime.browser.launch.chromium_start import WEBRTC_UDP_FLAG, WEBRTC_UDP_FORCE_FLAG
from runtime.browser.launch.browser import Browser
from runtime.browser.launch.endpoints import redact_endpoint
from runtime.browser.scripts.loader import main_world_script
from runtime.policy import PROXY_BYPASS_LIST, NetworkPolicy, PolicyProxy

# A ceiling for a loaded machine, not an expected duration: a fenced browser completes gathering
# at once, an unfenced one sends its first datagram at once.
PROBE_CEILING_SECONDS = 60.0

@dataclass(frozen=True)
class UdpFenceVerdict:
    """What the probe saw: `datagrams` that reached its loopback TURN socket (0 when fenced),
    and whether the browser has WebRTC at all."""

    fenced: bool
    datagrams: int
    webrtc: bool
    detail: str

    def to_dict(self) -> dict[str, object]:
        return {"fenced": self.fenced, "datagrams": self.datagrams, "webrtc": self.webrtc, "detail": self.detail}


async def probe_udp_fence(browser: Browser, *, ceiling_seconds: float = PROBE_CEILING_SECONDS) -> UdpFenceVerdict:
    """Run the probe once in a context of its own, closed afterwards; see the module docstring."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    loop = asyncio.get_running_loop()
    first_datagram: asyncio.Future[None] = loop.create_future()
    received = 0

    def on_readable() -> None:
        nonlocal received
        received += _drain(listener)
        if received and not first_datagram.done():
            first_datagram.set_result(None)

    loop.add_reader(listener.fileno(), on_readable)
    proxy = await PolicyProxy(NetworkPolicy.of([])).start()
    context = None
    gathering: asyncio.Future[object] | None = None
    try:
        context = await browser.create_context(proxy_server=proxy.proxy_server, proxy_bypass_list=PROXY_BYPASS_LIST)
        page = await context.newPage()
        gathering = asyncio.ensure_future(page.evaluate(main_world_script("udp_probe"), f"turn:127.0.0.1:{port}?transport=udp"))
        done, _ = await asyncio.wait({gathering, first_datagram}, timeout=ceiling_seconds, return_when=asyncio.FIRST_COMPLETED)
        received += _drain(listener)  # what arrived before gathering completed, not yet read
        if received:
            return UdpFenceVerdict(False, received, True, f"{received} datagram(s) reached the probe's loopback TURN socket around the proxy")
        if gathering not in done:
            return UdpFenceVerdict(False, 0, True, f"the probe's ICE gathering did not complete within {ceiling_seconds:.0f} s")
        outcome = gathering.result()
        webrtc = bool(outcome.get("webrtc")) if isinstance(outcome, dict) else False
        detail = "ICE gathering completed and no datagram left around the proxy" if webrtc else "the browser has no RTCPeerConnection"
        return UdpFenceVerdict(True, 0, webrtc, detail)
    except Exception as error:  # noqa: BLE001 - a probe that cannot run proves nothing: not fenced
        return UdpFenceVerdict(False, received, True, f"the probe could not run: {type(error).__name__}: {error}")
    finally:
        if gathering is not None and not gathering.done():
            gathering.cancel()
        if gathering is not None:
            # The page's evaluation fails once its context closes; that is expected, not news.
            gathering.add_done_callback(lambda task: task.cancelled() or task.exception())
        loop.remove_reader(listener.fileno())
        listener.close()
        if context is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(context.close(), timeout=5)
        await proxy.stop()


def _drain(listener: socket.socket) -> int:
    count = 0
    while True:
        try:
            listener.recvfrom(65536)
        except BlockingIOError:
            return count
        count += 1


# One verdict per connection: a reconnected browser is a new `Browser` and is probed again.
_VERDICTS: weakref.WeakKeyDictionary[Browser, UdpFenceVerdict] = weakref.WeakKeyDictionary()


async def require_udp_fence(browser: Browser) -> UdpFenceVerdict:
    """The attached browser's verdict, probed once per connection (kept on the `Browser`);
    raises `BrowserLaunchError(udp_not_fenced)` naming the flag the browser must be started with."""
    verdict = _VERDICTS.get(browser)
    if verdict is None:
        verdict = _VERDICTS[browser] = await probe_udp_fence(browser)
    if not verdict.fenced:
        raise BrowserLaunchError(
            LaunchErrorCode.UDP_NOT_FENCED,
            f"the browser at {redact_endpoint(browser.ws_endpoint)} can send WebRTC UDP around Verity's network fence "
            f"({verdict.detail}); start it with {WEBRTC_UDP_FLAG} "
            f"(a headless shell: {WEBRTC_UDP_FORCE_FLAG}) and --disable-features=WebRtcHideLocalIpsWithMdns, and attach again",
        )
    return verdict
