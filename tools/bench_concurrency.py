"""Concurrency: N demo runs at once in one Chromium (one incognito session each) vs N in sequence.

    uv run python tools/bench_concurrency.py [--runs 8]

Reports runs per minute for both, and peak memory: the RSS of this process plus every Chromium
process (the browser and its renderers/helpers), sampled every 50 ms while the runs go.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from runtime.browser import Browser, launch_browser  # noqa: E402
from runtime.demo import DEMO_RECIPE, DemoSite  # noqa: E402
from runtime.events import EventLog  # noqa: E402
from runtime.execute import BrowserProvider, start_run  # noqa: E402
from runtime.plan import prepare_run  # noqa: E402
from runtime.recipe import load_recipe_file  # noqa: E402


def _memory_kb(pid: int, field: str) -> int:
    source = "smaps_rollup" if field == "Pss:" else "status"
    try:
        for line in Path(f"/proc/{pid}/{source}").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        for child in children.get(pid, []):
            found.append(child)
            stack.append(child)
    return found


class PeakMemory:
    """Samples memory of our process + Chromium's process tree in a thread.

    `peak_rss_mb` sums each process's RSS, counting pages Chromium processes share once per
    process (an upper bound); `peak_pss_mb` sums PSS, which splits shared pages fairly.
    """

    def __init__(self, chromium_pid: int | None) -> None:
        self.chromium_pid = chromium_pid
        self.peak_kb = 0
        self.peak_pss_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            pids = [os.getpid()]
            if self.chromium_pid:
                pids += [self.chromium_pid, *_descendants(self.chromium_pid)]
            self.peak_kb = max(self.peak_kb, sum(_memory_kb(p, "VmRSS:") for p in pids))
            self.peak_pss_kb = max(self.peak_pss_kb, sum(_memory_kb(p, "Pss:") for p in pids))
            self._stop.wait(0.05)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def peak_rss_mb(self) -> float:
        return self.peak_kb / 1024

    @property
    def peak_pss_mb(self) -> float:
        return self.peak_pss_kb / 1024


async def one_run(browser: Browser, site: DemoSite, out: Path, run_id: str) -> str:
    recipe = load_recipe_file(DEMO_RECIPE)
    order = prepare_run(recipe, {"site": site.quote_base, "search_site": site.search_base}, run_id=run_id, run_dir=out / run_id)
    handle = start_run(order, events=EventLog(run_id), browser=BrowserProvider(browser=browser))
    verdict = await handle.task
    return verdict.stop_reason.value


async def main(runs: int) -> None:
    with DemoSite() as site, tempfile.TemporaryDirectory(prefix="verity-bench-") as tmp:
        out = Path(tmp)
        browser = await launch_browser()
        try:
            await one_run(browser, site, out, "warm-up")
            with PeakMemory(browser.pid) as sequential_memory:
                started = time.perf_counter()
                sequential = [await one_run(browser, site, out, f"seq-{i}") for i in range(runs)]
                sequential_s = time.perf_counter() - started
            with PeakMemory(browser.pid) as parallel_memory:
                started = time.perf_counter()
                parallel = await asyncio.gather(*(one_run(browser, site, out, f"par-{i}") for i in range(runs)))
                parallel_s = time.perf_counter() - started
        finally:
            await browser.close()
    for label, results in (("sequential", sequential), ("concurrent", parallel)):
        if set(results) != {"completed"}:
            raise SystemExit(f"{label} runs did not all complete: {results}")
    print(f"workload: the demo recipe (404 -> search -> validate -> extract -> verify), {runs} runs, one Chromium, {os.cpu_count()} CPU(s)")
    for label, seconds, memory in (("sequential", sequential_s, sequential_memory), ("concurrent", parallel_s, parallel_memory)):
        print(
            f"{label}: {seconds:6.2f} s  {runs / seconds * 60:6.1f} runs/min  "
            f"peak memory PSS {memory.peak_pss_mb:7.1f} MB (RSS sum {memory.peak_rss_mb:7.1f} MB)"
        )
    print(f"speed-up: {sequential_s / parallel_s:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8)
    asyncio.run(main(parser.parse_args().runs))
