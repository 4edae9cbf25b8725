"""How busy the whole machine's CPUs were while a command ran, read from /proc/stat.

    uv run python tools/machine_cpu.py [--every 30] -- tools/test

`/usr/bin/time` counts only the command and the descendants it waited for. A run kills its
Chromium with the process group, so the renderers and helpers that Chromium itself would have
reaped are reaped by init instead and never reach the suite's count; a PostgreSQL server the
suite starts through pg_ctl is not its descendant at all. /proc/stat counts every process, so on
an otherwise idle machine its figure is what the suite really cost. Run it on an idle machine:
other work counts too.

Prints the busy cores on average (user, nice, system, irq and softirq time over wall time), the
CPU seconds, and with --every N a line per N seconds, so a phase that leaves cores idle shows.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def _busy_and_idle() -> tuple[float, float]:
    """CPU seconds busy and idle (iowait counted as idle) of every CPU since boot."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, idle, iowait, irq, softirq = fields[:7]
    return (user + nice + system + irq + softirq) / TICKS, (idle + iowait) / TICKS


def _report_every(seconds: float, started: float, stop: threading.Event) -> None:
    last_busy, last_idle = _busy_and_idle()
    while not stop.wait(seconds):
        busy, idle = _busy_and_idle()
        total = (busy - last_busy) + (idle - last_idle)
        cores = (os.cpu_count() or 1) * (busy - last_busy) / total if total else 0.0
        print(f"[machine_cpu] {time.monotonic() - started:6.0f} s: {cores:.2f} cores busy", file=sys.stderr, flush=True)
        last_busy, last_idle = busy, idle


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--every", type=float, default=0.0, help="also print the busy cores every N seconds")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("name a command after --")
    stop = threading.Event()
    started = time.monotonic()
    busy_before, _ = _busy_and_idle()
    if args.every > 0:
        threading.Thread(target=_report_every, args=(args.every, started, stop), daemon=True).start()
    status = subprocess.call(command)
    stop.set()
    wall = time.monotonic() - started
    busy = _busy_and_idle()[0] - busy_before
    print(f"[machine_cpu] {wall:.1f} s wall, {busy:.1f} CPU s machine-wide, {busy / wall:.2f} of {os.cpu_count()} cores busy on average; exit {status}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
