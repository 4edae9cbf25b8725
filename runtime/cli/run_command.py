"""`verity run` and `verity demo`: their arguments, and the run's Chromium started first.

What a run's Chromium is started with does not depend on its recipe, so `verity run` starts it
before it imports the executor and loads the recipe: the browser comes up on one core while
Python imports and compiles on the other (BENCHMARKS.md, "Run start"). A browser that no run
takes (a bad recipe, a bad input, Ctrl-C) is killed and its profile removed before the command
returns. The run itself is `runtime.execute.cli`.
"""

from __future__ import annotations

import argparse
import logging
import sys
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
        from runtime.browser.launch import StartingChromium
        from runtime.execute.cli import run_file_command

        _import_in_background("trafilatura")
        _freeze_imported_objects()
        return run_file_command(args, StartingChromium(spawned) if spawned is not None else None)
    finally:
        if spawned is not None:
            spawned.abandon()  # nothing when the run took it


def _import_in_background(module: str) -> None:
    """Import `module` on a daemon thread while the run waits for its browser: the first page's
    readable text needs it (about 0.4 s of import), and the run spends longer than that waiting
    on Chromium before it gets there. An import the run reaches first simply waits for this one
    (Python's import lock), so nothing is imported twice."""
    import importlib
    import threading

    threading.Thread(target=importlib.import_module, args=(module,), name=f"import {module}", daemon=True).start()


def _freeze_imported_objects() -> None:
    """Leave what the imports built (classes, functions, compiled patterns: most of the heap,
    alive until exit) out of every later garbage collection. Each full collection of the run, and
    the one at interpreter exit, otherwise walks all of it: measured about 0.1 s of CPU per
    `verity run` (BENCHMARKS.md, "Run start"). What the run itself allocates is collected as
    always."""
    import gc

    gc.freeze()


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
