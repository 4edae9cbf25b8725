"""What a Chromium launch and a run's session cost in CPU, Chromium's processes included, with
Verity's launch flags (`--extra` adds flags; it cannot undo one of Verity's `--disable-features`:
Chromium keeps a feature disabled that both lists name).

CPU is read from a cgroup v1 `cpuacct` group this process runs in (every Chromium process,
reparented or not, stays in it), so run it inside one:

    mkdir -p /sys/fs/cgroup/cpuacct/verity-bench
    bash -c 'echo $$ > /sys/fs/cgroup/cpuacct/verity-bench/cgroup.procs;
      uv run python tools/bench_session_cpu.py --cgroup verity-bench --rounds 3'

A launch: start Chromium, leave it idle 1.5 s, close it. A session cycle: open a session, open one
loopback page, stop the session (10 per round, on one browser).
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
sys.path.insert(0, str(REPO))

from runtime.artifacts import ArtifactStore  # noqa: E402
from runtime.browser import LaunchOptions, launch_browser, open_session  # noqa: E402
from runtime.demo.loopback import LoopbackSite  # noqa: E402
from tools.bench_runtime import _pages_handler, write_pages  # noqa: E402

CYCLES = 10


def _cpu_seconds(cgroup: str) -> float:
    return int((Path("/sys/fs/cgroup/cpuacct") / cgroup / "cpuacct.usage").read_text()) / 1e9


async def _launch(cgroup: str, extra: tuple[str, ...]) -> float:
    before = _cpu_seconds(cgroup)
    browser = await launch_browser(LaunchOptions(extra_args=extra))
    await asyncio.sleep(1.5)
    await browser.close()
    return _cpu_seconds(cgroup) - before


async def _cycles(cgroup: str, extra: tuple[str, ...], url: str) -> tuple[float, float]:
    """(CPU seconds, wall seconds) per session cycle."""
    browser = await launch_browser(LaunchOptions(extra_args=extra))
    try:
        with tempfile.TemporaryDirectory(prefix="verity-bench-session-") as runs:
            before, started = _cpu_seconds(cgroup), time.perf_counter()
            for number in range(CYCLES):
                session = await open_session(browser, artifacts=ArtifactStore(Path(runs) / str(number)))
                await session.open_url(url)
                await session.stop()
            return (_cpu_seconds(cgroup) - before) / CYCLES, (time.perf_counter() - started) / CYCLES
    finally:
        await browser.close()


async def main(cgroup: str, rounds: int, extra: tuple[str, ...]) -> None:
    sides = {"Verity's flags" + (f" plus {' '.join(extra)}" if extra else ""): extra}
    launches: dict[str, list[float]] = {name: [] for name in sides}
    cycles: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    with tempfile.TemporaryDirectory(prefix="verity-bench-site-") as root:
        write_pages(Path(root), 1)
        with LoopbackSite(handler=_pages_handler(Path(root))) as served:
            url = f"http://127.0.0.1:{served.port}/quote-1.html"
            for _ in range(rounds):
                for name, flags in sides.items():
                    launches[name].append(await _launch(cgroup, flags))
                    cycles[name].append(await _cycles(cgroup, flags, url))
    for name in sides:
        cpu = statistics.median(c for c, _ in cycles[name])
        wall = statistics.median(w for _, w in cycles[name])
        print(f"{name}: launch + 1.5 s idle + close {statistics.median(launches[name]):.2f} s CPU; "
              f"session cycle {cpu * 1000:.0f} ms CPU, {wall * 1000:.0f} ms wall (medians of {rounds} rounds)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cgroup", required=True, help="the cpuacct cgroup this process runs in")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--extra", action="append", default=[], metavar="FLAG", help="an extra Chromium flag (repeatable)")
    options = parser.parse_args()
    asyncio.run(main(options.cgroup, options.rounds, tuple(options.extra)))
