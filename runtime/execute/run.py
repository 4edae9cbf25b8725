"""`start_run`: walk a run order's plan in a browser session, always end with one verdict.

    order = prepare_run(recipe, inputs, registry=registry, run_id="r1", run_dir=Path("runs/r1"))
    handle = start_run(order, events=EventLog("r1"))
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
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from opentelemetry import context as otel_context
from opentelemetry import trace

from runtime.browser import BrowserActionError, BrowserLaunchError, BrowserSession
from runtime.events import ConfirmationRequested, EventLog, FinalVerdict, StatusChanged
from runtime.execute.context.approvals import ApprovalDesk
from runtime.execute.context.run_context import RunContext
from runtime.browser.supply.endpoint_specs import BrowserPin
from runtime.browser.supply.provider import BrowserProvider
from runtime.browser.supply.waiting_line import BrowserUnavailable
from runtime.execute.record.run_files import RunFiles
from runtime.execute.record.run_report import draft_run_report, write_run_report
from runtime.execute.record.spans import RunSpans
from runtime.execute.step_outcome import RunStopped
from runtime.execute.conversation import Conversation, walk_turns
from runtime.execute.walker import PlanWalk, RunEnd
from runtime.outcomes import StopReason, TaskState
from runtime.plan.order import RunOrder
from runtime.secrets import PASSWORD_NAME, Secrets, install_log_redaction

if TYPE_CHECKING:
    from runtime.execute.record.storage_state import StorageStateKeeper
    from runtime.llm.providers.model_client import DrivenModel
    from runtime.store.action_cache import ActionCache

T = TypeVar("T")

# A server's run slot: awaits one (telling its argument why, when it must wait first), or raises
# BrowserUnavailable when the queue is full or the wait outlasted its bound (service/runs/run_slots.py).
Admission = Callable[[Callable[[str], None]], Awaitable[None]]


class RunHandle:
    """A started run: its task (resolving to the FinalVerdict) and the controls a person has."""

    def __init__(self, run_id: str, run_dir: Path, approvals: ApprovalDesk, conversation: Conversation | None = None) -> None:
        self.run_id = run_id
        # A run that goes on after its plan (conversation.py); None for a run that ends there.
        self.conversation = conversation
        self.run_dir = run_dir
        self.task: asyncio.Task[FinalVerdict]
        self._approvals = approvals
        self._work: asyncio.Future[Any] | None = None
        # The browser (ListBrowsers' id) the run got, once it has one.
        self.browser_id = ""
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

    async def admitted(self, admission: Admission, events: EventLog) -> None:
        """Wait for the server's run slot (`waiting_for_browser_selection` meanwhile); a stop ends the run."""
        try:
            await self.as_work(admission(waiting_for_browser(events)), during=" while it waited for a run slot")
        except BrowserUnavailable as error:
            raise RunStopped(StopReason.BROWSER_UNAVAILABLE, error.message) from None

    @property
    def stop_reason(self) -> StopReason | None:
        """Why the run was asked to stop, once it was."""
        return self._stop_reason

    async def as_work(self, work: Coroutine[Any, Any, T], timeout: float | None = None, *, during: str = "") -> T:
        """Await `work` as the run's current work, which stop() cancels: RunStopped (saying it
        was stopped `during` what) then; asyncio.TimeoutError after `timeout` seconds; a
        cancellation of the run's own task cancels the work too and is raised on."""
        self._work = work_task = asyncio.ensure_future(work)
        if self._stop_reason is not None:  # stop() before the work even started
            work_task.cancel()
        try:
            return await asyncio.wait_for(asyncio.shield(work_task), timeout)
        except asyncio.TimeoutError:
            work_task.cancel()
            await asyncio.gather(work_task, return_exceptions=True)
            raise
        except asyncio.CancelledError:
            reason = self._stop_reason
            if work_task.cancelled() and reason is not None:
                raise RunStopped(reason, f"stopped ({reason.value}) by request{during}; everything written so far is kept") from None
            work_task.cancel()
            await asyncio.gather(work_task, return_exceptions=True)
            raise
        finally:
            self._work = None

    def confirm(self, request_id: str, approve: bool, reason: str = "") -> bool:
        """Answer a pending confirmation; False when `request_id` is not pending."""
        return self._approvals.answer(request_id, approve, reason)

    def pending_confirmations(self) -> list[ConfirmationRequested]:
        return self._approvals.pending()


def waiting_for_browser(events: EventLog) -> Callable[[str], None]:
    """What hears that a run must wait for a browser or a run slot: the run's state says so."""
    return lambda detail: events.emit(StatusChanged(status=TaskState.WAITING_FOR_BROWSER_SELECTION, detail=detail))


def run_secrets(order: RunOrder, events: EventLog) -> Secrets:
    """The run's one redaction authority: the secret inputs now, passwords as they are typed.
    It joins the event log's registry (a served run's log may already redact), so every writer
    of evidence consults the same one."""
    install_log_redaction()
    secrets = events.secrets
    for name in sorted(order.secret_inputs):
        value = order.inputs.get(name)
        if value is not None and not isinstance(value, bool):
            secrets.add(name, value)
    return secrets


def learn_password(secrets: Secrets, inputs: Mapping[str, Any]) -> Callable[[str], None]:
    """What the session calls before it types into a password field: the text becomes a secret,
    named after the input whose value it is (else `password`), before anything records it."""

    def learned(text: str) -> None:
        name = next((key for key, value in inputs.items() if isinstance(value, str) and value == text), PASSWORD_NAME)
        secrets.add(name, text)

    return learned


def start_run(
    order: RunOrder,
    *,
    events: EventLog,
    browser: BrowserProvider | None = None,
    tracer_provider: trace.TracerProvider | None = None,
    trace_parent: otel_context.Context | None = None,
    allow_private_network: bool | None = None,
    close_browser: bool = False,
    admission: Admission | None = None,
    driven_model: DrivenModel | None = None,
    action_cache: ActionCache | None = None,
    conversation: Conversation | None = None,
) -> RunHandle:
    """Start the run `order` describes (prepared and placed: runtime/plan/order.py) in the running
    event loop and return at once.

    Without `browser`, the run launches its own Chromium and closes it at the end. `tracer_provider`
    defaults to the global SDK provider (or a private one), so `events.trace_id` is always the
    run's root span trace id; when the caller already set `events.trace_id`, the run's spans join
    that trace instead of starting a new one; with `trace_parent` (a served run whose caller sent
    `traceparent`) the run's root span is a child of that context's span. The order's labels
    become `verity.label.<key>` on the root span. `allow_private_network` is the server's say over
    private networks for a recipe someone sent (it replaces the recipe's own
    `target.allow_private_network` and listed private hosts); None for a recipe run by its author.
    `close_browser` hands `browser` to the run (one run per provider, as `verity run` has): the run
    closes it as it finishes, as it does a Chromium it launched itself. `admission` is a server's
    run slot: the run waits for it (in `waiting_for_browser_selection`) before it runs at all.
    `driven_model` answers the run's agent states instead of a provider's model (`verity mcp`).
    `action_cache`: the run store's verified action cache (store/action_cache.py) agent steps replay.
    `conversation`: the run goes on after its plan, turn by turn, until it is ended (conversation.py).
    """
    if not order.run_id or order.run_dir is None:
        raise ValueError("the run order has no run id and directory yet: place it (RunOrder.placed) first")
    loop = asyncio.get_running_loop()
    plan = order.plan
    secrets = run_secrets(order, events)
    name, version = plan.recipe["name"], plan.recipe["version"]
    spans = RunSpans(
        tracer_provider, order.run_id, name, version, parent=trace_parent, existing_trace_id=events.trace_id, labels=dict(order.labels) or None, secrets=secrets
    )
    events.trace_id = spans.trace_id
    events.add_listener(spans.on_event)
    files = RunFiles(order.run_dir, secrets)
    events.add_listener(files.on_event)
    approvals = ApprovalDesk(loop)
    handle = RunHandle(order.run_id, order.run_dir, approvals, conversation)
    events.emit(StatusChanged(status=TaskState.CREATED, detail=f"recipe {name} {version}"))
    handle.task = loop.create_task(
        _run(handle, order, events, browser, files, spans, approvals, allow_private_network, close_browser, admission, driven_model, action_cache),
        name=f"verity-run-{order.run_id}",
    )
    return handle


async def _run(
    handle: RunHandle,
    order: RunOrder,
    events: EventLog,
    provider: BrowserProvider | None,
    files: RunFiles,
    spans: RunSpans,
    approvals: ApprovalDesk,
    allow_private_network: bool | None,
    close_browser: bool = False,
    admission: Admission | None = None,
    driven_model: DrivenModel | None = None,
    action_cache: ActionCache | None = None,
) -> FinalVerdict:
    started = time.perf_counter()
    own_provider: BrowserProvider | None = provider if close_browser else None
    session: BrowserSession | None = None
    walk: PlanWalk | None = None
    end: RunEnd
    cancelled_from_outside = False
    plan, run_dir = order.plan, handle.run_dir
    keeper: StorageStateKeeper | None = None
    if order.storage_state.used:
        # Only a recipe with `storage_state` loads its files' models (record/storage_state.py).
        from runtime.execute.record.storage_state import StorageStateKeeper

        keeper = StorageStateKeeper(order.storage_state, list(plan.target.get("allowed_domains", [])))
    try:
        if admission is not None:
            await handle.admitted(admission, events)
        events.emit(StatusChanged(status=TaskState.RUNNING, detail=order.run_switches.status_detail()))
        files.write_order(order.to_data())
        # Before the browser starts: a storage-state file that cannot be used is the run's input error.
        if keeper is not None:
            keeper.read()

        async def open_session() -> BrowserSession:
            nonlocal own_provider, session
            chosen = provider
            if chosen is None:
                own_provider = chosen = BrowserProvider()
            try:
                network = context.network
                session = await chosen.open_session(
                    run_dir, session_id=handle.run_id, network=network.browser, on_blocked=network.on_blocked,
                    pin=BrowserPin(order.browser_id, order.browser_label), on_wait=waiting_for_browser(events),
                )
                session.on_secret_typed = learn_password(events.secrets, order.inputs)
                session.artifacts.redact_text = events.secrets.redact_text
                session.secret_values = events.secrets.values
            except BrowserUnavailable as error:
                raise RunStopped(StopReason.BROWSER_UNAVAILABLE, error.message) from None
            except BrowserLaunchError as error:
                raise RunStopped(StopReason.BROWSER_CRASHED, f"no browser: {error.message}") from None
            except BrowserActionError as error:
                raise RunStopped(StopReason.BROWSER_CRASHED, error.error.message) from None
            handle.browser_id = session.browser_id
            if (endpoint := session.browser.attached_endpoint) is not None:
                # Which attached browser (of a server's pool) runs it, secrets in the URL redacted;
                # after a wait for it (only a pool's endpoints make a run wait), the run goes on.
                events.emit(StatusChanged(status=TaskState.RUNNING, detail=f"browser endpoint {endpoint}", browser_id=session.browser_id))
            if keeper is not None:
                await keeper.load_into(session, events, context.browser.new_action_id("session_state"))
            return session

        context = RunContext.create(
            plan,
            order.placeholder_values,
            run_id=handle.run_id,
            events=events,
            files=files,
            spans=spans,
            approvals=approvals,
            open_session=open_session,
            private_network_override=allow_private_network,
            switches=order.run_switches,
            driven_model=driven_model,
            action_cache=action_cache,
        )
        context.storage_state, context.uploads = keeper, order.uploads
        walk = PlanWalk(context)
        # The plan, and for a conversation each turn after it (conversation.py).
        end, cancelled_from_outside = await walk_turns(handle, walk, events, lambda: session)
    except RunStopped as stopped:
        end = RunEnd(stopped.reason, stopped.detail, stopped.blocker_kind, stopped.evidence)
    except Exception as error:  # noqa: BLE001 - a bug must still end the run with a verdict
        end = RunEnd(
            StopReason.EXECUTE_ERROR,
            f"internal error: {type(error).__name__}: {error}",
            evidence={"traceback": traceback.format_exc(limit=8)},
        )
    if keeper is not None and keeper.files.save is not None and walk is not None:
        failure = await keeper.save(end.stop_reason, session, events, walk.context.browser.new_action_id)
        if failure is not None:
            end = RunEnd(StopReason.EXECUTE_ERROR, f"{end.summary}; but {failure}")
    verdict = await _finish(
        end, walk, events, files, spans, session, own_provider, started, keeper.record if keeper else None, handle.browser_id
    )
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
    session_record: dict[str, Any] | None = None,
    browser_id: str = "",
) -> FinalVerdict:
    """Close the browser side, write the run directory, emit the one FinalVerdict, end the span."""
    # Every state is recorded: the report's records part is drafted while the browser closes.
    drafting = None
    try:
        files.finish_records()
        drafting = asyncio.ensure_future(draft_run_report(files.run_dir))
    except OSError:
        pass  # written again as the run directory is closed; the report then reads what is there
    if session is not None and not session.stopped:
        try:
            await asyncio.wait_for(session.stop(), timeout=5)
        except (Exception, asyncio.CancelledError):  # noqa: BLE001 - a dead browser cannot be stopped; the verdict matters more
            pass
    # Chromium takes a while to exit and its profile to be removed; the run directory and the
    # report do not need it, so they are written meanwhile. The verdict still waits for it: a run
    # that announced its end has no browser left.
    closing = asyncio.ensure_future(asyncio.wait_for(own_provider.close(), timeout=15)) if own_provider is not None else None
    try:
        final_state = end.stop_reason.final_state
        verified = end.stop_reason is StopReason.COMPLETED
        verdict = FinalVerdict(
            status=final_state,
            stop_reason=end.stop_reason,
            verified=verified,
            summary=end.summary,
            blocker_kind=end.blocker_kind,
            evidence=end.evidence,
            browser_id=browser_id,
        )
        extra: dict[str, Any] = {"duration_ms": round((time.perf_counter() - started) * 1000, 1), "run_id": events.run_id, "trace_id": events.trace_id}
        try:
            if walk is not None:
                ctx = walk.context
                extra.update(ctx.verdict_facts(verdict.evidence))
                if session_record:
                    extra["session"] = session_record
                if ctx.findings.output_valid is None:
                    files.write_output(ctx.findings.data, False, [f"the run ended ({end.stop_reason.value}) before output validation"])
            files.flush()
            files.write_verdict(verdict, extra)
        except OSError as error:
            verdict = FinalVerdict(
                status=TaskState.ERROR, stop_reason=StopReason.EXECUTE_ERROR, verified=False,
                summary=f"{end.summary}; and the run directory could not be written: {error}", blocker_kind=end.blocker_kind, evidence=end.evidence,
                browser_id=browser_id,
            )
        draft = await drafting if drafting is not None else None
        report = await write_run_report(files.run_dir, draft)
    finally:
        if closing is not None:
            try:
                await closing
            except (Exception, asyncio.CancelledError):  # noqa: BLE001 - a browser that will not close does not change the verdict
                pass
    if report is not None:
        events.emit(report)
    events.emit(StatusChanged(status=final_state, detail=end.stop_reason.value))
    # What callers are handed is the verdict as emitted: redacted like every event.
    emitted = events.emit(verdict).payload
    assert isinstance(emitted, FinalVerdict)
    verdict = emitted
    events.remove_listener(files.on_event)
    files.close()
    events.remove_listener(spans.on_event)
    steps = walk.context.budget.executed if walk is not None else 0
    blocked = int(walk.context.network.summary()["count"]) if walk is not None else 0
    spans.end_run(final_state.value, end.stop_reason, verified, end.blocker_kind, steps=steps, blocked_requests=blocked)
    return verdict
