"""Benchmark: `observe` on the fixture site's 10,000-element page.

    uv run python tools/bench_observe.py [--runs 20] [--elements 10000]

Prints the median and p90 of the snapshot capture time and of the whole observe action (ms), and
of resolving a role + name locator for the page's last link (every link's accessible name is
computed to find it, so this is the cost of names over the whole page).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from runtime.artifacts import ArtifactStore  # noqa: E402
from runtime.browser import BrowserLaunchError, Target, launch_browser, open_session  # noqa: E402
from tests.fixtures.site_server import FixtureSite  # noqa: E402


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


async def bench(runs: int, elements: int) -> int:
    with FixtureSite() as site, tempfile.TemporaryDirectory() as run_dir:
        browser = await launch_browser()
        try:
            session = await open_session(browser, artifacts=ArtifactStore(run_dir))
            opened = await session.open_url(site.url(f"/big?n={elements}"), timeout_ms=30_000)
            if not opened.ok:
                print(f"bench_observe: could not open the big page: {opened.error}", file=sys.stderr)
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
            last_link = Target(role="link", name=f"Link {max(i for i in range(elements) if i % 4 == 1)}", exact=True)
            locate_ms: list[float] = []
            for _ in range(runs):
                started = time.perf_counter()
                await tab.resolve(last_link)
                locate_ms.append((time.perf_counter() - started) * 1000)
        finally:
            await browser.close()
    print(f"page: {elements} generated elements; {snapshot.total_candidates} candidates; "
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
    args = parser.parse_args()
    try:
        return asyncio.run(bench(args.runs, args.elements))
    except BrowserLaunchError as error:
        print(f"bench_observe: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
