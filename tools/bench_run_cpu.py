"""Where the CPU of a run start goes: `verity run` on the one-page recipe of bench_run_start.py, and
the raw pyppeteer script beside it, each once per round, with the CPU seconds of every process
they start summed by kind (Verity's own process, its worker processes, Chromium's browser,
renderer and helper processes).

    uv run python tools/bench_run_cpu.py [--rounds 3] [--also CHECKOUT]

The processes are read from /proc every 10 ms while the command runs; a process's figure is the
last one seen, so a process that lives less than that, or the last 10 ms of one, is not counted
(bench_run_start.py counts every CPU second, but not by kind).
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tools.proc_table import Process, descendants, process_table  # noqa: E402
from tools.bench_run_start import ENVIRONMENT, one_page_site, other_checkout_command, raw_command, verity_command  # noqa: E402

POLL_S = 0.01


def _kind(process: Process) -> str | None:
    try:
        argv = Path(f"/proc/{process.pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return None
    if "chrom" in process.name:
        # Chromium's helpers rewrite their argv; every Chromium process counts as one kind.
        return "chromium (every process)"
    if "-m" in argv:
        return f"python -m {argv[argv.index('-m') + 1].rsplit('.', 1)[-1]}"
    return f"{process.name} (the command)"


def cpu_by_kind(command: list[str]) -> collections.Counter[str]:
    seen: dict[int, tuple[str, float]] = {}
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENVIRONMENT)
    while process.poll() is None:
        for found in descendants(process_table(), process.pid):
            if (kind := _kind(found)) is not None:
                seen[found.pid] = (kind, found.cpu)
        time.sleep(POLL_S)  # sampling /proc: there is no event for "a process used CPU"
    totals: collections.Counter[str] = collections.Counter()
    for kind, cpu in seen.values():
        totals[kind] += cpu
    return totals


def main(rounds: int, also: Path | None) -> None:
    with one_page_site("verity-bench-cpu-") as (tmp, recipe, site):
        commands: dict[str, Callable[[str], list[str]]] = {
            "verity run": lambda name: verity_command(recipe, site, tmp / name),
            "raw script": lambda _name: raw_command(site),
        }
        if also is not None:
            commands[f"verity run of {also}"] = lambda name: other_checkout_command(also, recipe, site, tmp / f"other-{name}")
        for command in commands.values():
            cpu_by_kind(command("warm-up"))  # compiles and caches
        sums: dict[str, collections.Counter[str]] = {label: collections.Counter() for label in commands}
        for round_number in range(rounds):
            # The order alternates each round, so load from other work falls on every side alike.
            for label, command in list(commands.items())[:: 1 if round_number % 2 else -1]:
                sums[label] += cpu_by_kind(command(f"run-{round_number}"))
    for label, totals in sums.items():
        print(f"{label}: {sum(totals.values()) / rounds:.2f} CPU s per run (mean of {rounds})")
        for kind, cpu in totals.most_common():
            print(f"  {cpu / rounds:5.2f}  {kind}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--also", type=Path, metavar="CHECKOUT", help="also `verity run` of the runtime/ package under CHECKOUT")
    options = parser.parse_args()
    main(options.rounds, options.also)
