import datetime

from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TaskState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TASK_STATE_UNSPECIFIED: _ClassVar[TaskState]
    TASK_STATE_CREATED: _ClassVar[TaskState]
    TASK_STATE_RUNNING: _ClassVar[TaskState]
    TASK_STATE_WAITING_FOR_USER_CONFIRMATION: _ClassVar[TaskState]
    TASK_STATE_ONGOING: _ClassVar[TaskState]
    TASK_STATE_COMPLETED: _ClassVar[TaskState]
    TASK_STATE_ERROR: _ClassVar[TaskState]
    TASK_STATE_STOPPED: _ClassVar[TaskState]
    TASK_STATE_WAITING_FOR_BROWSER_SELECTION: _ClassVar[TaskState]

class StopReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STOP_REASON_UNSPECIFIED: _ClassVar[StopReason]
    STOP_REASON_COMPLETED: _ClassVar[StopReason]
    STOP_REASON_VERIFICATION_FAILED: _ClassVar[StopReason]
    STOP_REASON_TOOL_POLICY_BLOCKED: _ClassVar[StopReason]
    STOP_REASON_INTENT_EXECUTION_FAILED: _ClassVar[StopReason]
    STOP_REASON_NO_PROGRESS: _ClassVar[StopReason]
    STOP_REASON_REPLANS_EXHAUSTED: _ClassVar[StopReason]
    STOP_REASON_MAX_STEPS_EXCEEDED: _ClassVar[StopReason]
    STOP_REASON_TIMEOUT: _ClassVar[StopReason]
    STOP_REASON_OUTPUT_INVALID: _ClassVar[StopReason]
    STOP_REASON_APPROVAL_DENIED: _ClassVar[StopReason]
    STOP_REASON_MANUAL_STOP: _ClassVar[StopReason]
    STOP_REASON_BROWSER_CRASHED: _ClassVar[StopReason]
    STOP_REASON_EXECUTE_ERROR: _ClassVar[StopReason]
    STOP_REASON_INTERRUPTED: _ClassVar[StopReason]
    STOP_REASON_INVALID_INPUT: _ClassVar[StopReason]
    STOP_REASON_BROWSER_UNAVAILABLE: _ClassVar[StopReason]
    STOP_REASON_CONVERSATION_IDLE: _ClassVar[StopReason]

class BlockerKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BLOCKER_KIND_UNSPECIFIED: _ClassVar[BlockerKind]
    BLOCKER_KIND_PAGE_NOT_FOUND: _ClassVar[BlockerKind]
    BLOCKER_KIND_ACCESS_DENIED: _ClassVar[BlockerKind]
    BLOCKER_KIND_ACCESS_BLOCKED: _ClassVar[BlockerKind]
    BLOCKER_KIND_SERVER_ERROR: _ClassVar[BlockerKind]
    BLOCKER_KIND_STATUS_MISMATCH: _ClassVar[BlockerKind]
    BLOCKER_KIND_DOMAIN_NOT_ALLOWED: _ClassVar[BlockerKind]
    BLOCKER_KIND_KEYWORDS_MISSING: _ClassVar[BlockerKind]
    BLOCKER_KIND_NAVIGATION_FAILED: _ClassVar[BlockerKind]
    BLOCKER_KIND_NO_SEARCH_RESULTS: _ClassVar[BlockerKind]
    BLOCKER_KIND_EXTRACTION_FAILED: _ClassVar[BlockerKind]
    BLOCKER_KIND_QUOTE_FETCH_FAILED: _ClassVar[BlockerKind]
    BLOCKER_KIND_SCHEME_NOT_ALLOWED: _ClassVar[BlockerKind]
    BLOCKER_KIND_LOGIN_REQUIRED: _ClassVar[BlockerKind]
    BLOCKER_KIND_CAPTCHA: _ClassVar[BlockerKind]
    BLOCKER_KIND_RATE_LIMITED: _ClassVar[BlockerKind]
TASK_STATE_UNSPECIFIED: TaskState
TASK_STATE_CREATED: TaskState
TASK_STATE_RUNNING: TaskState
TASK_STATE_WAITING_FOR_USER_CONFIRMATION: TaskState
TASK_STATE_ONGOING: TaskState
TASK_STATE_COMPLETED: TaskState
TASK_STATE_ERROR: TaskState
TASK_STATE_STOPPED: TaskState
TASK_STATE_WAITING_FOR_BROWSER_SELECTION: TaskState
STOP_REASON_UNSPECIFIED: StopReason
STOP_REASON_COMPLETED: StopReason
STOP_REASON_VERIFICATION_FAILED: StopReason
STOP_REASON_TOOL_POLICY_BLOCKED: StopReason
STOP_REASON_INTENT_EXECUTION_FAILED: StopReason
STOP_REASON_NO_PROGRESS: StopReason
STOP_REASON_REPLANS_EXHAUSTED: StopReason
STOP_REASON_MAX_STEPS_EXCEEDED: StopReason
STOP_REASON_TIMEOUT: StopReason
STOP_REASON_OUTPUT_INVALID: StopReason
STOP_REASON_APPROVAL_DENIED: StopReason
STOP_REASON_MANUAL_STOP: StopReason
STOP_REASON_BROWSER_CRASHED: StopReason
STOP_REASON_EXECUTE_ERROR: StopReason
STOP_REASON_INTERRUPTED: StopReason
STOP_REASON_INVALID_INPUT: StopReason
STOP_REASON_BROWSER_UNAVAILABLE: StopReason
STOP_REASON_CONVERSATION_IDLE: StopReason
BLOCKER_KIND_UNSPECIFIED: BlockerKind
BLOCKER_KIND_PAGE_NOT_FOUND: BlockerKind
BLOCKER_KIND_ACCESS_DENIED: BlockerKind
BLOCKER_KIND_ACCESS_BLOCKED: BlockerKind
BLOCKER_KIND_SERVER_ERROR: BlockerKind
BLOCKER_KIND_STATUS_MISMATCH: BlockerKind
BLOCKER_KIND_DOMAIN_NOT_ALLOWED: BlockerKind
BLOCKER_KIND_KEYWORDS_MISSING: BlockerKind
BLOCKER_KIND_NAVIGATION_FAILED: BlockerKind
BLOCKER_KIND_NO_SEARCH_RESULTS: BlockerKind
BLOCKER_KIND_EXTRACTION_FAILED: BlockerKind
BLOCKER_KIND_QUOTE_FETCH_FAILED: BlockerKind
BLOCKER_KIND_SCHEME_NOT_ALLOWED: BlockerKind
BLOCKER_KIND_LOGIN_REQUIRED: BlockerKind
BLOCKER_KIND_CAPTCHA: BlockerKind
BLOCKER_KIND_RATE_LIMITED: BlockerKind

class Event(_message.Message):
    __slots__ = ("seq", "run_id", "timestamp", "trace_id", "status_changed", "step_started", "step_finished", "tool_used", "chat_delta", "guardrail_tripped", "replan", "confirmation_requested", "artifact", "structured_output", "final_verdict", "tab", "webhook", "message")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_CHANGED_FIELD_NUMBER: _ClassVar[int]
    STEP_STARTED_FIELD_NUMBER: _ClassVar[int]
    STEP_FINISHED_FIELD_NUMBER: _ClassVar[int]
    TOOL_USED_FIELD_NUMBER: _ClassVar[int]
    CHAT_DELTA_FIELD_NUMBER: _ClassVar[int]
    GUARDRAIL_TRIPPED_FIELD_NUMBER: _ClassVar[int]
    REPLAN_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATION_REQUESTED_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    STRUCTURED_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    FINAL_VERDICT_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    seq: int
    run_id: str
    timestamp: _timestamp_pb2.Timestamp
    trace_id: str
    status_changed: StatusChanged
    step_started: StepStarted
    step_finished: StepFinished
    tool_used: ToolUsed
    chat_delta: ChatDelta
    guardrail_tripped: GuardrailTripped
    replan: Replanned
    confirmation_requested: ConfirmationRequested
    artifact: ArtifactStored
    structured_output: StructuredOutput
    final_verdict: FinalVerdict
    tab: TabChanged
    webhook: WebhookDelivery
    message: ConversationMessage
    def __init__(self, seq: _Optional[int] = ..., run_id: _Optional[str] = ..., timestamp: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., trace_id: _Optional[str] = ..., status_changed: _Optional[_Union[StatusChanged, _Mapping]] = ..., step_started: _Optional[_Union[StepStarted, _Mapping]] = ..., step_finished: _Optional[_Union[StepFinished, _Mapping]] = ..., tool_used: _Optional[_Union[ToolUsed, _Mapping]] = ..., chat_delta: _Optional[_Union[ChatDelta, _Mapping]] = ..., guardrail_tripped: _Optional[_Union[GuardrailTripped, _Mapping]] = ..., replan: _Optional[_Union[Replanned, _Mapping]] = ..., confirmation_requested: _Optional[_Union[ConfirmationRequested, _Mapping]] = ..., artifact: _Optional[_Union[ArtifactStored, _Mapping]] = ..., structured_output: _Optional[_Union[StructuredOutput, _Mapping]] = ..., final_verdict: _Optional[_Union[FinalVerdict, _Mapping]] = ..., tab: _Optional[_Union[TabChanged, _Mapping]] = ..., webhook: _Optional[_Union[WebhookDelivery, _Mapping]] = ..., message: _Optional[_Union[ConversationMessage, _Mapping]] = ...) -> None: ...

class AgentState(_message.Message):
    __slots__ = ("thinking", "evaluation", "memory", "next_goal")
    THINKING_FIELD_NUMBER: _ClassVar[int]
    EVALUATION_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    NEXT_GOAL_FIELD_NUMBER: _ClassVar[int]
    thinking: str
    evaluation: str
    memory: str
    next_goal: str
    def __init__(self, thinking: _Optional[str] = ..., evaluation: _Optional[str] = ..., memory: _Optional[str] = ..., next_goal: _Optional[str] = ...) -> None: ...

class StatusChanged(_message.Message):
    __slots__ = ("status", "detail", "browser_id")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    BROWSER_ID_FIELD_NUMBER: _ClassVar[int]
    status: TaskState
    detail: str
    browser_id: str
    def __init__(self, status: _Optional[_Union[TaskState, str]] = ..., detail: _Optional[str] = ..., browser_id: _Optional[str] = ...) -> None: ...

class StepStarted(_message.Message):
    __slots__ = ("state_id", "step_kind", "attempt", "tab_id")
    STATE_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_KIND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    TAB_ID_FIELD_NUMBER: _ClassVar[int]
    state_id: str
    step_kind: str
    attempt: int
    tab_id: str
    def __init__(self, state_id: _Optional[str] = ..., step_kind: _Optional[str] = ..., attempt: _Optional[int] = ..., tab_id: _Optional[str] = ...) -> None: ...

class StepFinished(_message.Message):
    __slots__ = ("state_id", "step_kind", "outcome", "ok", "verified", "duration_ms", "observation_summary", "blocker_kind", "agent_state", "error")
    STATE_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_KIND_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    OK_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    BLOCKER_KIND_FIELD_NUMBER: _ClassVar[int]
    AGENT_STATE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    state_id: str
    step_kind: str
    outcome: str
    ok: bool
    verified: bool
    duration_ms: float
    observation_summary: str
    blocker_kind: BlockerKind
    agent_state: AgentState
    error: str
    def __init__(self, state_id: _Optional[str] = ..., step_kind: _Optional[str] = ..., outcome: _Optional[str] = ..., ok: _Optional[bool] = ..., verified: _Optional[bool] = ..., duration_ms: _Optional[float] = ..., observation_summary: _Optional[str] = ..., blocker_kind: _Optional[_Union[BlockerKind, str]] = ..., agent_state: _Optional[_Union[AgentState, _Mapping]] = ..., error: _Optional[str] = ...) -> None: ...

class ToolUsed(_message.Message):
    __slots__ = ("tool", "action_id", "phase", "summary", "error_code", "tab_id")
    TOOL_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    TAB_ID_FIELD_NUMBER: _ClassVar[int]
    tool: str
    action_id: str
    phase: str
    summary: str
    error_code: str
    tab_id: str
    def __init__(self, tool: _Optional[str] = ..., action_id: _Optional[str] = ..., phase: _Optional[str] = ..., summary: _Optional[str] = ..., error_code: _Optional[str] = ..., tab_id: _Optional[str] = ...) -> None: ...

class TabChanged(_message.Message):
    __slots__ = ("change", "tab_id", "url", "opener_tab_id", "state_id", "primary_tab_id", "name")
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    TAB_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    OPENER_TAB_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_ID_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_TAB_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    change: str
    tab_id: str
    url: str
    opener_tab_id: str
    state_id: str
    primary_tab_id: str
    name: str
    def __init__(self, change: _Optional[str] = ..., tab_id: _Optional[str] = ..., url: _Optional[str] = ..., opener_tab_id: _Optional[str] = ..., state_id: _Optional[str] = ..., primary_tab_id: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class WebhookDelivery(_message.Message):
    __slots__ = ("webhook_id", "url", "attempt", "outcome", "status_code", "error", "retry_in_seconds")
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    STATUS_CODE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    RETRY_IN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    webhook_id: str
    url: str
    attempt: int
    outcome: str
    status_code: int
    error: str
    retry_in_seconds: float
    def __init__(self, webhook_id: _Optional[str] = ..., url: _Optional[str] = ..., attempt: _Optional[int] = ..., outcome: _Optional[str] = ..., status_code: _Optional[int] = ..., error: _Optional[str] = ..., retry_in_seconds: _Optional[float] = ...) -> None: ...

class ConversationMessage(_message.Message):
    __slots__ = ("turn", "role", "text", "stop_reason", "verified")
    TURN_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    turn: int
    role: str
    text: str
    stop_reason: StopReason
    verified: bool
    def __init__(self, turn: _Optional[int] = ..., role: _Optional[str] = ..., text: _Optional[str] = ..., stop_reason: _Optional[_Union[StopReason, str]] = ..., verified: _Optional[bool] = ...) -> None: ...

class ChatDelta(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class GuardrailTripped(_message.Message):
    __slots__ = ("guard", "blocker_kind", "detail", "evidence")
    GUARD_FIELD_NUMBER: _ClassVar[int]
    BLOCKER_KIND_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    guard: str
    blocker_kind: BlockerKind
    detail: str
    evidence: _struct_pb2.Struct
    def __init__(self, guard: _Optional[str] = ..., blocker_kind: _Optional[_Union[BlockerKind, str]] = ..., detail: _Optional[str] = ..., evidence: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class Replanned(_message.Message):
    __slots__ = ("attempt", "blocker_kind", "failure_summary", "query", "url")
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    BLOCKER_KIND_FIELD_NUMBER: _ClassVar[int]
    FAILURE_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    attempt: int
    blocker_kind: BlockerKind
    failure_summary: str
    query: str
    url: str
    def __init__(self, attempt: _Optional[int] = ..., blocker_kind: _Optional[_Union[BlockerKind, str]] = ..., failure_summary: _Optional[str] = ..., query: _Optional[str] = ..., url: _Optional[str] = ...) -> None: ...

class ConfirmationRequested(_message.Message):
    __slots__ = ("request_id", "tool", "summary", "params", "state_id")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    STATE_ID_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    tool: str
    summary: str
    params: _struct_pb2.Struct
    state_id: str
    def __init__(self, request_id: _Optional[str] = ..., tool: _Optional[str] = ..., summary: _Optional[str] = ..., params: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., state_id: _Optional[str] = ...) -> None: ...

class ArtifactStored(_message.Message):
    __slots__ = ("artifact_id", "artifact_kind", "path", "media_type", "size", "sha256")
    ARTIFACT_ID_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_KIND_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    artifact_id: str
    artifact_kind: str
    path: str
    media_type: str
    size: int
    sha256: str
    def __init__(self, artifact_id: _Optional[str] = ..., artifact_kind: _Optional[str] = ..., path: _Optional[str] = ..., media_type: _Optional[str] = ..., size: _Optional[int] = ..., sha256: _Optional[str] = ...) -> None: ...

class StructuredOutput(_message.Message):
    __slots__ = ("data", "valid", "errors")
    DATA_FIELD_NUMBER: _ClassVar[int]
    VALID_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    data: _struct_pb2.Struct
    valid: bool
    errors: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., valid: _Optional[bool] = ..., errors: _Optional[_Iterable[str]] = ...) -> None: ...

class FinalVerdict(_message.Message):
    __slots__ = ("status", "stop_reason", "verified", "summary", "blocker_kind", "evidence", "browser_id")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    BLOCKER_KIND_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    BROWSER_ID_FIELD_NUMBER: _ClassVar[int]
    status: TaskState
    stop_reason: StopReason
    verified: bool
    summary: str
    blocker_kind: BlockerKind
    evidence: _struct_pb2.Struct
    browser_id: str
    def __init__(self, status: _Optional[_Union[TaskState, str]] = ..., stop_reason: _Optional[_Union[StopReason, str]] = ..., verified: _Optional[bool] = ..., summary: _Optional[str] = ..., blocker_kind: _Optional[_Union[BlockerKind, str]] = ..., evidence: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., browser_id: _Optional[str] = ...) -> None: ...
