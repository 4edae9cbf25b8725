"""Benchmark: what a request costs through the policy proxy, against the same request direct.

    uv run python tools/bench_proxy.py [--requests 400] [--megabytes 50]

On loopback, against the hostile corpus's allowed host, with the proxy on its own asyncio loop in
this process (as it runs beside the executor). Measured, alternating direct and proxied:
- a small GET on a new connection each time (a browser's first request to a host);
- small GETs on one kept-alive connection (the proxy still opens one upstream connection per
  request, so this is its worst case against a direct keep-alive);
- a large download (throughput);
- a refused request (the 403 the browser gets), for reference.
Prints median and p90 per request in milliseconds, and the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from runtime.policy import NetworkPolicy, PolicyProxy  # noqa: E402
from tests.fixtures.hostile.site import HostileSite  # noqa: E402


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


class ProxyThread:
    """The proxy on an asyncio loop in a daemon thread."""

    def __init__(self, policy: NetworkPolicy) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="bench-proxy", daemon=True).start()
        self.proxy = asyncio.run_coroutine_threadsafe(PolicyProxy(policy).start(), self.loop).result(30)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.proxy.stop(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)


def get(port: int, target: str, connection: http.client.HTTPConnection | None = None) -> int:
    """One GET; returns the body size. A fresh connection unless one is given."""
    own = connection is None
    connection = connection or http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("GET", target)
        response = connection.getresponse()
        size = 0
        while chunk := response.read(1 << 20):
            size += len(chunk)
        return size
    finally:
        if own:
            connection.close()


def timed(action: Callable[[], object]) -> float:
    began = time.perf_counter()
    action()
    return (time.perf_counter() - began) * 1000


def line(name: str, direct: list[float], proxied: list[float]) -> str:
    d, p = statistics.median(direct), statistics.median(proxied)
    return (
        f"{name:<34} direct median {d:7.2f} ms p90 {p90(direct):7.2f} | "
        f"proxy median {p:7.2f} ms p90 {p90(proxied):7.2f} | {p / d:5.2f}x (+{p - d:.2f} ms)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--megabytes", type=int, default=50)
    args = parser.parse_args()
    with HostileSite() as site:
        runner = ProxyThread(NetworkPolicy.of([site.allowed_host]))
        proxy_port, direct_port = runner.proxy.port, site.allowed_port
        small_path, small_url = "/pixel.gif", site.allowed_url("/pixel.gif")
        try:
            fresh_direct, fresh_proxy = [], []
            for _ in range(args.requests):
                fresh_direct.append(timed(lambda: get(direct_port, small_path)))
                fresh_proxy.append(timed(lambda: get(proxy_port, small_url)))
            kept_direct, kept_proxy = [], []
            direct_connection = http.client.HTTPConnection("127.0.0.1", direct_port, timeout=60)
            proxy_connection = http.client.HTTPConnection("127.0.0.1", proxy_port, timeout=60)
            for _ in range(args.requests):
                kept_direct.append(timed(lambda: get(direct_port, small_path, direct_connection)))
                kept_proxy.append(timed(lambda: get(proxy_port, small_url, proxy_connection)))
            direct_connection.close()
            proxy_connection.close()
            size = args.megabytes * 1_000_000
            big_direct, big_proxy = [], []
            for _ in range(3):
                big_direct.append(timed(lambda: get(direct_port, f"/bytes/{size}")))
                big_proxy.append(timed(lambda: get(proxy_port, site.allowed_url(f"/bytes/{size}"))))
            refused = [timed(lambda: get(proxy_port, site.off_url("/quote.html"))) for _ in range(args.requests)]
        finally:
            runner.stop()
    print(f"bench_proxy: {args.requests} requests per case, {args.megabytes} MB downloads x3, loopback")
    print(line("small GET, new connection each", fresh_direct, fresh_proxy))
    print(line("small GET, one kept-alive conn", kept_direct, kept_proxy))
    print(line(f"{args.megabytes} MB download", big_direct, big_proxy))
    mbps = lambda times: args.megabytes / (statistics.median(times) / 1000)  # noqa: E731
    print(f"{'download throughput':<34} direct {mbps(big_direct):7.0f} MB/s | proxy {mbps(big_proxy):7.0f} MB/s")
    print(f"{'refused request (403)':<34} median {statistics.median(refused):.2f} ms p90 {p90(refused):.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
