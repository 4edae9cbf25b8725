"""Run start: `verity run` on a one-page recipe against a raw pyppeteer script doing launch +
goto + read + close, each a fresh process timed from start to exit, in interleaved rounds (the
order alternates each round, so load from other work falls on both sides alike).

    uv run python tools/bench_run_start.py [--rounds 9]
    uv run python tools/bench_run_start.py --also /tmp/old   # and `verity run` of another checkout's runtime/
    uv run python tools/bench_run_start.py --raw-binary /usr/bin/chromium   # and the raw script on that binary

The raw side runs the binary `verity run` picks (the headless shell where it is installed), so the
ratio is Verity's own cost. `--raw-binary` adds the raw script on another binary beside it: Debian's
desktop `chromium` is the raw script's own default, and what both sides ran when issue 33 was filed.

The recipe opens the page, validates it (status, domain, keyword; the runtime's page preparation:
screenshot and readable text) and extracts one field; the raw script reads the title and text.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tools.bench_runtime import _pages_handler, write_pages  # noqa: E402

from runtime.browser.launch.chromium_start import find_chromium  # noqa: E402
from runtime.demo.loopback import LoopbackSite  # noqa: E402

RECIPE = """name: bench-run-start
goal: read the quote page in the browser
inputs:
  site: {description: base URL}
target:
  start_url: "{site}/quote-1.html"
  allowed_domains: ["127.0.0.1"]
  validation_keywords: ["quote"]
plan:
  - id: open
    navigate: "{start_url}"
  - id: read
    extract:
      fields:
        price: {css: "[data-field=price]", type: number}
"""


@contextlib.contextmanager
def one_page_site(prefix: str) -> Iterator[tuple[Path, Path, str]]:
    """A scratch directory, the one-page recipe written in it, and the base URL of its quote page
    served on loopback: what every run-start bench runs against."""
    with tempfile.TemporaryDirectory(prefix=prefix) as name:
        tmp = Path(name)
        root = tmp / "site"
        root.mkdir()
        write_pages(root, 1)
        recipe = tmp / "one-page.yaml"
        recipe.write_text(RECIPE, encoding="utf-8")
        with LoopbackSite(handler=_pages_handler(root)) as served:
            yield tmp, recipe, f"http://127.0.0.1:{served.port}"


def verity_command(recipe: Path, site: str, out: Path) -> list[str]:
    verity = Path(sys.executable).parent / "verity"
    return [str(verity), "run", str(recipe), "--input", f"site={site}", "--out", str(out)]


def raw_command(site: str, binary: str | None = None) -> list[str]:
    # By default the binary `verity run` launches (find_chromium: the headless shell where it is
    # installed), so both sides start the same browser.
    return [sys.executable, str(REPO / "tools" / "raw_pyppeteer_read.py"), f"{site}/quote-1.html", binary or find_chromium()]


# As a user's shell runs them: Python caches the bytecode it compiles (a checkout's own modules are
# not compiled at install), so the warm-up round leaves both programs compiled.
ENVIRONMENT = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def other_checkout_command(checkout: Path, recipe: Path, site: str, out: Path) -> list[str]:
    """`verity run` of the runtime/ package under `checkout` (e.g. `git archive REF runtime`)."""
    # As its own `verity` program starts it: `entry` where the checkout has one, else `main`.
    main = (f"import sys; sys.path.insert(0, {str(checkout)!r}); import runtime.cli.main as cli; "
            "sys.exit(cli.entry() if hasattr(cli, 'entry') else cli.main())")
    return [sys.executable, "-c", main, *verity_command(recipe, site, out)[1:]]


CPU_SECONDS: dict[int, float] = {}
PR_SET_CHILD_SUBREAPER = 36


def adopt_orphans() -> None:
    """Make this process the reaper of its descendants' orphans: a Chromium helper whose browser
    was killed, or `verity run`'s readable-text worker, which exits just after it. Reaped here,
    their CPU counts in RUSAGE_CHILDREN with the command's own."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


# How long the processes a command left behind get to exit before they are left uncounted.
REAP_CEILING_S = 10.0


def reap_all() -> None:
    """Wait for every process left of the last command (each exits on its own, soon)."""
    deadline = time.monotonic() + REAP_CEILING_S
    with contextlib.suppress(ChildProcessError):
        while time.monotonic() < deadline:
            pid, _ = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                time.sleep(0.005)
        print(f"(a process the command started was still running after {REAP_CEILING_S:.0f} s; its CPU is not counted)", file=sys.stderr)


def timed(command: list[str]) -> float:
    """Wall-clock seconds of `command`, start to its exit; its CPU seconds (user + system, every
    process it started included, also those that end after it: `adopt_orphans`) go to
    CPU_SECONDS under the same key."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=ENVIRONMENT)
    elapsed = time.perf_counter() - started
    reap_all()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{command[:2]} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    CPU_SECONDS[id(command)] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed


def timed_cpu(command: list[str], cpu: list[float]) -> float:
    elapsed = timed(command)
    cpu.append(CPU_SECONDS.pop(id(command)))
    return elapsed


def main(rounds: int, also: Path | None, raw_binary: str | None) -> None:
    adopt_orphans()
    with one_page_site("verity-bench-start-") as (tmp, recipe, site):
        # Each side: its label and its command for round n. The first two are the comparison the
        # target applies to; the others are printed beside it.
        sides: dict[str, Callable[[int], list[str]]] = {
            "raw": lambda n: raw_command(site),
            "verity": lambda n: verity_command(recipe, site, tmp / f"run-{n}"),
        }
        if also is not None:
            sides[f"verity run of {also}"] = lambda n: other_checkout_command(also, recipe, site, tmp / f"other-{n}")
        if raw_binary is not None:
            sides[f"raw script on {raw_binary}"] = lambda n: raw_command(site, raw_binary)
        for command in sides.values():  # warm-up: the page cache holds every program afterwards
            timed(command(0))
        times: dict[str, list[float]] = {name: [] for name in sides}
        cpu: dict[str, list[float]] = {name: [] for name in sides}
        loads: list[float] = []
        for number in range(1, rounds + 1):
            loads.append(os.getloadavg()[0])
            order = list(sides.items())
            for name, command in order if number % 2 else reversed(order):
                times[name].append(timed_cpu(command(number), cpu[name]))
    wall = {name: statistics.median(values) for name, values in times.items()}
    used = {name: statistics.median(values) for name, values in cpu.items()}
    rounds_of = lambda name: ", ".join(f"{t:.2f}" for t in times[name])  # noqa: E731
    print(f"rounds: {rounds} (median reported), load average {min(loads):.1f}-{max(loads):.1f}")
    print(f"raw pyppeteer script (launch, goto, read, close): {wall['raw']:.2f} s   rounds: {rounds_of('raw')}")
    print(f"verity run, one-page recipe:                       {wall['verity']:.2f} s   rounds: {rounds_of('verity')}")
    for name in list(sides)[2:]:
        print(f"{name}: {wall[name]:.2f} s   rounds: {rounds_of(name)}   (verity / it: {wall['verity'] / wall[name]:.2f}x)")
    print(f"ratio verity / raw: {wall['verity'] / wall['raw']:.2f}x (target <= 1.25x, issue 33, in wall time and in CPU seconds)")
    print("CPU seconds (user + system, browser included), medians: "
          + ", ".join(f"{name} {value:.2f}" for name, value in used.items()) + f"; verity / raw {used['verity'] / used['raw']:.2f}x"
          + "".join(f"; verity / {name} {used['verity'] / used[name]:.2f}x" for name in list(sides)[2:]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--also", type=Path, metavar="CHECKOUT", help="also time `verity run` of the runtime/ package under CHECKOUT")
    parser.add_argument("--raw-binary", metavar="CHROMIUM",
                        help="also time the raw script on this binary, e.g. /usr/bin/chromium (the script's own default; "
                             "the raw side above uses the binary `verity run` picks)")
    options = parser.parse_args()
    main(options.rounds, options.also, options.raw_binary)
