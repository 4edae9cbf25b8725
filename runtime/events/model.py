"""Event payloads. Each payload class has a stable `KIND`, which is also its gRPC oneof field name.

Payloads are plain frozen dataclasses of JSON-friendly values so that the event log, the run
directory's events.jsonl, the SQLite store and the gRPC mapping all share one shape.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Union

from runtime.outcomes import BlockerKind, StopReason, TaskState


@dataclass(frozen=True)
class AgentState:
    """Seed 001's planner notes for a step, rendered by UIs as an "Evaluate" card."""

    thinking: str = ""
    evaluation: str = ""
    memory: str = ""
    next_goal: str = ""


@dataclass(frozen=True)
class StatusChanged:
    KIND: ClassVar[str] = "status_changed"
    status: TaskState
    detail: str = ""
    browser_id: str = ""  # the browser the run got (ListBrowsers' id), on the event saying so


@dataclass(frozen=True)
class StepStarted:
    KIND: ClassVar[str] = "step_started"
    state_id: str
    step_kind: str
    attempt: int = 1
    tab_id: str = ""  # the tab the state acts in ("" before the run has a browser)


@dataclass(frozen=True)
class StepFinished:
    KIND: ClassVar[str] = "step_finished"
    state_id: str
    step_kind: str
    outcome: str
    ok: bool
    verified: bool
    duration_ms: float
    observation_summary: str = ""
    blocker_kind: BlockerKind | None = None
    agent_state: AgentState = field(default_factory=AgentState)
    error: str = ""


@dataclass(frozen=True)
class ToolUsed:
    KIND: ClassVar[str] = "tool_used"
    tool: str
    action_id: str
    phase: str  # "start" | "success" | "error" | "blocked"
    summary: str = ""
    error_code: str = ""
    tab_id: str = ""  # the tab the tool acts in; "" for a tool that acts in none


@dataclass(frozen=True)
class TabChanged:
    """A change to the run's tabs (the design notes' twin sync): a tab `opened` (by the state
    `state_id`, from `opener_tab_id`), `navigated` to `url`, `closed`, or made the `primary` tab,
    the one steps act in unless they name another. `primary_tab_id` is the primary tab after
    the change; `name` is what the recipe calls the tab (a step's `as`), once it has one."""

    KIND: ClassVar[str] = "tab"
    change: str  # "opened" | "navigated" | "closed" | "primary"
    tab_id: str
    url: str = ""
    opener_tab_id: str = ""
    state_id: str = ""
    primary_tab_id: str = ""
    name: str = ""


@dataclass(frozen=True)
class ChatDelta:
    KIND: ClassVar[str] = "chat_delta"
    text: str


@dataclass(frozen=True)
class GuardrailTripped:
    KIND: ClassVar[str] = "guardrail_tripped"
    guard: str
    blocker_kind: BlockerKind | None
    detail: str
    evidence: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Replanned:
    KIND: ClassVar[str] = "replan"
    attempt: int
    blocker_kind: BlockerKind | None
    failure_summary: str
    query: str = ""
    url: str = ""


@dataclass(frozen=True)
class ConfirmationRequested:
    KIND: ClassVar[str] = "confirmation_requested"
    request_id: str
    tool: str
    summary: str
    params: dict[str, Any] = field(default_factory=dict)
    # The plan state (the recipe step, or the agent step calling the tool) that waits for it.
    state_id: str = ""


@dataclass(frozen=True)
class ArtifactStored:
    KIND: ClassVar[str] = "artifact"
    artifact_id: str
    artifact_kind: str
    path: str
    media_type: str
    size: int
    sha256: str = ""


@dataclass(frozen=True)
class StructuredOutput:
    KIND: ClassVar[str] = "structured_output"
    data: dict[str, Any]
    valid: bool
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class FinalVerdict:
    KIND: ClassVar[str] = "final_verdict"
    status: TaskState
    stop_reason: StopReason
    verified: bool
    summary: str
    blocker_kind: BlockerKind | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    browser_id: str = ""  # the browser the run used; "" when it never opened one


@dataclass(frozen=True)
class WebhookDelivery:
    """One attempt to deliver the run's terminal state to a webhook (runtime/service/runs/webhooks.py),
    recorded after the final verdict, which it never changes. `outcome`: "delivered" (a 2xx answer),
    "retrying" (another attempt follows in `retry_in_seconds`), "failed" (the last attempt failed),
    "refused" (the network policy refused the URL: nothing was sent) or "abandoned" (the server shut
    down before it was delivered). `url` is shown without its query and user info."""

    KIND: ClassVar[str] = "webhook"
    webhook_id: str
    url: str
    attempt: int
    outcome: str
    status_code: int = 0
    error: str = ""
    retry_in_seconds: float = 0.0


@dataclass(frozen=True)
class ConversationMessage:
    """One message of a conversation (runtime/execute/conversation.py): what a user sent for turn
    `turn` (role "user"), or the turn's answer (role "model" for a text turn an agent step
    answered, "tool" for a turn of recipe steps), whose `stop_reason` and `verified` say how the
    turn ended."""

    KIND: ClassVar[str] = "message"
    turn: int
    role: str
    text: str
    stop_reason: StopReason | None = None
    verified: bool = False


EventPayload = Union[
    StatusChanged,
    StepStarted,
    StepFinished,
    ToolUsed,
    ChatDelta,
    GuardrailTripped,
    Replanned,
    ConfirmationRequested,
    ArtifactStored,
    StructuredOutput,
    FinalVerdict,
    TabChanged,
    WebhookDelivery,
    ConversationMessage,
]

PAYLOAD_TYPES: dict[str, type] = {
    cls.KIND: cls
    for cls in (
        StatusChanged,
        StepStarted,
        StepFinished,
        ToolUsed,
        ChatDelta,
        GuardrailTripped,
        Replanned,
        ConfirmationRequested,
        ArtifactStored,
        StructuredOutput,
        FinalVerdict,
        TabChanged,
        WebhookDelivery,
        ConversationMessage,
    )
}

_ENUM_FIELDS: dict[str, type] = {
    "status": TaskState,
    "stop_reason": StopReason,
    "blocker_kind": BlockerKind,
}


@dataclass(frozen=True)
class Event:
    """One entry of a run's event log. `seq` starts at 1 and has no gaps within a run."""

    seq: int
    run_id: str
    timestamp_ns: int
    trace_id: str
    payload: EventPayload

    @property
    def kind(self) -> str:
        return self.payload.KIND

    @property
    def is_final(self) -> bool:
        return isinstance(self.payload, FinalVerdict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "run_id": self.run_id,
            "timestamp_ns": self.timestamp_ns,
            "trace_id": self.trace_id,
            "kind": self.kind,
            "payload": payload_to_dict(self.payload),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        return cls(
            seq=int(data["seq"]),
            run_id=str(data["run_id"]),
            timestamp_ns=int(data["timestamp_ns"]),
            trace_id=str(data.get("trace_id", "")),
            payload=payload_from_dict(str(data["kind"]), data["payload"]),
        )


def payload_to_dict(payload: EventPayload) -> dict[str, Any]:
    return {name: plain(getattr(payload, name)) for name in field_names(type(payload))}


_ENUMS = (TaskState, StopReason, BlockerKind)
_SCALARS = frozenset({str, int, float, bool, type(None)})
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """The field names of a dataclass type, looked up once: this runs for every event."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def plain(value: Any) -> Any:
    """`value` as JSON-ready data, copied: dataclasses become dicts, tuples lists, our outcome
    enums their values; other values are kept as they are. It does what `dataclasses.asdict`
    does for these values, without asdict's deep copy of every leaf (events and executions.json
    records are converted many times a run)."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, _ENUMS):  # str enums: checked before str-like containers and scalars
        return value.value
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: plain(getattr(value, name)) for name in field_names(type(value))}
    return value


def payload_from_dict(kind: str, data: dict[str, Any]) -> EventPayload:
    cls = PAYLOAD_TYPES.get(kind)
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r}")
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        if f.name in _ENUM_FIELDS and value is not None:
            value = _ENUM_FIELDS[f.name](value)
        elif f.name == "agent_state" and isinstance(value, dict):
            value = AgentState(**value)
        elif f.name == "errors":
            value = tuple(value)
        values[f.name] = value
    return cls(**values)
