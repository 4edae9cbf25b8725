"""A run that goes on: seed 003's `user_message` / `ongoing` loop (a served run's
RunOptions.conversation).

After its plan, and after each later turn, a conversation keeps its browser session and its run
context (tabs, cookies, page, the values it found, the network fence, the secrets) and waits in
`ongoing` for the next message: a `Turn`, whose plan whoever took the message compiled from the
run's own recipe (the executor reads plans, never recipes), or the end. Each turn's answer is a
ConversationMessage saying how the turn ended; a turn that fails is answered, not fatal. The run's
one FinalVerdict comes only when the conversation ends: `end()` gives the last turn's verdict,
the idle timeout `conversation_idle`; a stop, a dead browser or a shutdown end it as they end any run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from runtime.browser import BrowserSession
from runtime.events import ConversationMessage, EventLog, StatusChanged
from runtime.execute.context.loops import LoopFrames
from runtime.execute.context.model_access import ModelAccess
from runtime.execute.context.recovery import Recovery
from runtime.execute.context.run_context import RunFindings, StepBudget
from runtime.execute.context.tool_gate import ToolGate
from runtime.execute.judges.login_intent import login_means
from runtime.execute.step_outcome import RunStopped
from runtime.execute.walker import PlanWalk, RunEnd
from runtime.outcomes import StopReason, TaskState
from runtime.plan.model import Plan

T = TypeVar("T")
# Who answers a turn: an agent step answers words ("model"), recipe steps answer as tools ("tool").
USER, MODEL, TOOL = "user", "model", "tool"
# Ends after which a conversation cannot go on: its browser is gone or never came, or its inputs
# are unusable. Any other turn end (a failed verification, a blocked page, a turn's timeout) is
# that turn's answer, and the conversation waits for the next message.
ENDS_CONVERSATION = frozenset(
    {StopReason.BROWSER_CRASHED, StopReason.BROWSER_UNAVAILABLE, StopReason.INVALID_INPUT, StopReason.INTERRUPTED, StopReason.MANUAL_STOP}
)


@dataclass(frozen=True)
class Turn:
    """One message that continues a conversation: the plan its turn walks, what the user sent (as
    recorded: the text, or the steps as YAML) and who answers it (MODEL or TOOL)."""

    plan: Plan
    text: str
    answered_by: str


class TurnHost(Protocol):
    """What the turns need of their run (run.py's RunHandle): its inbox, and its stoppable work."""

    conversation: Conversation | None

    @property
    def stop_reason(self) -> StopReason | None: ...

    async def as_work(self, work: Coroutine[Any, Any, T], timeout: float | None = None, *, during: str = "") -> T: ...


class NotOngoing(Exception):
    """The conversation is not waiting for a message: it is in a turn, or has ended."""


class Conversation:
    """The inbox of a conversation: its next turn or its end, handed over on the run's loop.
    `idle_seconds`: how long it waits in `ongoing` before it ends `conversation_idle` (None: no limit)."""

    def __init__(self, idle_seconds: float | None = None) -> None:
        self.idle_seconds = idle_seconds
        self.turn = 1
        self.ongoing = False
        self._inbox: asyncio.Queue[Turn | None] = asyncio.Queue()

    def send(self, turn: Turn) -> int:
        """Start the next turn of a conversation that waits; its number. NotOngoing otherwise."""
        if not self.ongoing:
            raise NotOngoing()
        self.ongoing = False
        self.turn += 1
        self._inbox.put_nowait(turn)
        return self.turn

    def end(self) -> None:
        """End a conversation that waits, with its last turn's verdict. NotOngoing otherwise."""
        if not self.ongoing:
            raise NotOngoing()
        self.ongoing = False
        self._inbox.put_nowait(None)

    async def next_message(self) -> Turn | None:
        """The next turn, or None for the end; asyncio.TimeoutError after `idle_seconds`, from
        when on the conversation takes no message."""
        try:
            return await asyncio.wait_for(self._inbox.get(), self.idle_seconds)
        except asyncio.TimeoutError:
            if not self._inbox.empty():  # sent while the wait was being called off: it was accepted
                return self._inbox.get_nowait()
            self.ongoing = False
            raise


async def walk_turns(handle: TurnHost, walk: PlanWalk, events: EventLog, session_of: Callable[[], BrowserSession | None]) -> tuple[RunEnd, bool]:
    """Walk the run's plan, and for a conversation each turn after it; how the run ends, and
    whether its own task was cancelled (a server shutdown)."""
    conversation = handle.conversation
    if conversation is None:
        return await walk_plan(handle, walk, session_of)
    walk.context.goes_on = True
    events.emit(ConversationMessage(turn=1, role=USER, text=str(walk.context.values.get("goal", walk.plan.goal))))
    answered_by = TOOL
    while True:
        end, cancelled = await walk_plan(handle, walk, session_of)
        if cancelled or handle.stop_reason is not None or end.stop_reason in ENDS_CONVERSATION:
            return end, cancelled
        number = conversation.turn
        events.emit(ConversationMessage(turn=number, role=answered_by, text=end.summary, stop_reason=end.stop_reason, verified=end.stop_reason is StopReason.COMPLETED))
        conversation.ongoing = True
        events.emit(StatusChanged(status=TaskState.ONGOING, detail=f"turn {number} ended {end.stop_reason.value}; waiting for the next message"))
        try:
            turn = await handle.as_work(conversation.next_message(), during=" while the conversation waited for a message")
        except asyncio.TimeoutError:
            idle = f"no message came within the conversation idle timeout ({conversation.idle_seconds:g}s)"
            return RunEnd(StopReason.CONVERSATION_IDLE, f"{idle}; turn {number}: {end.summary}"), False
        except RunStopped as stopped:
            conversation.ongoing = False
            return RunEnd(stopped.reason, stopped.detail), False
        except asyncio.CancelledError:
            conversation.ongoing = False
            return RunEnd(StopReason.INTERRUPTED, "the run was interrupted (its task was cancelled)"), True
        if turn is None:
            return replace(end, summary=f"the conversation ended after {number} turn(s); turn {number}: {end.summary}"), False
        events.emit(ConversationMessage(turn=conversation.turn, role=USER, text=turn.text))
        events.emit(StatusChanged(status=TaskState.RUNNING, detail=f"turn {conversation.turn}"))
        walk, answered_by = next_turn(walk, turn.plan), turn.answered_by


def next_turn(walk: PlanWalk, plan: Plan) -> PlanWalk:
    """The walk of a turn's plan in the run's context: the same session, tabs, values, network
    fence, intent guard, approvals and secrets; the turn's own findings, replans and loops, and
    guards.max_steps steps of its own (counted on from the run's, so step records stay in order)."""
    ctx = walk.context
    used = ctx.budget.used
    ctx.plan = plan
    ctx.findings = RunFindings()
    ctx.loops = LoopFrames()
    ctx.recovery = Recovery(plan.limits.max_replans)
    ctx.budget = StepBudget(used + plan.limits.max_steps, executed=ctx.budget.executed, agent_calls=ctx.budget.agent_calls)
    ctx.tools = ToolGate(plan.tools, ctx.guard, ctx.events, ctx.tools.approvals, ctx.tools.action_ids)
    ctx.model = ModelAccess(plan, ctx.model.make_telemetry, ctx.model.secrets, ctx.model.driven)
    ctx.login = login_means(plan)
    return PlanWalk(ctx)


async def walk_plan(handle: TurnHost, walk: PlanWalk, session_of: Callable[[], BrowserSession | None]) -> tuple[RunEnd, bool]:
    """One walk of a plan within guards.timeouts.run_ms, as the run's stoppable work."""
    timeout_ms = walk.plan.limits.run_timeout_ms
    try:
        return await handle.as_work(walk.walk(), timeout_ms / 1000), False
    except asyncio.TimeoutError:
        end = RunEnd(StopReason.TIMEOUT, f"the run exceeded guards.timeouts.run_ms ({timeout_ms} ms)")
        session = session_of()
        if session is not None and await session.browser.is_gone():
            # The run's deadline does not win over a dead browser: that is why it ran out.
            end = RunEnd(StopReason.BROWSER_CRASHED, f"the browser died or disconnected; {end.summary}")
        return end, False
    except RunStopped as stopped:
        # A guard, a denied approval, a dead browser, or a stop by request.
        return RunEnd(stopped.reason, stopped.detail, stopped.blocker_kind, stopped.evidence), False
    except asyncio.CancelledError:
        # Our own task was cancelled (server shutdown): the walk is stopped, the run still ends honestly.
        return RunEnd(StopReason.INTERRUPTED, "the run was interrupted (its task was cancelled)"), True
