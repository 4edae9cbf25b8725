"""`verity run` and `verity demo`: their arguments, and the run's Chromium started first.

What a run's Chromium is started with does not depend on its recipe, so `verity run` starts it
before it imports the executor and loads the recipe: the browser comes up on one core while
Python imports and compiles on the other (BENCHMARKS.md, "Run start"). A browser that no run
takes (a bad recipe, a bad input, Ctrl-C) is killed and its profile removed before the command
returns. The run itself is `runtime.execute.cli`.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import logging
import sys
from collections.abc import Iterator
from pathlib import Path


def register(commands: argparse._SubParsersAction) -> None:
    run = commands.add_parser("run", help="run a recipe in headless Chromium and report a verified verdict")
    run.add_argument("recipe", type=Path, metavar="RECIPE", help="the recipe YAML file")
    run.add_argument("--input", "-i", action="append", default=[], metavar="KEY=VALUE", help="a recipe input (repeatable)")
    run.add_argument("--out", type=Path, metavar="DIR", help="the run directory (default: runs/<run id>)")
    run.add_argument("--json", action="store_true", help="print every event as a JSON line instead of progress text")
    run.add_argument("--browser-ws", metavar="WS_URL", help="attach to a running Chromium (ws://.../devtools/browser/...) instead of launching one")
    run.add_argument("--label", action="append", default=[], metavar="KEY=VALUE", help="a run label, on the trace as verity.label.<key> (repeatable)")
    run.add_argument("--log-level", choices=("DEBUG", "INFO", "WARNING", "ERROR"), help="log to stderr at this level (default: warnings only)")
    run.set_defaults(handler=_run_command)

    demo = commands.add_parser("demo", help="run the bundled demo: a dead quote link recovered through search, on a loopback site")
    demo.add_argument("--out", type=Path, metavar="DIR", help="the run directory (default: runs/<run id>)")
    demo.add_argument("--json", action="store_true", help="print every event as a JSON line instead of progress text")
    demo.set_defaults(handler=_demo_command)


def _run_command(args: argparse.Namespace) -> int:
    if args.log_level:
        logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    spawned = None if args.browser_ws else _spawn_chromium()
    try:
        with _imports_left_out_of_collections():
            from runtime.browser.launch import StartingChromium
            from runtime.browser.readable_text import warm_up_in_background
            from runtime.execute.cli import run_file_command

        # The first page's readable text needs trafilatura imported and set up (about 0.3 s of
        # CPU); the run waits longer than that on Chromium before it gets there.
        warm_up_in_background()
        return run_file_command(args, StartingChromium(spawned) if spawned is not None else None)
    finally:
        if spawned is not None:
            spawned.abandon()  # nothing when the run took it


@contextlib.contextmanager
def _imports_left_out_of_collections() -> Iterator[None]:
    """Import the run's modules with the garbage collector off, then freeze what they built.

    The imports build most of the heap (classes, functions, compiled patterns: about 100,000
    objects, alive until exit). While they run, the collector would walk that growing heap about
    150 times, about 0.05 s of CPU; afterwards every full collection of the run, and the one at
    interpreter exit, would walk all of it again, about 0.1 s (BENCHMARKS.md, "Run start"). What
    the run itself allocates is collected as always.
    """
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def _demo_command(args: argparse.Namespace) -> int:
    from runtime.execute.cli import demo_command

    return demo_command(args)


def _spawn_chromium():  # type: ignore[no-untyped-def] - its type lives in the module imported here
    """A Chromium starting for the run, or None when it cannot start now: the run then launches
    one itself as it always has, and a failure to start becomes its verdict (browser_crashed).
    Only the spawn's own module is imported first, not pyppeteer and the rest of the browser
    package, so Chromium is spawned about 0.03 s after the command starts instead of 0.3 s. On
    an idle 2-core machine the run's first event comes no sooner: Chromium's own start then
    takes the CPU the imports would have had (BENCHMARKS.md, "Run start")."""
    from runtime.browser.chromium_start import spawn
    from runtime.browser.errors import BrowserLaunchError

    try:
        return spawn()
    except BrowserLaunchError:
        return None
