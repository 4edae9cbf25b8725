"""`start_run`: compile a recipe, walk its plan in a browser session, always end with one verdict.

    handle = start_run(recipe, inputs, run_id="r1", run_dir=Path("runs/r1"), events=EventLog("r1"))
    verdict = await handle.task          # FinalVerdict; also the last event of `events`
    handle.stop()                        # manual_stop, promptly: the in-flight action is cancelled
    handle.confirm(request_id, True)     # answer a ConfirmationRequested

Every run ends with exactly one FinalVerdict as its last event - on success, on a stop reason, on
a timeout, a manual stop, a dead browser or a bug in the executor itself.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from pathlib import Path
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace

from runtime.browser import BrowserActionError, BrowserLaunchError, BrowserSession
from runtime.events import ConfirmationRequested, EventLog, FinalVerdict, StatusChanged
from runtime.execute.approvals import ApprovalDesk
from runtime.execute.context import RunContext
from runtime.execute.provider import BrowserProvider
from runtime.execute.run_files import RunFiles
from runtime.execute.run_report import write_run_report
from runtime.execute.spans import RunSpans
from runtime.execute.step_outcome import RunStopped
from runtime.execute.walker import PlanWalk, RunEnd
from runtime.outcomes import StopReason, TaskState
from runtime.plan import compile_recipe
from runtime.recipe import Recipe
from runtime.recipe.placeholders import fill
from runtime.recipe.tool_registry import ToolRegistry


class RunHandle:
    """A started run: its task (resolving to the FinalVerdict) and the controls a person has."""

    def __init__(self, run_id: str, run_dir: Path, approvals: ApprovalDesk) -> None:
        self.run_id = run_id
        self.run_dir = run_dir
        self.task: asyncio.Task[FinalVerdict]
        self._approvals = approvals
        self._work: asyncio.Task[RunEnd] | None = None
        self._stop_reason: StopReason | None = None
        self._loop = asyncio.get_running_loop()

    def stop(self, reason: StopReason = StopReason.MANUAL_STOP) -> None:
        """Stop the run with `reason` (manual_stop by default): cancels the in-flight action.
        Safe from any thread and more than once; the first reason wins."""
        if self._stop_reason is None:
            self._stop_reason = reason

        def cancel() -> None:
            if self._work is not None and not self._work.done():
                self._work.cancel()

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            cancel()
        else:
            self._loop.call_soon_threadsafe(cancel)

    def confirm(self, request_id: str, approve: bool, reason: str = "") -> bool:
        """Answer a pending confirmation; False when `request_id` is not pending."""
        return self._approvals.answer(request_id, approve, reason)

    def pending_confirmations(self) -> list[ConfirmationRequested]:
        return self._approvals.pending()

    @property
    def done(self) -> bool:
        return self.task.done()


def placeholder_values(recipe: Recipe, inputs: dict[str, Any]) -> dict[str, Any]:
    """The values `{placeholders}` are filled with: the inputs, `start_url` and `goal`."""
    values = dict(inputs)
    values["start_url"] = fill(recipe.target.start_url, values)
    values["goal"] = fill(recipe.goal, values)
    return values


def start_run(
    recipe: Recipe,
    inputs: dict[str, Any],
    *,
    run_id: str,
    run_dir: Path,
    events: EventLog,
    browser: BrowserProvider | None = None,
    registry: ToolRegistry | None = None,
    tracer_provider: trace.TracerProvider | None = None,
    trace_parent: otel_context.Context | None = None,
    labels: dict[str, str] | None = None,
    allow_private_network: bool | None = None,
) -> RunHandle:
    """Start a run in the running event loop and return at once.

    `inputs` are resolved values (see `resolve_inputs`). Without `browser`, the run launches its
    own Chromium and closes it at the end. `tracer_provider` defaults to the global SDK provider
    (or a private one), so `events.trace_id` is always the run's root span trace id; when the
    caller already set `events.trace_id`, the run's spans join that trace instead of starting a new
    one; with `trace_parent` (a served run whose caller sent `traceparent`) the run's root span is
    a child of that context's span. `labels` become `verity.label.<key>` on the root span.
    `allow_private_network` is the server's say over private networks for a recipe someone sent
    (it replaces the recipe's own `target.allow_private_network` and listed private hosts); None
    for a recipe run by its author.
    """
    loop = asyncio.get_running_loop()
    run_dir = Path(run_dir)
    spans = RunSpans(
        tracer_provider, run_id, recipe.name, recipe.version, parent=trace_parent, existing_trace_id=events.trace_id, labels=labels
    )
    events.trace_id = spans.trace_id
    events.add_listener(spans.on_event)
    files = RunFiles(run_dir)
    events.add_listener(files.on_event)
    approvals = ApprovalDesk(loop)
    handle = RunHandle(run_id, run_dir, approvals)
    events.emit(StatusChanged(status=TaskState.CREATED, detail=f"recipe {recipe.name} {recipe.version}"))
    handle.task = loop.create_task(
        _run(handle, recipe, inputs, run_dir, events, browser, registry, files, spans, approvals, allow_private_network),
        name=f"verity-run-{run_id}",
    )
    return handle


async def _run(
    handle: RunHandle,
    recipe: Recipe,
    inputs: dict[str, Any],
    run_dir: Path,
    events: EventLog,
    provider: BrowserProvider | None,
    registry: ToolRegistry | None,
    files: RunFiles,
    spans: RunSpans,
    approvals: ApprovalDesk,
    allow_private_network: bool | None,
) -> FinalVerdict:
    started = time.perf_counter()
    own_provider: BrowserProvider | None = None
    session: BrowserSession | None = None
    walk: PlanWalk | None = None
    end: RunEnd
    cancelled_from_outside = False
    try:
        events.emit(StatusChanged(status=TaskState.RUNNING))
        plan = compile_recipe(recipe, registry)

        async def open_session() -> BrowserSession:
            nonlocal own_provider, session
            chosen = provider
            if chosen is None:
                own_provider = chosen = BrowserProvider()
            try:
                network = context.network
                session = await chosen.open_session(run_dir, session_id=handle.run_id, network=network.browser, on_blocked=network.on_blocked)
            except BrowserLaunchError as error:
                raise RunStopped(StopReason.BROWSER_CRASHED, f"no browser: {error.message}") from None
            except BrowserActionError as error:
                raise RunStopped(StopReason.BROWSER_CRASHED, error.error.message) from None
            return session

        context = RunContext.create(
            plan,
            placeholder_values(recipe, inputs),
            run_id=handle.run_id,
            events=events,
            files=files,
            spans=spans,
            approvals=approvals,
            open_session=open_session,
            private_network_override=allow_private_network,
        )
        walk = PlanWalk(context)
        handle._work = asyncio.ensure_future(walk.walk())
        if handle._stop_reason is not None:  # stop() before the walk even started
            handle._work.cancel()
        try:
            end = await asyncio.wait_for(asyncio.shield(handle._work), plan.limits.run_timeout_ms / 1000)
        except asyncio.TimeoutError:
            handle._work.cancel()
            await asyncio.gather(handle._work, return_exceptions=True)
            end = RunEnd(StopReason.TIMEOUT, f"the run exceeded guards.timeouts.run_ms ({plan.limits.run_timeout_ms} ms)")
            if session is not None and await session.browser.is_gone():
                # The run's deadline does not win over a dead browser: that is why it ran out.
                end = RunEnd(StopReason.BROWSER_CRASHED, f"the browser died or disconnected; {end.summary}")
        except asyncio.CancelledError:
            if handle._work.cancelled() and handle._stop_reason is not None:
                reason = handle._stop_reason
                end = RunEnd(reason, f"stopped ({reason.value}) by request; everything written so far is kept")
            else:
                # Our own task was cancelled (server shutdown): stop the walk, still end honestly.
                cancelled_from_outside = True
                handle._work.cancel()
                await asyncio.gather(handle._work, return_exceptions=True)
                end = RunEnd(StopReason.INTERRUPTED, "the run was interrupted (its task was cancelled)")
    except RunStopped as stopped:
        end = RunEnd(stopped.reason, stopped.detail, stopped.blocker_kind, stopped.evidence)
    except Exception as error:  # noqa: BLE001 - a bug must still end the run with a verdict
        end = RunEnd(
            StopReason.EXECUTE_ERROR,
            f"internal error: {type(error).__name__}: {error}",
            evidence={"traceback": traceback.format_exc(limit=8)},
        )
    verdict = await _finish(end, walk, events, files, spans, session, own_provider, started)
    if cancelled_from_outside:
        raise asyncio.CancelledError()
    return verdict


async def _finish(
    end: RunEnd,
    walk: PlanWalk | None,
    events: EventLog,
    files: RunFiles,
    spans: RunSpans,
    session: BrowserSession | None,
    own_provider: BrowserProvider | None,
    started: float,
) -> FinalVerdict:
    """Close the browser side, write the run directory, emit the one FinalVerdict, end the span."""
    if session is not None and not session.stopped:
        try:
            await asyncio.wait_for(session.stop(), timeout=5)
        except (Exception, asyncio.CancelledError):  # noqa: BLE001 - a dead browser cannot be stopped; the verdict matters more
            pass
    if own_provider is not None:
        try:
            await asyncio.wait_for(own_provider.close(), timeout=15)
        except (Exception, asyncio.CancelledError):  # noqa: BLE001
            pass
    final_state = end.stop_reason.final_state
    verified = end.stop_reason is StopReason.COMPLETED
    verdict = FinalVerdict(
        status=final_state,
        stop_reason=end.stop_reason,
        verified=verified,
        summary=end.summary,
        blocker_kind=end.blocker_kind,
        evidence=end.evidence,
    )
    extra: dict[str, Any] = {"duration_ms": round((time.perf_counter() - started) * 1000, 1), "run_id": events.run_id, "trace_id": events.trace_id}
    try:
        if walk is not None:
            ctx = walk.context
            # The session is stopped: every request its context sent has been judged.
            ctx.network.finish()
            extra["blocked_requests"] = ctx.network.summary()
            extra["executed_states"] = ctx.budget.executed
            extra["replans_used"] = ctx.recovery.replans_used
            extra["intent_guard"] = ctx.guard.metadata()
            if ctx.findings.output_valid is None:
                files.write_output(ctx.findings.data, False, [f"the run ended ({end.stop_reason.value}) before output validation"])
        files.flush()
        files.write_verdict(verdict, extra)
    except OSError as error:
        verdict = FinalVerdict(
            status=TaskState.ERROR, stop_reason=StopReason.EXECUTE_ERROR, verified=False,
            summary=f"{end.summary}; and the run directory could not be written: {error}", blocker_kind=end.blocker_kind, evidence=end.evidence,
        )
    report = await write_run_report(files.run_dir)
    if report is not None:
        events.emit(report)
    events.emit(StatusChanged(status=final_state, detail=end.stop_reason.value))
    events.emit(verdict)
    events.remove_listener(files.on_event)
    files.close()
    events.remove_listener(spans.on_event)
    steps = walk.context.budget.executed if walk is not None else 0
    blocked = int(walk.context.network.summary()["count"]) if walk is not None else 0
    spans.end_run(final_state.value, end.stop_reason, verified, end.blocker_kind, steps=steps, blocked_requests=blocked)
    return verdict
