"""May this tool run now? tools.allow, then the intent guard; and, for tools that need it, a
person's approval. A refusal or a denial stops the run (tool_policy_blocked, approval_denied)."""

from __future__ import annotations

import itertools
import json
from typing import Any

from runtime.events import ConfirmationRequested, EventLog, GuardrailTripped, StatusChanged, ToolUsed
from runtime.execute.context.action_ids import ActionIds
from runtime.execute.context.approvals import ApprovalDesk
from runtime.execute.step_outcome import RunStopped
from runtime.guard import IntentGuard
from runtime.outcomes import StopReason, TaskState
from runtime.plan.model import State, ToolPolicy
from runtime.plan.state_kinds import ACT, NAVIGATE


class ToolGate:
    def __init__(self, policy: ToolPolicy, guard: IntentGuard, events: EventLog, approvals: ApprovalDesk, action_ids: ActionIds) -> None:
        self.policy = policy
        self.guard = guard
        self.events = events
        self.approvals = approvals
        self.action_ids = action_ids
        self._approval_numbers = itertools.count(1)

    def authorize(self, tool: str, needed_by: str) -> None:
        """tools.allow, then the intent guard; a refusal stops the run with tool_policy_blocked."""
        allowed = self.policy.allowed
        if allowed is not None and tool not in allowed:
            detail = f"{tool} (needed by {needed_by}) is not in tools.allow ({', '.join(allowed) or 'empty'}); add it there or change the step"
            self.trip(tool, detail, "tools.allow")
            raise RunStopped(StopReason.TOOL_POLICY_BLOCKED, detail, evidence={"tool": tool, "allowed": allowed})
        decision = self.guard.before_tool(tool)
        if not decision.allowed:
            self.trip(tool, decision.detail, "intentGuard")
            raise RunStopped(
                decision.stop_reason or StopReason.TOOL_POLICY_BLOCKED, decision.detail, evidence={"tool": tool, "scope": decision.scope}
            )

    def trip(self, tool: str, detail: str, guard: str) -> None:
        """Record a refused tool call: a blocked ToolUsed and the guardrail that refused it."""
        self.events.emit(ToolUsed(tool=tool, action_id=self.action_ids.new(tool), phase="blocked", summary=detail, error_code="tool_policy_blocked"))
        self.events.emit(GuardrailTripped(guard=guard, blocker_kind=None, detail=detail, evidence={"tool": tool}))

    def needs_approval(self, tool: str) -> bool:
        return tool in self.policy.needs_approval

    async def approve_state(self, state: State, params: dict[str, Any]) -> None:
        """Ask a person before a plan state runs; `params` are the state's, filled in."""
        if state.kind == NAVIGATE:
            described = f"open {params.get('url')}"
        elif state.kind == ACT:
            described = "act " + json.dumps(params, ensure_ascii=False)[:200]
        else:
            described = json.dumps(params, ensure_ascii=False)[:200]
        await self.approve(state.tool or state.kind, f"{state.kind} {state.id}: {described}", params, state.id)

    async def approve(self, tool: str, summary: str, params: dict[str, Any], needed_by: str) -> None:
        """ConfirmationRequested, then wait for a person; a denial stops the run with approval_denied."""
        request = ConfirmationRequested(
            request_id=f"{self.action_ids.run_id}:approve:{next(self._approval_numbers)}",
            tool=tool,
            summary=summary,
            params=params,
            state_id=needed_by,
        )
        answer_future = self.approvals.open(request)
        self.events.emit(request)
        self.events.emit(StatusChanged(status=TaskState.WAITING_FOR_USER_CONFIRMATION, detail=request.summary))
        try:
            answer = await answer_future
        finally:
            self.approvals.close(request.request_id)
        if not answer.approved:
            raise RunStopped(
                StopReason.APPROVAL_DENIED,
                f"{request.tool} for {needed_by} was denied" + (f": {answer.reason}" if answer.reason else ""),
                evidence={"request_id": request.request_id, "tool": tool},
            )
        self.events.emit(StatusChanged(status=TaskState.RUNNING, detail=f"approved {request.request_id}"))
