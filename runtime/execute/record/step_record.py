"""The record of the state being executed: StepStarted, its span, the executions.json entry that
collects the state's tool results and agent turns while it runs, and StepFinished at the end."""

from __future__ import annotations

import os
import time
from dataclasses import asdict
from typing import Any

from opentelemetry.trace import Span

from runtime.events import AgentState, ArtifactStored, Event, EventLog, StepFinished, StepStarted, TabChanged
from runtime.events.model import payload_to_dict
from runtime.execute.record.run_files import ExecutionRecord, RunFiles
from runtime.execute.record.spans import RunSpans
from runtime.execute.step_outcome import StepResult
from runtime.outcomes import StopReason
from runtime.plan.model import State
from runtime.plan.state_kinds import VERIFYING_KINDS


class StepRecorder:
    def __init__(self, events: EventLog, files: RunFiles, spans: RunSpans) -> None:
        self.events = events
        self.files = files
        self.spans = spans
        self.record: ExecutionRecord | None = None
        # The running state's span: agent turns are its children.
        self.span: Span | None = None
        self._began = 0.0
        # How often each state has started: its attempt number, without counting the records.
        self._attempts: dict[str, int] = {}
        events.add_listener(self._note_screenshot)
        events.add_listener(self._note_tab_change)

    def _note_screenshot(self, event: Event) -> None:
        """executions.json names the screenshot each state took, so a report can show the page."""
        payload = event.payload
        if isinstance(payload, ArtifactStored) and payload.artifact_kind == "screenshot" and self.record is not None:
            self.record.screenshot = os.path.relpath(payload.path, self.files.run_dir)

    def _note_tab_change(self, event: Event) -> None:
        """executions.json lists the tab changes (opened, navigated, closed, primary) during each state."""
        if isinstance(event.payload, TabChanged) and self.record is not None:
            self.record.tab_changes.append(payload_to_dict(event.payload))

    def start(self, index: int, state: State, *, tab_id: str = "") -> None:
        """A state begins, acting in `tab_id` ("" before the run has a browser)."""
        attempt = self._attempts[state.id] = self._attempts.get(state.id, 0) + 1
        self.span = self.spans.start_state(state.id, state.kind, attempt)
        self._began = time.perf_counter()
        self.record = ExecutionRecord(index=index, state_id=state.id, kind=state.kind, tool=state.tool, started_at=time.time(), tab_id=tab_id)
        self.events.emit(StepStarted(state_id=state.id, step_kind=state.kind, attempt=attempt, tab_id=tab_id))

    def add_tool_result(self, entry: dict[str, Any]) -> None:
        if self.record is not None:
            self.record.tool_results.append(entry)

    def add_agent_turn(self, turn: dict[str, Any]) -> None:
        if self.record is not None:
            self.record.agent_turns.append(turn)

    def finish(self, state: State, result: StepResult, *, memory: str, next_goal: str, stop_reason: StopReason | None = None) -> None:
        """Write the record, emit StepFinished and end the span; `stop_reason` when the state stopped the run."""
        record, span = self.record, self.span
        assert record is not None and span is not None
        duration = round((time.perf_counter() - self._began) * 1000, 1)
        agent_state = AgentState(thinking=result.thinking, evaluation=result.evaluation or result.summary, memory=memory, next_goal=next_goal)
        record.finished_at = time.time()
        record.duration_ms = duration
        record.outcome = result.outcome
        record.ok = result.ok
        record.verified = result.verified
        record.observation_summary = result.summary
        record.blocker_kind = result.blocker_kind.value if result.blocker_kind else None
        record.agent_state = asdict(agent_state)
        record.evidence = result.evidence
        record.error = result.error
        self.files.record_execution(record)
        self.events.emit(
            StepFinished(
                state_id=state.id,
                step_kind=state.kind,
                outcome=result.outcome,
                ok=result.ok,
                verified=result.verified,
                duration_ms=duration,
                observation_summary=result.summary,
                blocker_kind=result.blocker_kind,
                agent_state=agent_state,
                error=result.error,
            )
        )
        verified = result.verified if state.kind in VERIFYING_KINDS else None
        self.spans.end_state(span, result.outcome, result.blocker_kind, stop_reason, ok=result.ok, verified=verified)
