"""`verity run` and `verity demo`: their arguments, and the run's head start.

What a run's Chromium is started with does not depend on its recipe, so `verity run` starts it
before it imports the executor and loads the recipe: the browser comes up on one core while
Python imports and compiles on the other. The readable-text worker starts then too, and while
the executor is imported on a thread the command connects to Chromium and reserves the first
session's context (BENCHMARKS.md, "Run start"). A browser that no run takes (a bad recipe, a bad
input, Ctrl-C) is killed and its profile removed before the command returns. The run itself is
`runtime.cli.run_recipe`.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.import_heap import imports_left_out_of_collections

if TYPE_CHECKING:
    from runtime.browser.launch.starting import StartingChromium

# See _run_command.
RUN_SWITCH_INTERVAL_S = 0.0005


def register(commands: argparse._SubParsersAction) -> None:
    run = commands.add_parser("run", help="run a recipe in headless Chromium and report a verified verdict")
    run.add_argument("recipe", type=Path, metavar="RECIPE", help="the recipe YAML file")
    run.add_argument("--input", "-i", action="append", default=[], metavar="KEY=VALUE", help="a recipe input (repeatable)")
    run.add_argument("--out", type=Path, metavar="DIR", help="the run directory (default: runs/<run id>)")
    run.add_argument("--json", action="store_true", help="print every event as a JSON line instead of progress text")
    run.add_argument("--browser-ws", metavar="WS_URL", help="attach to a running Chromium (ws://.../devtools/browser/...) instead of launching one")
    run.add_argument("--label", action="append", default=[], metavar="KEY=VALUE", help="a run label, on the trace as verity.label.<key> (repeatable)")
    run.add_argument(
        "--switch",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="roll a strategy back for this run: no_progress=off, auto_repair=off, sticky_tab=off, verify=lenient:click,hover, cache=bypass|refresh (repeatable; over the recipe's switches)",
    )
    run.add_argument(
        "--approve", action="extend", nargs="+", metavar="STEP_ID",
        help="approve these steps' approvals in advance, or 'all' (without a terminal, an unanswered approval fails the run)",
    )
    run.add_argument("--deny", action="extend", nargs="+", metavar="STEP_ID", help="deny these steps' approvals in advance, or 'all'")
    run.add_argument("--log-level", choices=("DEBUG", "INFO", "WARNING", "ERROR"), help="log to stderr at this level (default: warnings only)")
    run.set_defaults(handler=_run_command)

    demo = commands.add_parser("demo", help="run the bundled demo: a dead quote link recovered through search, on a loopback site")
    demo.add_argument("--out", type=Path, metavar="DIR", help="the run directory (default: runs/<run id>)")
    demo.add_argument("--json", action="store_true", help="print every event as a JSON line instead of progress text")
    demo.set_defaults(handler=_demo_command)


def _run_command(args: argparse.Namespace) -> int:
    if args.log_level:
        logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    # The run's event loop mostly waits on Chromium while threads beside it import and wait
    # (the executor's import, the readable-text worker's answers, file writes). At Python's
    # usual 5 ms switch interval, every CDP reply reaching the loop meanwhile waited up to 5 ms
    # for the GIL; at 0.5 ms the loop is answered almost at once.
    sys.setswitchinterval(RUN_SWITCH_INTERVAL_S)
    spawned = None if args.browser_ws else _spawn_chromium()
    # The readable-text worker warms up on a core of its own while this process imports: the
    # first page prepared needs it (about 0.3 s of CPU, none of it in this process).
    from runtime.browser.launch.readable_text import start_worker

    start_worker()
    if spawned is None:
        with imports_left_out_of_collections():
            from runtime.cli.run_recipe import run_file_command
        return run_file_command(args)
    try:
        with imports_left_out_of_collections():
            from runtime.browser.launch.starting import StartingChromium
            from runtime.browser.launch.reservation import reserve_context

        starting = StartingChromium(spawned)
        try:
            return asyncio.run(_run_with_head_start(args, starting, reserve_context))
        except KeyboardInterrupt:
            # Once the run starts, Ctrl-C stops it (manual_stop); this is before.
            from runtime.outcomes import StopReason

            print("verity: interrupted before the run started", file=sys.stderr)
            return StopReason.MANUAL_STOP.exit_code
    finally:
        spawned.abandon()  # nothing once something connected to it


async def _run_with_head_start(args: argparse.Namespace, starting: StartingChromium, reserve_context: Callable[..., Awaitable[Any]]) -> int:
    """Import the executor on a thread while this loop connects to Chromium and reserves the
    first session's context (runtime/browser/launch/reservation.py): the browser's part of opening a
    session, about 0.15 s of waiting, is done by the time the run asks for it (BENCHMARKS.md,
    "Run start"). Whatever the run did not take is ended before this returns."""
    starting.begin_head_start(reserve_context)
    try:
        with imports_left_out_of_collections():
            await asyncio.to_thread(importlib.import_module, "runtime.cli.run_recipe")
        from runtime.cli.run_recipe import run_file

        return await run_file(args, starting)
    finally:
        await starting.discard()


def _demo_command(args: argparse.Namespace) -> int:
    from runtime.cli.run_recipe import demo_command

    return demo_command(args)


def _spawn_chromium():  # type: ignore[no-untyped-def] - its type lives in the module imported here
    """A Chromium starting for the run, or None when it cannot start now: the run then launches
    one itself as it always has, and a failure to start becomes its verdict (browser_crashed).
    Only the spawn's own module is imported first, not pyppeteer and the rest of the browser
    package, so Chromium is spawned about 0.03 s after the command starts instead of 0.3 s. On
    an idle 2-core machine the run's first event comes no sooner: Chromium's own start then
    takes the CPU the imports would have had (BENCHMARKS.md, "Run start")."""
    from runtime.browser.launch.chromium_start import spawn
    from runtime.browser.vocabulary.errors import BrowserLaunchError

    try:
        return spawn()
    except BrowserLaunchError:
        return None
