import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from runtime.service.gen.verity.v1 import events_pb2 as _events_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BrowserState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BROWSER_STATE_UNSPECIFIED: _ClassVar[BrowserState]
    BROWSER_STATE_READY: _ClassVar[BrowserState]
    BROWSER_STATE_BUSY: _ClassVar[BrowserState]
    BROWSER_STATE_LOST: _ClassVar[BrowserState]
    BROWSER_STATE_REFUSED_BY_FENCE_PROBE: _ClassVar[BrowserState]
BROWSER_STATE_UNSPECIFIED: BrowserState
BROWSER_STATE_READY: BrowserState
BROWSER_STATE_BUSY: BrowserState
BROWSER_STATE_LOST: BrowserState
BROWSER_STATE_REFUSED_BY_FENCE_PROBE: BrowserState

class RunOptions(_message.Message):
    __slots__ = ("timeout", "labels", "browser_id", "browser_label", "webhook_url", "conversation", "switches")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class SwitchesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    BROWSER_ID_FIELD_NUMBER: _ClassVar[int]
    BROWSER_LABEL_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_URL_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_FIELD_NUMBER: _ClassVar[int]
    SWITCHES_FIELD_NUMBER: _ClassVar[int]
    timeout: _duration_pb2.Duration
    labels: _containers.ScalarMap[str, str]
    browser_id: str
    browser_label: str
    webhook_url: str
    conversation: bool
    switches: _containers.ScalarMap[str, str]
    def __init__(self, timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., labels: _Optional[_Mapping[str, str]] = ..., browser_id: _Optional[str] = ..., browser_label: _Optional[str] = ..., webhook_url: _Optional[str] = ..., conversation: _Optional[bool] = ..., switches: _Optional[_Mapping[str, str]] = ...) -> None: ...

class StartRunRequest(_message.Message):
    __slots__ = ("recipe_yaml", "recipe_name", "inputs", "options", "idempotency_key")
    class InputsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    RECIPE_YAML_FIELD_NUMBER: _ClassVar[int]
    RECIPE_NAME_FIELD_NUMBER: _ClassVar[int]
    INPUTS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    recipe_yaml: str
    recipe_name: str
    inputs: _containers.ScalarMap[str, str]
    options: RunOptions
    idempotency_key: str
    def __init__(self, recipe_yaml: _Optional[str] = ..., recipe_name: _Optional[str] = ..., inputs: _Optional[_Mapping[str, str]] = ..., options: _Optional[_Union[RunOptions, _Mapping]] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class StartRunResponse(_message.Message):
    __slots__ = ("run_id", "trace_id")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    trace_id: str
    def __init__(self, run_id: _Optional[str] = ..., trace_id: _Optional[str] = ...) -> None: ...

class StreamRunRequest(_message.Message):
    __slots__ = ("run_id", "after_seq")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    after_seq: int
    def __init__(self, run_id: _Optional[str] = ..., after_seq: _Optional[int] = ...) -> None: ...

class StreamRunResponse(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.Event]
    def __init__(self, events: _Optional[_Iterable[_Union[_events_pb2.Event, _Mapping]]] = ...) -> None: ...

class RunRequest(_message.Message):
    __slots__ = ("recipe_yaml", "recipe_name", "inputs", "options", "idempotency_key")
    class InputsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    RECIPE_YAML_FIELD_NUMBER: _ClassVar[int]
    RECIPE_NAME_FIELD_NUMBER: _ClassVar[int]
    INPUTS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    recipe_yaml: str
    recipe_name: str
    inputs: _containers.ScalarMap[str, str]
    options: RunOptions
    idempotency_key: str
    def __init__(self, recipe_yaml: _Optional[str] = ..., recipe_name: _Optional[str] = ..., inputs: _Optional[_Mapping[str, str]] = ..., options: _Optional[_Union[RunOptions, _Mapping]] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class RunResponse(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.Event]
    def __init__(self, events: _Optional[_Iterable[_Union[_events_pb2.Event, _Mapping]]] = ...) -> None: ...

class ConfirmActionRequest(_message.Message):
    __slots__ = ("run_id", "request_id", "approve", "reason")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    APPROVE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    request_id: str
    approve: bool
    reason: str
    def __init__(self, run_id: _Optional[str] = ..., request_id: _Optional[str] = ..., approve: _Optional[bool] = ..., reason: _Optional[str] = ...) -> None: ...

class ConfirmActionResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: RunInfo
    def __init__(self, run: _Optional[_Union[RunInfo, _Mapping]] = ...) -> None: ...

class StopRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class StopRunResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: RunInfo
    def __init__(self, run: _Optional[_Union[RunInfo, _Mapping]] = ...) -> None: ...

class GetRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class GetArtifactRequest(_message.Message):
    __slots__ = ("run_id", "artifact_id", "chunk_bytes")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_ID_FIELD_NUMBER: _ClassVar[int]
    CHUNK_BYTES_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    artifact_id: str
    chunk_bytes: int
    def __init__(self, run_id: _Optional[str] = ..., artifact_id: _Optional[str] = ..., chunk_bytes: _Optional[int] = ...) -> None: ...

class GetRunFileRequest(_message.Message):
    __slots__ = ("run_id", "name", "chunk_bytes")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CHUNK_BYTES_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    name: str
    chunk_bytes: int
    def __init__(self, run_id: _Optional[str] = ..., name: _Optional[str] = ..., chunk_bytes: _Optional[int] = ...) -> None: ...

class GetRunFileResponse(_message.Message):
    __slots__ = ("artifact", "offset", "data")
    ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    artifact: ArtifactInfo
    offset: int
    data: bytes
    def __init__(self, artifact: _Optional[_Union[ArtifactInfo, _Mapping]] = ..., offset: _Optional[int] = ..., data: _Optional[bytes] = ...) -> None: ...

class GetArtifactResponse(_message.Message):
    __slots__ = ("artifact", "offset", "data")
    ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    artifact: ArtifactInfo
    offset: int
    data: bytes
    def __init__(self, artifact: _Optional[_Union[ArtifactInfo, _Mapping]] = ..., offset: _Optional[int] = ..., data: _Optional[bytes] = ...) -> None: ...

class GetRunResponse(_message.Message):
    __slots__ = ("run", "artifacts", "pending_confirmations", "artifacts_omitted", "verdict_figures")
    RUN_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    PENDING_CONFIRMATIONS_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_OMITTED_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIGURES_FIELD_NUMBER: _ClassVar[int]
    run: RunInfo
    artifacts: _containers.RepeatedCompositeFieldContainer[ArtifactInfo]
    pending_confirmations: _containers.RepeatedCompositeFieldContainer[_events_pb2.ConfirmationRequested]
    artifacts_omitted: int
    verdict_figures: _struct_pb2.Struct
    def __init__(self, run: _Optional[_Union[RunInfo, _Mapping]] = ..., artifacts: _Optional[_Iterable[_Union[ArtifactInfo, _Mapping]]] = ..., pending_confirmations: _Optional[_Iterable[_Union[_events_pb2.ConfirmationRequested, _Mapping]]] = ..., artifacts_omitted: _Optional[int] = ..., verdict_figures: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ListRunsRequest(_message.Message):
    __slots__ = ("statuses", "recipe_name", "page_size", "page_token")
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    RECIPE_NAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    statuses: _containers.RepeatedScalarFieldContainer[_events_pb2.TaskState]
    recipe_name: str
    page_size: int
    page_token: str
    def __init__(self, statuses: _Optional[_Iterable[_Union[_events_pb2.TaskState, str]]] = ..., recipe_name: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListRunsResponse(_message.Message):
    __slots__ = ("runs", "next_page_token")
    RUNS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    runs: _containers.RepeatedCompositeFieldContainer[RunInfo]
    next_page_token: str
    def __init__(self, runs: _Optional[_Iterable[_Union[RunInfo, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class RunInfo(_message.Message):
    __slots__ = ("run_id", "recipe_name", "recipe_version", "status", "stop_reason", "verified", "summary", "trace_id", "inputs", "labels", "create_time", "update_time", "end_time", "last_seq", "earliest_seq", "browser_id")
    class InputsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    RECIPE_NAME_FIELD_NUMBER: _ClassVar[int]
    RECIPE_VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    INPUTS_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    EARLIEST_SEQ_FIELD_NUMBER: _ClassVar[int]
    BROWSER_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    recipe_name: str
    recipe_version: str
    status: _events_pb2.TaskState
    stop_reason: _events_pb2.StopReason
    verified: bool
    summary: str
    trace_id: str
    inputs: _containers.ScalarMap[str, str]
    labels: _containers.ScalarMap[str, str]
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    last_seq: int
    earliest_seq: int
    browser_id: str
    def __init__(self, run_id: _Optional[str] = ..., recipe_name: _Optional[str] = ..., recipe_version: _Optional[str] = ..., status: _Optional[_Union[_events_pb2.TaskState, str]] = ..., stop_reason: _Optional[_Union[_events_pb2.StopReason, str]] = ..., verified: _Optional[bool] = ..., summary: _Optional[str] = ..., trace_id: _Optional[str] = ..., inputs: _Optional[_Mapping[str, str]] = ..., labels: _Optional[_Mapping[str, str]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_seq: _Optional[int] = ..., earliest_seq: _Optional[int] = ..., browser_id: _Optional[str] = ...) -> None: ...

class ArtifactInfo(_message.Message):
    __slots__ = ("artifact_id", "artifact_kind", "path", "media_type", "size", "sha256", "seq")
    ARTIFACT_ID_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_KIND_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    artifact_id: str
    artifact_kind: str
    path: str
    media_type: str
    size: int
    sha256: str
    seq: int
    def __init__(self, artifact_id: _Optional[str] = ..., artifact_kind: _Optional[str] = ..., path: _Optional[str] = ..., media_type: _Optional[str] = ..., size: _Optional[int] = ..., sha256: _Optional[str] = ..., seq: _Optional[int] = ...) -> None: ...

class SendMessageRequest(_message.Message):
    __slots__ = ("run_id", "text", "steps_yaml")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    STEPS_YAML_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    text: str
    steps_yaml: str
    def __init__(self, run_id: _Optional[str] = ..., text: _Optional[str] = ..., steps_yaml: _Optional[str] = ...) -> None: ...

class SendMessageResponse(_message.Message):
    __slots__ = ("run", "turn")
    RUN_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    run: RunInfo
    turn: int
    def __init__(self, run: _Optional[_Union[RunInfo, _Mapping]] = ..., turn: _Optional[int] = ...) -> None: ...

class EndRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class EndRunResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: RunInfo
    def __init__(self, run: _Optional[_Union[RunInfo, _Mapping]] = ...) -> None: ...

class ListMessagesRequest(_message.Message):
    __slots__ = ("run_id", "page_size", "page_token")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    page_size: int
    page_token: str
    def __init__(self, run_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListMessagesResponse(_message.Message):
    __slots__ = ("messages", "next_page_token")
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[_events_pb2.Event]
    next_page_token: str
    def __init__(self, messages: _Optional[_Iterable[_Union[_events_pb2.Event, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListBrowsersRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BrowserInfo(_message.Message):
    __slots__ = ("browser_id", "labels", "state", "active_runs", "capacity", "endpoint")
    BROWSER_ID_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_RUNS_FIELD_NUMBER: _ClassVar[int]
    CAPACITY_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    browser_id: str
    labels: _containers.RepeatedScalarFieldContainer[str]
    state: BrowserState
    active_runs: int
    capacity: int
    endpoint: str
    def __init__(self, browser_id: _Optional[str] = ..., labels: _Optional[_Iterable[str]] = ..., state: _Optional[_Union[BrowserState, str]] = ..., active_runs: _Optional[int] = ..., capacity: _Optional[int] = ..., endpoint: _Optional[str] = ...) -> None: ...

class ListBrowsersResponse(_message.Message):
    __slots__ = ("browsers", "runs_waiting")
    BROWSERS_FIELD_NUMBER: _ClassVar[int]
    RUNS_WAITING_FIELD_NUMBER: _ClassVar[int]
    browsers: _containers.RepeatedCompositeFieldContainer[BrowserInfo]
    runs_waiting: int
    def __init__(self, browsers: _Optional[_Iterable[_Union[BrowserInfo, _Mapping]]] = ..., runs_waiting: _Optional[int] = ...) -> None: ...
