"""`verity run` and `verity demo`: the run itself, once the command (runtime/cli/run.py) has
given it a head start: the recipe and inputs read from the command line, the run started in this
process, its progress and verdict printed.

Exit codes are the verdict's (`StopReason.exit_code`): 0 only for completed, 3 for a bad recipe
or bad inputs, 130 after Ctrl-C (a clean manual_stop that keeps the run directory). Anything
unexpected is left to the one catch-all of runtime/cli/main.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from runtime.browser.launch.starting import StartingChromium
from runtime.cli.approval_answers import ApprovalAnswerer, ApprovalAnswers
from runtime.import_heap import imports_left_out_of_collections
from runtime.events import Event, EventLog, FinalVerdict, StepFinished
from runtime.events.model import payload_to_dict
from runtime.browser.supply.provider import BrowserProvider
from runtime.execute.run import start_run
from runtime.execute.states import HANDLERS
from runtime.execute.record.run_files import json_default
from runtime.outcomes import StopReason
from runtime.plan.order import RunOrder, prepare_run
from runtime.plan.state_kinds import AGENT, REPAIR
from runtime.plan.switches import SwitchInvalid
from runtime.recipe import Problem, RecipeInvalid, load_recipe_with_registry
from runtime.run_layout import OUTPUT_FILE, REPORT_FILE, TRACE_FILE, VERDICT_FILE
from runtime.trace_export import TelemetryConfigError, TraceExport

if TYPE_CHECKING:
    from runtime.store.action_cache import ActionCache


def run_file_command(args: argparse.Namespace, starting: StartingChromium | None = None) -> int:
    """`verity run RECIPE ...`; `starting` is the Chromium the command started for it, if any."""
    return _unless_interrupted(lambda: asyncio.run(_run_file(args, starting)))


async def run_file(args: argparse.Namespace, starting: StartingChromium) -> int:
    """`run_file_command` inside the event loop the command already runs (the one its
    Chromium's head start connected in)."""
    return await _run_file(args, starting)


def demo_command(args: argparse.Namespace) -> int:
    return _unless_interrupted(lambda: _run_demo(args))


def _unless_interrupted(body: Callable[[], int]) -> int:
    """Ctrl-C before the run has its own handler (which makes it a manual_stop) ends the command
    with manual_stop's code too, and says nothing ran."""
    try:
        return int(body())
    except KeyboardInterrupt:
        print("verity: interrupted before the run started", file=sys.stderr)
        return StopReason.MANUAL_STOP.exit_code


async def _run_file(args: argparse.Namespace, starting: StartingChromium | None) -> int:
    # On a thread: reading and checking the recipe, and importing the handlers its plan runs,
    # while this loop answers Chromium (the head start's reservation of the first session).
    prepared = await asyncio.to_thread(_prepared_run, args)
    return prepared if isinstance(prepared, int) else await _execute(**prepared, starting=starting)


def _prepared_run(args: argparse.Namespace) -> int | dict[str, Any]:
    """The recipe, its registry and inputs for `_execute`, read from the command line; or the exit
    code after printing why there is nothing to run."""
    path: Path = args.recipe
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        return _print_problems([Problem(str(path), 0, 0, "", f"cannot read the recipe: {reason}", "unreadable")])
    try:
        recipe, registry = load_recipe_with_registry(text, str(path), recipe_path=path)
    except RecipeInvalid as invalid:
        return _print_problems(invalid.problems)
    problems: list[Problem] = []
    raw = _key_values(args.input, "--input", problems)
    labels = _key_values(args.label, "--label", problems)
    switches = _key_values(args.switch, "--switch", problems)
    if problems:
        return _print_problems(problems)
    run_id = new_run_id(recipe.name)
    try:
        # `--input key=@env:NAME` reads NAME from this environment; such an input is secret.
        order = prepare_run(
            recipe, raw, registry=registry, run_id=run_id, run_dir=args.out or Path("runs") / run_id, labels=labels, environ=os.environ, source="--input",
            switches=switches,
        )  # fmt: skip
    except RecipeInvalid as invalid:
        return _print_problems(invalid.problems)
    except SwitchInvalid as invalid:
        return _print_problems([Problem("--switch", 0, 0, "--switch", str(invalid), "bad_switch")])
    answers, problems = ApprovalAnswers.from_flags(args.approve, args.deny, (state.id for state in order.plan.states))
    if problems:
        return _print_problems(problems)
    # The handlers of the plan's states, imported here with the rest of the start-up (collector
    # off) rather than on the run's loop; an agent's or a repair's only when it runs, since they
    # bring the model's modules (EXEC-061). The walker ends a run itself: no handler for that.
    with imports_left_out_of_collections():
        for kind in {state.kind for state in order.plan.states} - {AGENT, REPAIR}:
            HANDLERS.get(kind)
    return {"order": order, "json_mode": args.json, "ws_endpoint": args.browser_ws, "answers": answers}


def _key_values(items: list[str], flag: str, problems: list[Problem]) -> dict[str, str]:
    """`KEY=VALUE` arguments of a repeatable flag; a malformed one becomes a problem."""
    pairs: dict[str, str] = {}
    for i, item in enumerate(items):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            problems.append(Problem(flag, 0, 0, f"{flag}[{i}]", f"{item!r} is not KEY=VALUE", "bad_input"))
            continue
        pairs[key.strip()] = value
    return pairs


def _run_demo(args: argparse.Namespace) -> int:
    from runtime.demo import DEMO_RECIPE, DemoSite

    started = time.perf_counter()
    with DemoSite() as site:
        recipe, registry = load_recipe_with_registry(DEMO_RECIPE.read_text(encoding="utf-8"), str(DEMO_RECIPE), recipe_path=DEMO_RECIPE)
        run_id = new_run_id(recipe.name)
        inputs = {"site": site.quote_base, "search_site": site.search_base}
        order = prepare_run(recipe, inputs, registry=registry, run_id=run_id, run_dir=args.out or Path("runs") / run_id)
        if not args.json:
            print(f"demo site: quotes on {site.quote_base}, search on {site.search_base}")
            print(f"recipe: {DEMO_RECIPE}")
        code = asyncio.run(_execute(order, json_mode=args.json, ws_endpoint=None))
    if not args.json:
        print(f"demo finished in {time.perf_counter() - started:.1f} s")
    return code


def _print_problems(problems: list[Problem]) -> int:
    for problem in problems:
        print(str(problem), file=sys.stderr)
    print(f"verity: {len(problems)} problem(s); nothing was run", file=sys.stderr)
    return StopReason.INVALID_INPUT.exit_code


# ---------------------------------------------------------------------- the run


def new_run_id(recipe_name: str) -> str:
    return f"{recipe_name}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"


async def _execute(
    order: RunOrder,
    *,
    json_mode: bool,
    ws_endpoint: str | None,
    starting: StartingChromium | None = None,
    answers: ApprovalAnswers = ApprovalAnswers(),
) -> int:
    run_id, run_dir = order.run_id, order.run_dir
    assert run_dir is not None
    events = EventLog(run_id)
    printer = _JsonLines(sys.stdout) if json_mode else _Progress(sys.stdout)
    events.add_listener(printer)
    provider = BrowserProvider(ws_endpoint=ws_endpoint, starting=starting)
    # The run's spans go to <run_dir>/trace.jsonl, and wherever OTEL_TRACES_EXPORTER says.
    try:
        export = TraceExport.from_env()
    except TelemetryConfigError as error:
        return _print_problems([Problem("environment", 0, 0, "", str(error), "bad_telemetry")])
    tracing = export.for_run(run_dir / TRACE_FILE)
    loop = asyncio.get_running_loop()
    action_cache = _action_cache(order)
    try:
        handle = start_run(
            order, events=events, browser=provider, tracer_provider=tracing.provider,
            close_browser=True,  # one run: its end closes Chromium while the report is written
            action_cache=action_cache,
        )
        # A step that needs approval is answered by the flags, on the terminal, or denied at once.
        events.add_listener(ApprovalAnswerer(answers, handle.confirm))
        # Ctrl-C stops the run cleanly (manual_stop) instead of killing it mid-write.
        loop.add_signal_handler(signal.SIGINT, handle.stop)
        try:
            verdict = await handle.task
        finally:
            loop.remove_signal_handler(signal.SIGINT)
    finally:
        await provider.close()
        tracing.close()
        if action_cache is not None:
            action_cache.close()
        # Sends what the batch processors still hold before the process exits.
        await asyncio.to_thread(export.shutdown)
    if not json_mode:
        _print_verdict(verdict, run_dir)
    return verdict.stop_reason.exit_code


def _action_cache(order: RunOrder) -> ActionCache | None:
    """The run store's action cache for a plan with an agent step (runtime/cli/cache.py
    `run_cache`). A plan without one has nothing to replay or learn, and its run does not import
    the store (SQLite, the cache's records) or the cache command at all."""
    if not any(state.kind == AGENT for state in order.plan.states):
        return None
    from runtime.cli.cache import run_cache

    return run_cache()


class _Progress:
    """One line per executed state: id, outcome, blocker, short summary."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def __call__(self, event: Event) -> None:
        payload = event.payload
        if isinstance(payload, StepFinished):
            mark = "ok " if payload.ok else "!! "
            blocker = payload.blocker_kind.value if payload.blocker_kind else ""
            summary = " ".join(payload.observation_summary.split())[:100]
            self.stream.write(f"{mark}{payload.state_id:<26} {payload.outcome:<11} {blocker:<18} {summary}\n")
            self.stream.flush()


class _JsonLines:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def __call__(self, event: Event) -> None:
        self.stream.write(json.dumps(event.to_dict(), ensure_ascii=False, default=json_default) + "\n")
        self.stream.flush()


PRINTED_CHARS = 2_000
"""The most of the summary and of the output the final lines print; the files hold the rest."""


def _closing_line(label: str, text: str, whole_in: str) -> str:
    """`label` and `text`, its continuation lines under the text; past PRINTED_CHARS characters,
    a last line says how much was left out and that `whole_in` holds the whole."""
    if len(text) > PRINTED_CHARS:
        text = f"{text[:PRINTED_CHARS]}\n… {len(text) - PRINTED_CHARS:,} more characters not printed; the whole is in {whole_in}"
    return label + text.replace("\n", "\n" + " " * len(label))


def _print_verdict(verdict: FinalVerdict, run_dir: Path) -> None:
    data = payload_to_dict(verdict)
    print(f"\nverdict: {data['status']} ({data['stop_reason']}, exit {verdict.stop_reason.exit_code})" + (f", blocker {data['blocker_kind']}" if data["blocker_kind"] else ""))
    print(_closing_line("summary: ", verdict.summary, str(run_dir / VERDICT_FILE)))
    output = run_dir / OUTPUT_FILE
    if output.exists():
        print(_closing_line("output:  ", output.read_text(encoding="utf-8").strip(), str(output)))
    print(f"run dir: {run_dir}")
    report = run_dir / REPORT_FILE
    if report.exists():
        print(f"report:  {report} (open it in a browser: the states, their screenshots, the verdict)")
    print(f"trace:   {run_dir / TRACE_FILE} (OpenTelemetry spans as OTLP/JSON)")
