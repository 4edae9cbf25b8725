"""The run directory (seed 001 telemetry): what a run leaves behind for people and tools. Its
layout (which file holds what) is runtime/run_layout.py; this module writes the order, the events,
the plan, the executions, the output and the verdict (telemetry writes trace.jsonl, the report
report.html, the artifact store artifacts/).

Every file is written through the run's `Secrets`: a secret value is never written, only its
marker; events arrive already redacted (the event log redacts them), and plans.json is written
once more at the end, with every secret the run learned (a password typed midway).

JSON files are replaced atomically (write, then rename) so a reader never sees half a file and a
killed run keeps the last complete version.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from runtime.events import Event, FinalVerdict
from runtime.events.model import payload_to_dict, plain
from runtime.run_layout import ARTIFACTS_DIR, EVENTS_FILE, EXECUTIONS_FILE, ORDER_FILE, OUTPUT_FILE, PLANS_FILE, VERDICT_FILE
from runtime.secrets import Secrets


EXECUTIONS_WRITE_INTERVAL_S = 0.5


@dataclass
class ExecutionRecord:
    """One executed state, as executions.json lists it."""

    index: int
    state_id: str
    kind: str
    tool: str | None
    started_at: float
    finished_at: float = 0.0
    duration_ms: float = 0.0
    outcome: str = ""
    ok: bool = False
    verified: bool = False
    observation_summary: str = ""
    blocker_kind: str | None = None
    agent_state: dict[str, str] = field(default_factory=dict)
    tool_results: list[dict[str, Any]] = field(default_factory=list)
    agent_turns: list[dict[str, Any]] = field(default_factory=list)  # agent states: one entry per model turn
    evidence: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    # The last screenshot this state took, relative to the run directory (the page as the state left it).
    screenshot: str | None = None
    # A failed step whose on_failure path led on: {"reason": why it failed, "next": where the run went}.
    recovered: dict[str, str] | None = None
    # The tab the state acted in ("" before the run had a browser), and the tab changes during it.
    tab_id: str = ""
    tab_changes: list[dict[str, Any]] = field(default_factory=list)


def json_default(value: Any) -> Any:
    """Values JSON has no type for (a Path in free-form evidence) are written as their text.
    Dataclasses never get here: Event.to_dict() and plain() already turn them into objects."""
    return str(value)


# events.jsonl's encoder, made once: a run writes a line for every event.
_EVENT_LINE = json.JSONEncoder(ensure_ascii=False, default=json_default)


def write_json_atomically(path: Path, data: Any) -> None:
    write_text_atomically(path, json.dumps(data, indent=2, ensure_ascii=False, default=json_default) + "\n")


def write_text_atomically(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def indented_list(items: list[str]) -> str:
    """What `json.dumps(values, indent=2)` writes for a list, from each value's own
    `json.dumps(value, indent=2)`: a value's lines move in one level (JSON escapes every newline
    inside a string, so each newline in an encoded value is a line break of the layout)."""
    if not items:
        return "[]"
    return "[\n  " + ",\n  ".join(item.replace("\n", "\n  ") for item in items) + "\n]"


class RunFiles:
    """Writes one run's directory. `on_event` is an EventLog listener: cheap, never blocks long."""

    def __init__(self, run_dir: Path, secrets: Secrets | None = None) -> None:
        self.run_dir = run_dir
        self.secrets = secrets if secrets is not None else Secrets()
        self._plan_file: dict[str, Any] | None = None
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / ARTIFACTS_DIR).mkdir(exist_ok=True)
        self._events: IO[str] | None = open(run_dir / EVENTS_FILE, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self.executions: list[ExecutionRecord] = []
        self.plan_data: dict[str, Any] = {}
        self._serialized: dict[int, dict[str, Any]] = {}
        # Each record's JSON text, and the secrets it was redacted with: executions.json is
        # rewritten as the run goes, and encoding only the records that changed keeps that cheap
        # (json.dumps with indent runs in pure Python).
        self._encoded: dict[int, tuple[tuple[str, ...], str]] = {}
        self._dirty = False
        self._written_at = 0.0
        # The secrets' names when finish_records() last wrote the records, None before it did.
        self._finished_with: tuple[str, ...] | None = None

    def on_event(self, event: Event) -> None:
        if self._events is None:
            return
        self._events.write(_EVENT_LINE.encode(self.secrets.redact(event.to_dict())) + "\n")
        self._events.flush()

    def write_order(self, order_data: dict[str, Any]) -> None:
        """The run's order as it ran (its secret inputs already markers)."""
        self._write(self.run_dir / ORDER_FILE, order_data)

    def write_plan(self, plan_data: dict[str, Any], plan_repairs: list[dict[str, Any]], last_failure_summary: str) -> None:
        self.plan_data = plan_data
        self._plan_file = {"plan": plan_data, "plan_repairs": plan_repairs, "last_failure_summary": last_failure_summary}
        self._write(self.run_dir / PLANS_FILE, self._plan_file)

    def _write(self, path: Path, data: Any) -> None:
        write_json_atomically(path, self.secrets.redact(data))

    def record_execution(self, record: ExecutionRecord) -> None:
        """Add or update a finished state's record. The file is rewritten at most every
        EXECUTIONS_WRITE_INTERVAL_S (rewriting it after every state made long runs quadratic);
        `flush()` at the end of the run writes the final version."""
        if not self.executions or self.executions[-1] is not record:
            self.executions.append(record)
        self._serialized[id(record)] = self.secrets.redact(plain(record))
        self._encoded.pop(id(record), None)
        self._dirty = True
        if time.monotonic() - self._written_at >= EXECUTIONS_WRITE_INTERVAL_S:
            self.flush()

    def flush(self) -> None:
        if self._dirty:
            write_text_atomically(self.run_dir / EXECUTIONS_FILE, self._executions_text() + "\n")
            self._dirty = False
            self._written_at = time.monotonic()

    def _executions_text(self) -> str:
        """executions.json as `_write` would write it, re-encoding only records changed (or
        whose redaction changed: a secret learned since) since the last write."""
        known = tuple(self.secrets.names)
        texts = []
        for record in self.executions:
            key = id(record)
            if key not in self._serialized:
                continue
            encoded = self._encoded.get(key)
            if encoded is None or encoded[0] != known:
                text = json.dumps(self.secrets.redact(self._serialized[key]), indent=2, ensure_ascii=False, default=json_default)
                encoded = self._encoded[key] = (known, text)
            texts.append(encoded[1])
        return indented_list(texts)

    def write_output(self, data: dict[str, Any], valid: bool, errors: list[str]) -> None:
        self._write(self.run_dir / OUTPUT_FILE, {"data": data, "valid": valid, "errors": errors})

    def write_verdict(self, verdict: FinalVerdict, extra: dict[str, Any]) -> None:
        self._write(self.run_dir / VERDICT_FILE, {**payload_to_dict(verdict), **extra})

    def finish_records(self) -> None:
        """The run's last state is recorded: write executions.json and plans.json as they stay,
        redacted with every secret the run learned (the report is drafted from them)."""
        if self._plan_file is not None and self.secrets:
            self._write(self.run_dir / PLANS_FILE, self._plan_file)
        self._dirty = self._dirty or bool(self.secrets)
        self.flush()
        self._finished_with = tuple(self.secrets.names)

    def close(self) -> None:
        if self._finished_with != tuple(self.secrets.names):
            self.finish_records()  # not finished yet, or a secret was learned since
        else:
            self.flush()
        if self._events is not None:
            self._events.close()
            self._events = None
