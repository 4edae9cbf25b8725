"""Capture proof for the network fence's WebRTC part (issue 15): what leaves loopback while
Verity's Chromium runs the WebRTC fixture pages.

    uv run python tools/capture_fence.py            # needs root (tcpdump) and Chromium

Two measurements:

1. On this machine's own network: `tcpdump -i any` with the filter `not ifindex 1` (every
   interface but loopback) runs while a Verity-launched Chromium runs each WebRTC attempt of
   tests/fixtures/webrtc (STUN, TURN over UDP, a forged candidate; on load and after the page was
   verified) in a run's policy context, then a full recipe run on the forged-candidate page. It
   prints the packets that left loopback meanwhile (any process's: the machine is shared, so each
   packet is listed to be judged) and the datagrams the loopback peers received.
2. In a network namespace of its own (a loopback and a veth pair whose both ends stay inside, a
   default route into it; the kernel lets nothing out): Chromium's own name lookups. A fenced
   Chromium runs a page that names an off-domain host every way a page can through the policy
   proxy, under tcpdump on the veth; every DNS query captured is one Chromium (or the proxy) made. The page names hosts by
   image, fetch, dns-prefetch, preconnect, a STUN server, a TURN and a TURNS server over TCP and
   remote ICE candidates over UDP and TCP (issue 33: WebRTC resolved the last two kinds itself
   until Verity's Chromium was started with its host-resolver rules).

Every Chromium here has WebRTC confined to the proxy and mDNS off (Verity's launch flags).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from runtime.artifacts import ArtifactStore  # noqa: E402
from runtime.browser import SessionPolicy, launch_browser, open_session  # noqa: E402
from runtime.execute import BrowserProvider  # noqa: E402
from runtime.policy import NetworkPolicy  # noqa: E402
from tests.fixtures.webrtc.exercise import run_attempt  # noqa: E402
from tests.fixtures.webrtc.site import KINDS, ROOT, WebRtcSite  # noqa: E402
from tests.policy.corpus_runs import run_recipe  # noqa: E402

NOT_LOOPBACK = "not ifindex 1"
VETH = ("fence0", "fence1")
PEER_MAC = "02:00:00:00:fe:01"
DNS_PROBE_NAME = "fence-dns-probe.verity-capture.example"
# Until tcpdump says it listens; a ceiling, not an expected duration.
TCPDUMP_READY_CEILING_SECONDS = 20.0


class Capture:
    """tcpdump writing to a file until stopped; `packets()` reads it back, one line each."""

    def __init__(self, interface: str, bpf: str, path: Path) -> None:
        self.command = ["tcpdump", "-i", interface, "-nn", "-U", "-y", "LINUX_SLL2" if interface == "any" else "EN10MB", "-w", str(path), bpf]
        self.path = path
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Capture:
        self._process = subprocess.Popen(self.command, stderr=subprocess.PIPE)
        assert self._process.stderr is not None
        deadline = time.monotonic() + TCPDUMP_READY_CEILING_SECONDS
        line = b""
        while b"listening on" not in line:  # tcpdump says so once the capture runs
            line = self._process.stderr.readline()
            if not line and (self._process.poll() is not None or time.monotonic() > deadline):
                raise RuntimeError(f"tcpdump did not start: {' '.join(self.command)}")
        return self

    def __exit__(self, *_: object) -> None:
        assert self._process is not None
        self._process.send_signal(signal.SIGINT)
        self._process.wait(timeout=20)

    def packets(self) -> list[str]:
        shown = subprocess.run(["tcpdump", "-nn", "-r", str(self.path)], capture_output=True, text=True, check=False)
        return [line for line in shown.stdout.splitlines() if line.strip()]


async def fenced_pages(scratch: Path) -> dict[str, Any]:
    """Every WebRTC attempt, then a full run, on a Verity-launched Chromium; the peers' counts."""
    browser = await launch_browser()
    attempts = []
    try:
        with WebRtcSite() as site:
            for kind in KINDS:
                for late in (False, True):
                    done = await run_attempt(browser, site, kind, late=late, artifacts_dir=scratch / f"{kind}-{late}")
                    attempts.append({"kind": kind, "late": late, "verified": done.verified, **done.reported})
            recipe = (ROOT / "recipe.yaml").read_text(encoding="utf-8").replace("__ALLOWED__", site.allowed_host)
            run = await run_recipe(BrowserProvider(browser=browser), recipe, site.page_url("forged", now=True), scratch / "run")
            return {"attempts": attempts, "run": run.verdict.stop_reason.value, "peer_datagrams": site.datagrams()}
    finally:
        await browser.close()


DNS_PAGE = f"""<!doctype html><title>DNS probe</title>
<link rel="dns-prefetch" href="//{DNS_PROBE_NAME}"><link rel="preconnect" href="http://{DNS_PROBE_NAME}">
<img src="http://img.{DNS_PROBE_NAME}/x.gif"><script>
fetch('http://fetch.{DNS_PROBE_NAME}/x').catch(() => {{}});
async function gathered(config) {{
  const pc = new RTCPeerConnection(config);
  const complete = new Promise((resolve) => pc.addEventListener('icegatheringstatechange', () => {{ if (pc.iceGatheringState === 'complete') resolve(); }}));
  pc.createDataChannel('x'); await pc.setLocalDescription(await pc.createOffer());
  if (pc.iceGatheringState !== 'complete') await complete;
  return pc;
}}
async function candidates() {{
  const pc = await gathered({{}});
  const sdp = pc.localDescription.sdp.replace(/a=setup:actpass/g, 'a=setup:active').split('\\r\\n').filter((l) => !l.startsWith('a=candidate') && !l.startsWith('a=end-of')).join('\\r\\n');
  await pc.setRemoteDescription({{type: 'answer', sdp}});
  for (const c of ['candidate:1 1 udp 2122260223 udpcand.{DNS_PROBE_NAME} 3478 typ host', 'candidate:2 1 tcp 2122260223 tcpcand.{DNS_PROBE_NAME} 3478 typ host tcptype passive'])
    await pc.addIceCandidate({{candidate: c, sdpMid: '0', sdpMLineIndex: 0}}).catch(() => {{}});
}}
Promise.all([
  gathered({{iceServers: [{{urls: 'stun:stun.{DNS_PROBE_NAME}:3478'}}]}}),
  gathered({{iceTransportPolicy: 'relay', iceServers: [{{urls: 'turn:turn.{DNS_PROBE_NAME}:3478?transport=tcp', username: 'u', credential: 'c'}},
                                                     {{urls: 'turns:turns.{DNS_PROBE_NAME}:5349', username: 'u', credential: 'c'}}]}}),
  candidates(),
]).then(() => document.body.insertAdjacentText('beforeend', 'ICE gathered'));
</script>"""


async def dns_page(scratch: Path) -> dict[str, Any]:
    """The DNS probe page in a run's policy context (allowed: the page server only)."""
    from http.server import BaseHTTPRequestHandler

    from runtime.demo.loopback import LoopbackSite

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = DNS_PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            pass

    browser = await launch_browser()
    try:
        with LoopbackSite(0, Page) as site:
            allowed = f"127.0.0.1:{site.port}"
            session = await open_session(browser, artifacts=ArtifactStore(scratch / "dns"), policy=SessionPolicy(network=NetworkPolicy.of([allowed])))
            try:
                await session.open_url(f"http://{allowed}/", timeout_ms=30_000)
                gathered = await session.wait("text_includes", "ICE gathered", timeout_ms=60_000)
                blocked = session.proxy.log.summary() if session.proxy is not None else {}
            finally:
                await session.stop()
        return {"gathering_completed": gathered.ok, "proxy_refused": blocked.get("blocked_requests"), "refused": [s["target"] for s in blocked.get("samples", [])]}
    finally:
        await browser.close()


def _namespace_child(scratch: Path) -> None:
    """Inside the namespace: capture on the veth while the DNS page runs; print one JSON line."""
    with Capture(VETH[0], "", scratch / "webrtc-ns.pcap") as capture:
        pages = asyncio.run(fenced_pages(scratch / "ns"))
    webrtc = capture.packets()
    with Capture(VETH[0], "", scratch / "dns.pcap") as capture:
        page = asyncio.run(dns_page(scratch))
    packets = capture.packets()
    print(json.dumps({"webrtc_pages": {**pages, "left_loopback": webrtc}, "dns_page": {**page, "packets": packets, "dns_queries": [p for p in packets if _is_dns(p)]}}))


def _is_dns(line: str) -> bool:
    return ".53:" in line or ".53 >" in line


def _summary(packets: list[str]) -> dict[str, Any]:
    """The DNS names asked about, and every packet that is not DNS."""
    names = sorted({word for line in packets if _is_dns(line) for word in line.split() if word.endswith(".") and "?" not in word and word.count(".") > 1})
    return {"packets": len(packets), "dns_packets": sum(_is_dns(line) for line in packets), "dns_names": names, "other": [line for line in packets if not _is_dns(line)]}


def _in_namespace(scratch: Path) -> dict[str, Any]:
    setup = (
        f"ip link set lo up && ip link add {VETH[0]} type veth peer name {VETH[1]} && ip addr add 10.254.0.1/24 dev {VETH[0]} "
        # A gateway whose address the kernel knows (the other end of the pair): packets to any
        # address are sent onto the veth, where tcpdump sees them, and die at its other end.
        f"&& ip link set {VETH[1]} address {PEER_MAC} && ip link set {VETH[0]} up && ip link set {VETH[1]} up "
        f"&& ip neigh add 10.254.0.2 lladdr {PEER_MAC} dev {VETH[0]} nud permanent && ip route add default via 10.254.0.2 dev {VETH[0]} "
        f'&& exec "$0" "$1" --namespace-child "$2"'
    )
    done = subprocess.run(
        ["unshare", "--net", "--", "sh", "-c", setup, sys.executable, str(Path(__file__).resolve()), str(scratch)],
        capture_output=True, text=True, cwd=REPO, check=False, timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the namespace measurement failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--namespace-child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.namespace_child is not None:
        _namespace_child(args.namespace_child)
        return 0
    if os.geteuid() != 0 or shutil.which("tcpdump") is None:
        sys.exit("capture_fence needs root and tcpdump (apt-get install tcpdump)")
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as scratch_dir:
        scratch = Path(scratch_dir)
        started = time.monotonic()
        with Capture("any", NOT_LOOPBACK, scratch / "fence.pcap") as capture:
            pages = asyncio.run(fenced_pages(scratch))
        duration = time.monotonic() - started
        left = capture.packets()
        # The machine is shared: the same capture for as long, with no Chromium of ours running.
        with Capture("any", NOT_LOOPBACK, scratch / "baseline.pcap") as baseline:
            time.sleep(duration)  # a baseline of the same length, not a synchronisation
        print(f"baseline ({duration:.1f} s, nothing of ours running): {json.dumps(_summary(baseline.packets()))}")
        print(f"command: {' '.join(capture.command)}")
        print(f"WebRTC attempts: {json.dumps(pages['attempts'])}")
        print(f"full run on the forged-candidate page: {pages['run']}")
        print(f"datagrams at the loopback peers: {pages['peer_datagrams']}")
        print(f"packets that left loopback during the pages ({duration:.1f} s): {json.dumps(_summary(left))}")
        namespace = _in_namespace(scratch)
        print(f"in a network namespace of its own, the WebRTC pages: {json.dumps(namespace['webrtc_pages'])}")
        print(f"in a network namespace of its own, the DNS probe page: {json.dumps(namespace['dns_page'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
