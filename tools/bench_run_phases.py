"""Where the time of `verity run` on the one-page recipe of tools/bench_run_start.py goes, phase by
phase, from the run's own events (events.jsonl timestamps) and the process's start and exit, with
another checkout's `verity run` interleaved round by round (the machine is shared: both sides get
the same load).

    uv run python tools/bench_run_phases.py --rounds 9 --also /tmp/before   # git archive REF runtime | tar -x -C /tmp/before
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tools.bench_run_start import ENVIRONMENT, adopt_orphans, one_page_site, other_checkout_command, reap_all, verity_command  # noqa: E402

from runtime.run_layout import EVENTS_FILE  # noqa: E402

PHASES = (
    "process start -> first event",
    "first event -> first navigation",
    "prepare_page",
    "last step -> final verdict",
    "final verdict -> exit",
    "total",
    "CPU s (browser included)",
)


def phases_of(command: list[str], run_dir: Path) -> dict[str, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.time_ns()
    done = subprocess.run(command, capture_output=True, text=True, env=ENVIRONMENT)
    ended = time.time_ns()
    reap_all()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{command[:2]} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    events = [json.loads(line) for line in (run_dir / EVENTS_FILE).read_text(encoding="utf-8").splitlines()]

    def at(kind: str, tool: str | None = None) -> list[int]:
        return [e["timestamp_ns"] for e in events if e["kind"] == kind and (tool is None or e["payload"].get("tool") == tool)]

    preparing = at("tool_used", "prepare_page")
    seconds = lambda a, b: (b - a) / 1e9  # noqa: E731
    return dict(zip(PHASES, (
        seconds(started, events[0]["timestamp_ns"]),
        seconds(events[0]["timestamp_ns"], at("tool_used", "open_url")[0]),
        seconds(preparing[0], preparing[-1]),
        seconds(at("step_finished")[-1], at("final_verdict")[-1]),
        seconds(at("final_verdict")[-1], ended),
        seconds(started, ended),
        (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
    ), strict=True))


def main(rounds: int, also: Path) -> None:
    adopt_orphans()
    with one_page_site("verity-bench-phases-") as (tmp, recipe, site):
        sides = {
            "this checkout": lambda out: verity_command(recipe, site, out),
            str(also): lambda out: other_checkout_command(also, recipe, site, out),
        }
        for name, command in sides.items():  # warm-up: bytecode cached, files in the page cache
            phases_of(command(tmp / f"warm-{len(name)}"), tmp / f"warm-{len(name)}")
        results: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
        loads = []
        for number in range(rounds):
            loads.append(os.getloadavg()[0])
            order = list(sides) if number % 2 else list(reversed(sides))
            for name in order:
                out = tmp / f"run-{number}-{order.index(name)}"
                results[name].append(phases_of(sides[name](out), out))
    print(f"rounds: {rounds}, load average {min(loads):.1f}-{max(loads):.1f}; medians in seconds")
    names = list(sides)
    print(f"{'phase':34}" + "".join(f"{name[-24:]:>26}" for name in names))
    for phase in PHASES:
        print(f"{phase:34}" + "".join(f"{statistics.median(r[phase] for r in results[name]):26.3f}" for name in names))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--also", type=Path, required=True, metavar="CHECKOUT", help="the other checkout whose runtime/ runs interleaved")
    options = parser.parse_args()
    main(options.rounds, options.also)
