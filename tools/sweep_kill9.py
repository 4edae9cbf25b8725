"""Kill -9 sweep: many cycles of flood, watch, SIGKILL on one store, then the durability checks.

    uv run python tools/sweep_kill9.py [--cycles 20] [--seed 10] [--write]

The suite's durability scenario (features/service_durability.feature) runs six cycles; this runs
the same cycles and the same checks (tests/service/kill_cycles.py) as many times as asked, each
cycle a real `verity serve` process (tests/service/flood_serve.py) killed with SIGKILL after its
client saw a random number of events, on the store its predecessor left. It prints each cycle's
kill point, what the client saw and what the store then holds of that run, and every broken
promise; it exits 1 if any. `--write` puts the result into BENCHMARKS.md (between its kill -9
markers).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.service.kill_cycles import (  # noqa: E402
    KillStore,
    StoredRuns,
    directories_not_closed,
    kill_repeatedly,
    not_resumable,
    renumbered,
    seen_but_not_stored,
)
from tests.service.service_harness import ServeProcess  # noqa: E402

from runtime.client import VerityClient  # noqa: E402

BEGIN = "<!-- kill9 sweep begin -->"
END = "<!-- kill9 sweep end -->"


def sweep(cycles: int, seed: int) -> tuple[list[str], list[str]]:
    """The report's lines and the broken promises."""
    started: list[ServeProcess] = []

    def start(*args: str, command: tuple[str, ...] = ("runtime.cli.main", "serve")) -> ServeProcess:
        process = ServeProcess(args, command=command)
        started.append(process)
        return process

    with tempfile.TemporaryDirectory(prefix="verity-kill9-") as scratch:
        store = KillStore(Path(scratch))
        began = time.monotonic()
        try:
            watched = kill_repeatedly(start, store, cycles, seed)
            killed_in = time.monotonic() - began
            with VerityClient(start(*store.serve_args()).target) as client:
                stored = StoredRuns(client)
                problems = [
                    *seen_but_not_stored(stored, watched),
                    *renumbered(stored, watched),
                    *not_resumable(stored, watched),
                    *directories_not_closed(stored, watched, store),
                ]
                lines = [
                    "| cycle | run directory | kill after | seen | stored (then interrupted) |",
                    "| ---: | --- | ---: | ---: | ---: |",
                ]
                for number, run in enumerate(watched, 1):
                    kept = len(stored.events(run.run_id)) - 2
                    lines.append(f"| {number} | {'yes' if run.run_files else 'no'} | {run.kill_after} | {len(run.seen)} | {kept} |")
        finally:
            for process in reversed(started):
                process.close()
        total = time.monotonic() - began
    lines += [
        "",
        f"{cycles} cycles (seed {seed}): {len(problems)} broken promises; {killed_in:.1f} s for the cycles, {total:.1f} s in all.",
    ]
    return lines, problems


def write(lines: list[str], cycles: int, seed: int) -> None:
    path = REPO / "BENCHMARKS.md"
    text = path.read_text(encoding="utf-8")
    command = f"uv run python tools/sweep_kill9.py --cycles {cycles} --seed {seed} --write"
    block = "\n".join([BEGIN, f"`{command}`, {date.today().isoformat()}:", "", *lines, END])
    if BEGIN in text and END in text:
        text = text[: text.index(BEGIN)] + block + text[text.index(END) + len(END) :]
    else:
        text = text.rstrip("\n") + "\n\n## Kill -9 sweep (`tools/sweep_kill9.py`)\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=20)
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--write", action="store_true", help="put the result into BENCHMARKS.md")
    args = parser.parse_args()
    lines, problems = sweep(args.cycles, args.seed)
    print("\n".join(lines))
    for problem in problems:
        print("BROKEN:", problem)
    if args.write:
        write(lines, args.cycles, args.seed)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
