"""How busy the whole machine's CPUs were while a command ran, read from /proc/stat.

    uv run python tools/machine_cpu.py [--every 30] [--by-kind] -- tools/test

`/usr/bin/time` counts only the command and the descendants it waited for. A run kills its
Chromium with the process group, so the renderers and helpers that Chromium itself would have
reaped are reaped by init instead and never reach the suite's count; a PostgreSQL server the
suite starts through pg_ctl is not its descendant at all. /proc/stat counts every process, so on
an otherwise idle machine its figure is what the suite really cost. Run it on an idle machine:
other work counts too.

Prints the busy cores on average (user, nice, system, irq and softirq time over wall time), the
CPU seconds, and with --every N a line per N seconds, so a phase that leaves cores idle shows.
With --by-kind it also sums the CPU of the command's own processes by kind (Chromium's browser
process, renderers, GPU and utility processes; pytest; `python -m` workers; other programs),
sampling /proc every 0.2 s: a process is the command's if its parent was when it was first seen,
so one that init reaped later still counts, but one that lived less than a sample does not.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.proc_table import process_table  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")  # of /proc/stat


def _busy_and_idle() -> tuple[float, float]:
    """CPU seconds busy and idle (iowait counted as idle) of every CPU since boot."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, idle, iowait, irq, softirq = fields[:7]
    return (user + nice + system + irq + softirq) / TICKS, (idle + iowait) / TICKS


_CHROMIUM_TYPE = re.compile(r"--type=([a-z-]+)")


def _kind(pid: int) -> str:
    """What a process is, from its command line (Chromium's helpers rewrite theirs but keep
    --type=)."""
    try:
        line = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "gone"
    if found := _CHROMIUM_TYPE.search(line):
        return f"chromium {found.group(1)}"
    words = line.split(" ")
    program = os.path.basename(words[0])
    if "chrom" in program or "--user-data-dir" in line:
        return "chromium browser"
    if found := re.search(r" -m (\S+)", line):
        return f"python -m {found.group(1)}"
    if "sys.stdin.readline()" in line:
        return "pytest worker"  # execnet's bootstrap, how pytest-xdist starts a worker
    if any("pytest" in os.path.basename(word) or word == "gate" for word in words[:4]):
        return "pytest (or the gate)"
    return program or "kernel"


class KindSampler:
    """The CPU seconds of `root` and its descendants, by kind, sampled from /proc."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.totals: collections.Counter[str] = collections.Counter()
        self._ours: dict[tuple[int, int], bool] = {}  # (pid, start time) -> descends from root
        self._last: dict[tuple[int, int], float] = {}

    def sample(self) -> None:
        table = process_table()
        for pid, process in table.items():
            key = (pid, process.started)
            if key not in self._ours:
                parent = table.get(process.parent)
                self._ours[key] = pid == self.root or (parent is not None and self._ours.get((parent.pid, parent.started), False))
            if self._ours[key]:
                # The kind is read at every sample: a process that exec()s (a shell script's
                # interpreter, uv's python) becomes another kind.
                self.totals[_kind(pid)] += process.cpu - self._last.get(key, 0.0)
                self._last[key] = process.cpu

    def run(self, stop: threading.Event) -> None:
        while not stop.wait(0.2):
            self.sample()


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
    parser.add_argument("--by-kind", action="store_true", help="also sum the command's processes' CPU by kind")
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
    process = subprocess.Popen(command)
    sampler = KindSampler(process.pid) if args.by_kind else None
    if sampler is not None:
        sampler.sample()
        threading.Thread(target=sampler.run, args=(stop,), daemon=True).start()
    status = process.wait()
    stop.set()
    wall = time.monotonic() - started
    busy = _busy_and_idle()[0] - busy_before
    if sampler is not None:
        sampler.sample()
        for kind, seconds in sampler.totals.most_common():
            print(f"[machine_cpu] {seconds:8.1f} CPU s  {kind}", file=sys.stderr)
    print(f"[machine_cpu] {wall:.1f} s wall, {busy:.1f} CPU s machine-wide, {busy / wall:.2f} of {os.cpu_count()} cores busy on average; exit {status}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
