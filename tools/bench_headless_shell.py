"""Chromium's headless shell against the desktop Chromium in headless mode: the CPU of one run's
browser session, paired round by round.

    uv run python tools/bench_headless_shell.py [--rounds 7] [--cycles 20]

A cycle is what most browser tests and every run do with the browser: open a session (a context
of its own and its tab), open a loopback page, take a snapshot, stop the session. Each round
launches each binary in turn (the order alternates), runs the cycles, and closes it; Chromium's
CPU is read from `getrusage(RUSAGE_CHILDREN)` once the browser is reaped, so every process it
started counts, renderers and GPU included. A launch with no cycle, measured the same way in the
same round, is subtracted. Our own process's CPU is reported beside it. Verity kills the
browser's process group at close, so the renderers and helpers would be reaped by init and never
counted: this process makes itself their reaper (`adopt_orphans`) and reaps them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from runtime.artifacts import ArtifactStore  # noqa: E402
from runtime.browser import LaunchOptions, find_chromium, launch_browser, open_session  # noqa: E402
from tools.bench_run_start import adopt_orphans  # noqa: E402
from tools.bench_tab_cost import serve_page  # noqa: E402

# A killed process group's members exit at once; this long without one to reap means all were.
SETTLE_S = 0.5

PAGE = (b"<!doctype html><title>Quote</title><main><h1>Quote</h1><p id=quote>Q-1234</p>"
        b"<form><label>Name <input name=n></label><button>Send</button></form><a href=/>Home</a></main>")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _reap_orphans() -> None:
    """Reap what the closed browser left (the readable-text worker stays: it is waited for never)."""
    quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < SETTLE_S:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid:
            quiet_since = time.monotonic()
        else:
            time.sleep(0.01)


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _life(executable: str, url: str, cycles: int, scratch: Path) -> tuple[float, float]:
    """Chromium's CPU and ours over one launch, `cycles` sessions and the close."""
    chromium, own = _children_cpu(), _own_cpu()
    browser = await launch_browser(LaunchOptions(executable_path=executable))
    try:
        for n in range(cycles):
            session = await open_session(browser, artifacts=ArtifactStore(scratch / f"{executable.rsplit('/', 1)[-1]}-{n}"))
            try:
                opened = await session.open_url(url)
                assert opened.ok, opened.error
                shot = await session.snapshot()
                assert shot.ok, shot.error
            finally:
                await session.stop()
    finally:
        await browser.close()
    _reap_orphans()
    return _children_cpu() - chromium, _own_cpu() - own


async def main(rounds: int, cycles: int, url: str) -> None:
    binaries = {"headless shell": find_chromium(headless=True), "chromium --headless": find_chromium(headless=False)}
    if len(set(binaries.values())) < 2:
        raise SystemExit(f"need both binaries; found {binaries}")
    per_cycle: dict[str, list[float]] = {name: [] for name in binaries}
    ours: dict[str, list[float]] = {name: [] for name in binaries}
    with tempfile.TemporaryDirectory(prefix="bench-shell-") as scratch:
        for round_ in range(rounds):
            order = list(binaries.items()) if round_ % 2 == 0 else list(reversed(binaries.items()))
            for name, executable in order:
                launch_only, _ = await _life(executable, url, 0, Path(scratch))
                started = time.monotonic()
                chromium, own = await _life(executable, url, cycles, Path(scratch))
                per_cycle[name].append((chromium - launch_only) / cycles)
                ours[name].append(own / cycles)
                print(f"round {round_ + 1} {name:20s} Chromium {1000 * per_cycle[name][-1]:6.1f} ms a cycle, "
                      f"ours {1000 * ours[name][-1]:5.1f} ms, {time.monotonic() - started:5.1f} s wall", flush=True)
    shell, desktop = (statistics.median(per_cycle[name]) for name in binaries)
    ratios = [a / b for a, b in zip(per_cycle["headless shell"], per_cycle["chromium --headless"], strict=True)]
    print(f"median Chromium CPU a cycle: headless shell {1000 * shell:.1f} ms, chromium --headless {1000 * desktop:.1f} ms; "
          f"shell/desktop per round: median {statistics.median(ratios):.2f}x (range {min(ratios):.2f}-{max(ratios):.2f})")
    print(f"median CPU of this process a cycle: headless shell {1000 * statistics.median(ours['headless shell']):.1f} ms, "
          f"chromium --headless {1000 * statistics.median(ours['chromium --headless']):.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cycles", type=int, default=20)
    arguments = parser.parse_args()
    adopt_orphans()
    asyncio.run(main(arguments.rounds, arguments.cycles, serve_page(PAGE)))
