"""Benchmark: `observe` on the fixture site's 10,000-element page.

    uv run python tools/bench_observe.py [--runs 20] [--elements 10000]
    uv run python tools/bench_observe.py --page /usr/share/doc/python3.11/html/genindex-all.html \
        --locate '{"role": "link", "name": "Sphinx", "exact": true}'
    npm install --prefix /tmp/pw playwright-core      # once; never commit node_modules
    uv run python tools/bench_observe.py --page /usr/share/doc/python3.11/html/genindex-all.html \
        --playwright /tmp/pw/node_modules [--rounds 3] [--runs 3]

With `--playwright`, rounds alternate between Verity and Playwright on the same Chromium
(/usr/bin/chromium): Verity's `observe` (every element gets a ref; one page is shown), the whole
observe step (`prepare_page` then `observe`, as a recipe's observe step runs them), and
Playwright's `page.ariaSnapshot()` and `page.ariaSnapshot({mode: "ai"})` (the one with refs,
tools/bench_observe_playwright.cjs). It prints each round's medians and their ratios.

Prints the median and p90 of the snapshot capture time and of the whole observe action (ms), and
of resolving a role + name locator for the page's last link (every link's accessible name is
computed to find it, so this is the cost of names over the whole page). `--page` measures a file of
your own instead (its folder is served on loopback), `--locate` names the locator to time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from runtime.artifacts import ArtifactStore  # noqa: E402
from runtime.browser import BrowserActionError, BrowserLaunchError, Target, launch_browser, open_session  # noqa: E402
from tests.fixtures.site_server import FixtureSite  # noqa: E402


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


@contextlib.contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """The folder served on a free loopback port; yields its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="bench-page", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


async def bench(runs: int, elements: int, page: Path | None, locator: Target | None,
                playwright: Path | None = None, rounds: int = 3) -> int:
    with contextlib.ExitStack() as stack:
        run_dir = stack.enter_context(tempfile.TemporaryDirectory())
        if page is None:
            url = stack.enter_context(FixtureSite()).url(f"/big?n={elements}")
        else:
            url = f"{stack.enter_context(serve_folder(page.parent))}/{page.name}"
        if playwright is not None:
            return await _against_playwright(runs, rounds, url, playwright, run_dir)
        return await _bench(runs, elements, url, locator, run_dir)


PLAYWRIGHT_SCRIPT = Path(__file__).with_name("bench_observe_playwright.cjs")


async def _against_playwright(runs: int, rounds: int, url: str, node_modules: Path, run_dir: str) -> int:
    """Alternate rounds: Verity's observe and observe step, then Playwright's aria snapshots."""
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    browser = await launch_browser()
    table: list[dict[str, float]] = []
    try:
        session = await open_session(browser, artifacts=ArtifactStore(run_dir))
        opened = await session.open_url(url, timeout_ms=60_000)
        if not opened.ok:
            print(f"bench_observe: could not open {url}: {opened.error}", file=sys.stderr)
            return 1
        await session.prepare_page(timeout_ms=60_000)
        await session.observe(timeout_ms=60_000)  # warm-up: the isolated world, the page's layout
        for number in range(1, rounds + 1):
            observe_ms: list[float] = []
            step_ms: list[float] = []
            for _ in range(runs):
                started = time.perf_counter()
                observed = await session.observe(timeout_ms=60_000)
                observe_ms.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                prepared = await session.prepare_page(timeout_ms=60_000)
                stepped = await session.observe(timeout_ms=60_000)
                step_ms.append((time.perf_counter() - started) * 1000)
                if not (observed.ok and prepared.ok and stepped.ok):
                    failed = next(r for r in (observed, prepared, stepped) if not r.ok)
                    print(f"bench_observe: {failed.name} failed: {failed.error}", file=sys.stderr)
                    return 1
            theirs = await asyncio.to_thread(_playwright_round, node_modules, chromium, url, runs)
            row = {
                "observe": statistics.median(observe_ms), "step": statistics.median(step_ms),
                "aria": statistics.median(theirs["default_ms"]), "aria_ai": statistics.median(theirs["ai_ms"]),
            }
            table.append(row)
            snapshot = observed.value.snapshot
            print(f"round {number}: observe {row['observe']:.0f} ms (refs {snapshot.total_candidates}, "
                  f"{snapshot.interactive_total} interactive; shown {len(snapshot.elements)}, "
                  f"{len(observed.data['rendered'])} chars); step {row['step']:.0f} ms "
                  f"(readable text: {prepared.data['text_source']}; {prepared.data['text_note'] or 'trafilatura'}); "
                  f"playwright aria {row['aria']:.0f} ms ({theirs['default_chars']} chars), "
                  f"ai {row['aria_ai']:.0f} ms ({theirs['ai_refs']} refs, {theirs['ai_chars']} chars)", flush=True)
    finally:
        await browser.close()
    for key, label in (("observe", "observe (all refs)"), ("step", "observe step (prepare_page + observe)")):
        ratios = [row[key] / row["aria"] for row in table]
        ratios_ai = [row[key] / row["aria_ai"] for row in table]
        print(f"{label}: median {statistics.median(row[key] for row in table):.0f} ms; "
              f"vs ariaSnapshot() {min(ratios):.3f}-{max(ratios):.3f}x (median {statistics.median(ratios):.3f}x); "
              f"vs ariaSnapshot(mode=ai) {min(ratios_ai):.3f}-{max(ratios_ai):.3f}x (median {statistics.median(ratios_ai):.3f}x)")
    print(f"playwright: ariaSnapshot() median {statistics.median(row['aria'] for row in table):.0f} ms; "
          f"mode=ai median {statistics.median(row['aria_ai'] for row in table):.0f} ms; rounds {rounds}, runs {runs} each")
    return 0


def _playwright_round(node_modules: Path, chromium: str, url: str, runs: int) -> dict[str, object]:
    env = {**os.environ, "NODE_PATH": str(node_modules)}
    request = json.dumps({"executable": chromium, "url": url, "runs": runs})
    done = subprocess.run(["node", str(PLAYWRIGHT_SCRIPT)], input=request, capture_output=True, text=True, env=env, check=False, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"playwright round failed: {done.stderr.strip()[-2000:]}")
    return dict(json.loads(done.stdout))


async def _bench(runs: int, elements: int, url: str, locator: Target | None, run_dir: str) -> int:
    """Observe `runs` times, then resolve the locator `runs` times; prints the timings."""
    browser = await launch_browser()
    try:
        session = await open_session(browser, artifacts=ArtifactStore(run_dir))
        opened = await session.open_url(url, timeout_ms=30_000)
        if not opened.ok:
            print(f"bench_observe: could not open {url}: {opened.error}", file=sys.stderr)
            return 1
        await session.observe()  # warm-up: creates the isolated world, lays out the page
        capture_ms: list[float] = []
        observe_ms: list[float] = []
        for _ in range(runs):
            result = await session.observe()
            if not result.ok:
                print(f"bench_observe: observe failed: {result.error}", file=sys.stderr)
                return 1
            capture_ms.append(result.value.snapshot.capture_ms)
            observe_ms.append(result.duration_ms)
        snapshot = result.value.snapshot
        tab = session.tab()
        last_link = locator or Target(role="link", name=f"Link {max(i for i in range(elements) if i % 4 == 1)}", exact=True)
        locate_ms: list[float] = []
        for _ in range(runs):
            started = time.perf_counter()
            await tab.resolve(last_link)
            locate_ms.append((time.perf_counter() - started) * 1000)
    finally:
        await browser.close()
    print(f"page: {url}; {snapshot.total_candidates} candidates; "
          f"{len(snapshot.elements)} in the snapshot (budget); runs: {runs}")
    print(f"snapshot ms: median {statistics.median(capture_ms):.1f}  p90 {percentile(capture_ms, 0.9):.1f}")
    print(f"observe  ms: median {statistics.median(observe_ms):.1f}  p90 {percentile(observe_ms, 0.9):.1f}")
    print(f"locate   ms: median {statistics.median(locate_ms):.1f}  p90 {percentile(locate_ms, 0.9):.1f}"
          f"  ({last_link.to_dict()})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--elements", type=int, default=10_000)
    parser.add_argument("--page", type=Path, help="an HTML file to measure instead of the generated page")
    parser.add_argument("--locate", help="the locator to time, as JSON (default: the generated page's last link)")
    parser.add_argument("--playwright", type=Path, help="node_modules holding playwright-core: compare with its aria snapshots")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds with --playwright")
    args = parser.parse_args()
    if args.playwright is not None and not (args.playwright / "playwright-core").is_dir():
        parser.error(f"--playwright {args.playwright}: no playwright-core in it (npm install --prefix /tmp/pw playwright-core)")
    if args.page is not None and not args.page.is_file():
        parser.error(f"--page {args.page}: no such file")
    if args.page is not None and args.locate is None and args.playwright is None:
        parser.error("--page needs --locate (a locator that finds one element of that page)")
    try:
        locator = Target.from_params(json.loads(args.locate), field_path="--locate") if args.locate else None
    except (ValueError, BrowserActionError) as error:
        parser.error(f"--locate: {error}")
    try:
        return asyncio.run(bench(args.runs, args.elements, args.page, locator, args.playwright, args.rounds))
    except BrowserLaunchError as error:
        print(f"bench_observe: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
