"""Verity's MCP browser tools beside Playwright MCP's, on the same loopback pages and Chromium.

    npm install --prefix /tmp/pwmcp @playwright/mcp@0.0.83
    uv run python tools/bench_mcp_playwright.py --playwright-mcp /tmp/pwmcp/node_modules/@playwright/mcp \
        [--chromium /usr/bin/chromium] [--rounds 5] [--small-only]

Each side is its server over stdio, held by the official MCP SDK's client for the whole
measurement: `verity mcp --allowed-domains 127.0.0.1` (incremental snapshots, its default) and
`@playwright/mcp --headless --isolated --executable-path CHROMIUM`. A round runs, on each page,
`browser_navigate`, `browser_snapshot`, `browser_snapshot` again asking for the whole tree
(Verity's `full: true`; Playwright MCP's plain snapshot) and one `browser_click` on an element
named by a ref of the tree the client held after the first snapshot (Playwright MCP's snapshot's;
Verity's navigate answer's when its snapshot said the page was unchanged, so the click proves
those refs still act), first on one side and then on the other, the order flipped every round
(paired rounds share the machine's load). It prints, per page and call, the median call time of
each side and the median of the round-by-round ratios (Verity / Playwright), and the answer's
size in characters (all of its text content).

Pages: a small page whose button adds a line (the click has an effect), and, when present,
Python's documentation index of 17,000 links (genindex-all.html, from python3.11-doc), whose
letter "Z" link (an in-page anchor) is clicked. Everything stays on loopback; neither side reaches another host.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from runtime.browser.launch.chromium_start import DNS_FENCE_FLAG, OFFLINE_FLAGS
from runtime.demo.loopback import LoopbackSite

REPO = Path(__file__).resolve().parents[1]
DOCS = Path("/usr/share/doc/python3.11/html")
CLICK_PAGE = """<!doctype html><html><head><title>Click page</title></head><body>
<h1>Click page</h1><p>A button that adds a line.</p>
<button type="button" onclick="document.body.insertAdjacentHTML('beforeend', '<p>one more line</p>')">Add a line</button>
</body></html>"""
# "browser_snapshot full": Verity's `full: true` (the whole tree even when the client holds it),
# beside Playwright MCP's plain snapshot again.
TOOLS = ("browser_navigate", "browser_snapshot", "browser_snapshot full", "browser_click")


@dataclass(frozen=True)
class Page:
    path: str
    role: str
    name: str
    href: str = ""  # Playwright shows a link named only by a child element as `link [ref=..]` and its /url


class BenchSite(LoopbackSite):
    """The click page at /click.html, and Python's documentation under /docs/."""

    thread_name = "bench-mcp-site"

    def __init__(self) -> None:
        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, directory=str(DOCS), **kwargs)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
                pass

            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                if self.path.startswith("/docs/"):
                    self.path = self.path[len("/docs") :]
                    return super().do_GET()
                payload = CLICK_PAGE.encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return None

        super().__init__(handler=Handler)


class CallFailed(Exception):
    """A tool call answered with an error (a timeout on a loaded machine, say)."""


def _text(answer: Any) -> str:
    return "\n".join(block.text for block in answer.content if getattr(block, "text", None))


def _ref(snapshot: str, page: Page) -> str:
    found = re.search(rf'{page.role} "{re.escape(page.name)}"[^\n]*?\[ref=([^\]]+)\]', snapshot)
    if found is None and page.href:
        found = re.search(rf'{page.role} [^\n]*?\[ref=([^\]]+)\][^\n]*:\n\s*- /url: "{re.escape(page.href)}"', snapshot)
    if found is None:
        raise SystemExit(f"no {page.role} {page.name!r} with a ref in the snapshot:\n{snapshot[:2000]}")
    return found[1]


async def _one_pass(client: Client, url: str, page: Page, side: str) -> dict[str, tuple[float, int]]:
    """Each tool's (seconds, answer characters) on one page."""
    measured: dict[str, tuple[float, int]] = {}
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("browser_navigate", "browser_navigate", {"url": url}),
        ("browser_snapshot", "browser_snapshot", {}),
        ("browser_snapshot full", "browser_snapshot", {"full": True} if side == "verity" else {}),
    ]
    snapshot = ""
    for label, tool, arguments in calls:
        started = time.perf_counter()
        answer = await client.call_tool(tool, arguments)
        measured[label] = (time.perf_counter() - started, len(_text(answer)))
        if answer.is_error:
            raise CallFailed(f"{tool} failed: {_text(answer)[:300]}")
        if label != "browser_snapshot full" and "[ref=" in _text(answer):
            # The click's ref is from the tree the client held after the plain snapshot: its own,
            # or, when it said the page was unchanged (Verity), the navigate answer's.
            snapshot = _text(answer)
    # Both take the ref as `target` (Playwright MCP 0.0.8x names it so; Verity takes `target` or `ref`).
    click = {"element": f"{page.name} {page.role}", "target": _ref(snapshot, page)}
    started = time.perf_counter()
    answer = await client.call_tool("browser_click", click)
    measured["browser_click"] = (time.perf_counter() - started, len(_text(answer)))
    if answer.is_error:
        raise CallFailed(f"browser_click failed: {_text(answer)[:300]}")
    return measured


def _servers(args: argparse.Namespace, home: Path) -> dict[str, StdioServerParameters]:
    verity = [
        "-m", "runtime.cli.main", "mcp", "--allowed-domains", "127.0.0.1", "--allow-private-network",
        "--store", str(home / "verity.db"), "--runs-dir", str(home / "runs"), "--recipes-dir", str(home / "recipes"),
        "--log-level", "WARNING",
    ]  # fmt: skip
    # Playwright MCP's Chromium gets the flags that keep Verity's own from reaching past loopback:
    # no background services, and no name looked up by the browser itself.
    config = home / "playwright-mcp.json"
    config.write_text(json.dumps({"browser": {"launchOptions": {"args": [*OFFLINE_FLAGS, DNS_FENCE_FLAG]}}}), encoding="utf-8")
    playwright = [
        str(args.playwright_mcp / "cli.js"), "--headless", "--isolated", "--browser", "chromium", "--config", str(config),
        "--executable-path", str(args.chromium), "--output-dir", str(home / "playwright"),
    ]  # fmt: skip
    return {
        "verity": StdioServerParameters(command=sys.executable, args=verity, cwd=str(REPO)),
        "playwright": StdioServerParameters(command="node", args=playwright, cwd=str(home)),
    }


async def measure(args: argparse.Namespace) -> None:
    pages = [Page("/click.html", "button", "Add a line")]
    if (DOCS / "genindex-all.html").exists() and not args.small_only:
        pages.append(Page("/docs/genindex-all.html", "link", "Z", href="#Z"))
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as scratch, BenchSite() as site:
        home = Path(scratch)
        (home / "recipes").mkdir()
        params = _servers(args, home)
        results: dict[tuple[str, str, str], list[tuple[float, int]]] = {}
        async with Client(params["verity"]) as verity, Client(params["playwright"]) as playwright:
            clients = {"verity": verity, "playwright": playwright}
            for page in pages:  # a warm-up pass each, not counted: the browsers start on first use
                for side, client in clients.items():
                    try:
                        await _one_pass(client, f"http://127.0.0.1:{site.port}{page.path}", page, side)
                    except CallFailed as failed:  # a loaded machine's timeout: the rounds still count whole pairs only
                        print(f"warm-up, {page.path}, {side}: {failed}", file=sys.stderr)
            for round_number in range(args.rounds):
                order = ["verity", "playwright"] if round_number % 2 == 0 else ["playwright", "verity"]
                for page in pages:
                    paired: dict[str, dict[str, tuple[float, int]]] = {}
                    for side in order:
                        try:
                            paired[side] = await _one_pass(clients[side], f"http://127.0.0.1:{site.port}{page.path}", page, side)
                        except CallFailed as failed:
                            # A round is kept only whole (both sides), so each ratio is of one pair.
                            print(f"round {round_number + 1}, {page.path}, {side}: {failed}; the round is left out", file=sys.stderr)
                            break
                    else:
                        for side, measured in paired.items():
                            for tool, value in measured.items():
                                results.setdefault((page.path, tool, side), []).append(value)
    _print(pages, results, args.rounds)


def _print(pages: list[Page], results: dict[tuple[str, str, str], list[tuple[float, int]]], rounds: int) -> None:
    print(f"{rounds} paired rounds (whole pairs only: see n); times are medians in ms; ratio is the median of per-round Verity/Playwright")
    print(f"{'page':<26} {'tool':<22} {'Verity ms':>10} {'PW ms':>9} {'ratio':>7} {'Verity chars':>13} {'PW chars':>10} {'size ratio':>10} {'n':>3}")
    for page in pages:
        for tool in TOOLS:
            if (page.path, tool, "verity") not in results:
                print(f"{page.path:<26} {tool:<22} (no whole round)")
                continue
            ours, theirs = results[(page.path, tool, "verity")], results[(page.path, tool, "playwright")]
            time_ratio = statistics.median(a[0] / b[0] for a, b in zip(ours, theirs, strict=True))
            our_chars, their_chars = statistics.median(a[1] for a in ours), statistics.median(b[1] for b in theirs)
            print(
                f"{page.path:<26} {tool:<22} {statistics.median(a[0] for a in ours) * 1000:>10.0f} "
                f"{statistics.median(b[0] for b in theirs) * 1000:>9.0f} {time_ratio:>6.3f}x "
                f"{our_chars:>13.0f} {their_chars:>10.0f} {our_chars / their_chars:>9.3f}x {len(ours):>3}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playwright-mcp", type=Path, required=True, help="the @playwright/mcp package directory (node_modules/@playwright/mcp)")
    parser.add_argument("--chromium", type=Path, default=Path("/usr/bin/chromium"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--small-only", action="store_true", help="only the one-screen click page (the 17k-link page takes minutes a round)")
    asyncio.run(measure(parser.parse_args()))


if __name__ == "__main__":
    main()
