"""What one run's browser context and tab cost Chromium, with nothing else done in them.

    uv run python tools/bench_tab_cost.py [--cycles 30]

Every run opens a browser context of its own and a tab in it, and closes both at its end. This
starts one Chromium (Verity's launch, on a loopback page) and times, in CPU seconds of the
browser process and of every Chromium process, one cycle of:

- a context alone (Target.createBrowserContext, then dispose);
- a tab in a context made for it (createTarget in it, closeTarget, dispose), raw CDP;
- the same with pyppeteer's page (newPage: its session and domains), loading the page;

so the suite's Chromium share (BENCHMARKS.md, "Suite") can be told apart from our work.
"""

from __future__ import annotations

import argparse
import asyncio
import http.server
import socketserver
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from runtime.browser import launch_browser  # noqa: E402
from tools.proc_table import descendants, process_table  # noqa: E402

PAGE = b"<!doctype html><title>Quote</title><main><h1>Quote</h1><p id=quote>Q-1234</p></main>"


def serve_page(body: bytes) -> str:
    """Serve `body` as an HTML page at every path on a loopback port, from a daemon thread; its URL."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"


def _cpu(root: int) -> tuple[float, float]:
    """CPU seconds of `root`, and of it with every descendant alive now."""
    table = process_table()
    return (table[root].cpu if root in table else 0.0), sum(process.cpu for process in descendants(table, root))


async def _measure(label: str, pid: int, cycles: int, cycle: Callable[[], Awaitable[None]]) -> None:
    await cycle()  # warm-up
    browser_before, all_before = _cpu(pid)
    for _ in range(cycles):
        await cycle()
    browser_after, all_after = _cpu(pid)
    print(f"{label:48s} browser process {1000 * (browser_after - browser_before) / cycles:6.1f} ms, "
          f"every Chromium process {1000 * (all_after - all_before) / cycles:6.1f} ms a cycle")


async def main(cycles: int, url: str) -> None:
    browser = await launch_browser()
    try:
        raw = browser.raw  # pyppeteer's Browser
        connection = raw._connection
        pid = browser.pid
        assert pid is not None, "a launched browser has a process"

        async def context_only() -> None:
            made = await connection.send("Target.createBrowserContext", {"disposeOnDetach": True})
            await connection.send("Target.disposeBrowserContext", made)

        async def context_and_tab() -> None:
            made = await connection.send("Target.createBrowserContext", {"disposeOnDetach": True})
            target = await connection.send("Target.createTarget", {"url": "about:blank", **made})
            await connection.send("Target.closeTarget", target)
            await connection.send("Target.disposeBrowserContext", made)

        async def pyppeteer_page() -> None:
            context = await raw.createIncognitoBrowserContext()
            page = await context.newPage()
            await page.goto(url)
            await context.close()

        await _measure("a context", pid, cycles, context_only)
        await _measure("a context and a blank tab (raw CDP)", pid, cycles, context_and_tab)
        await _measure("a context and pyppeteer's page, loading a page", pid, cycles, pyppeteer_page)
    finally:
        await browser.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=30)
    asyncio.run(main(parser.parse_args().cycles, serve_page(PAGE)))
