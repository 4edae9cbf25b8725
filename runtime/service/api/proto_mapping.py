"""Conversions between runtime values (events, run records, problems) and verity.v1 messages.

Payload dataclasses map onto proto messages field by field, by name: the proto is the payload
model written down as a public contract. `check_payload_mapping()` fails loudly when the two drift.
"""

from __future__ import annotations

import dataclasses
import math
from enum import Enum
from typing import Any

from google.protobuf import struct_pb2, timestamp_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from runtime.browser.supply.endpoint_specs import BrowserDescription
from runtime.events import AgentState, Event
from runtime.events.model import PAYLOAD_TYPES, field_names
from runtime.outcomes import BlockerKind, StopReason, TaskState
from runtime.recipe import Problem
from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb
from runtime.service.gen.verity.v1 import events_pb2 as events_pb
from runtime.service.gen.verity.v1 import recipe_service_pb2 as recipe_pb
from runtime.service.runs.event_bounds import cut_text, utf8_size
from runtime.service.runs.ledger import RECORD_SUMMARY_BYTES
from runtime.store import ArtifactRecord, RunRecord

# Python enum -> (proto enum wrapper, value-name prefix). Proto values are PREFIX + member name.
_ENUMS: dict[type[Enum], tuple[Any, str]] = {
    TaskState: (events_pb.TaskState, "TASK_STATE_"),
    StopReason: (events_pb.StopReason, "STOP_REASON_"),
    BlockerKind: (events_pb.BlockerKind, "BLOCKER_KIND_"),
}
# Payload field name -> its enum type, for the fields typed as enums (the rest are plain values).
_ENUM_FIELDS: dict[str, type[Enum]] = {"status": TaskState, "stop_reason": StopReason, "blocker_kind": BlockerKind}


def enum_to_proto(value: Enum | None) -> int:
    """A runtime enum member as its proto number; None as UNSPECIFIED (0)."""
    if value is None:
        return 0
    wrapper, prefix = _ENUMS[type(value)]
    return int(wrapper.Value(prefix + value.name))


def enum_from_proto(enum_type: type[Enum], number: int) -> Any:
    """A proto enum number as the runtime member; UNSPECIFIED (0) as None."""
    if number == 0:
        return None
    wrapper, prefix = _ENUMS[enum_type]
    return enum_type[wrapper.Name(number).removeprefix(prefix)]


def timestamp_from_ns(ns: int) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromNanoseconds(ns)
    return stamp


# --- events -------------------------------------------------------------------------------------


def event_to_proto(event: Event) -> events_pb.Event:
    message = events_pb.Event(
        seq=event.seq,
        run_id=event.run_id,
        timestamp=timestamp_from_ns(event.timestamp_ns),
        trace_id=event.trace_id,
    )
    _fill_message(getattr(message, event.kind), event.payload)
    return message


def event_from_proto(message: events_pb.Event) -> Event:
    kind = message.WhichOneof("payload")
    if kind is None:
        raise ValueError(f"event seq {message.seq} of run {message.run_id!r} has no payload")
    payload_type = PAYLOAD_TYPES[kind]
    return Event(
        seq=message.seq,
        run_id=message.run_id,
        timestamp_ns=message.timestamp.ToNanoseconds(),
        trace_id=message.trace_id,
        payload=_read_message(getattr(message, kind), payload_type),
    )


def _fill_message(target: Message, source: Any) -> None:
    for name in field_names(type(source)):
        value = getattr(source, name)
        if name in _ENUM_FIELDS:
            setattr(target, name, enum_to_proto(value))
        elif isinstance(value, AgentState):
            _fill_message(getattr(target, name), value)
        elif isinstance(value, dict):
            getattr(target, name).update(_json_safe(value))
        elif isinstance(value, (list, tuple)):
            getattr(target, name).extend(value)
        else:
            setattr(target, name, value)


def _read_message(source: Message, payload_type: type) -> Any:
    values: dict[str, Any] = {}
    for f in dataclasses.fields(payload_type):
        value = getattr(source, f.name)
        if f.name in _ENUM_FIELDS:
            values[f.name] = enum_from_proto(_ENUM_FIELDS[f.name], value)
        elif f.name == "agent_state":
            values[f.name] = _read_message(value, AgentState)
        elif isinstance(value, struct_pb2.Struct):
            values[f.name] = struct_to_dict(value)
        elif f.name == "errors":
            values[f.name] = tuple(value)
        else:
            values[f.name] = value
    return payload_type(**values)


def struct_to_dict(struct: struct_pb2.Struct) -> dict[str, Any]:
    return {key: _value_to_python(value) for key, value in struct.fields.items()}


def _value_to_python(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return struct_to_dict(value.struct_value)
    if kind == "list_value":
        return [_value_to_python(v) for v in value.list_value.values]
    if kind == "number_value":
        number = value.number_value
        # Struct has one number type (double). Payload values are mostly counts and ids, so an
        # integral number comes back as int; 2.0 and 2 are the same JSON value anyway.
        return int(number) if math.isfinite(number) and number.is_integer() and abs(number) < 2**53 else number
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    return None


def _json_safe(value: Any) -> Any:
    """Struct accepts only JSON values: enums become their names, tuples lists, others strings."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def check_payload_mapping() -> list[str]:
    """Mismatches between the payload dataclasses and the proto messages (empty when 1:1)."""
    problems: list[str] = []
    oneof = events_pb.Event.DESCRIPTOR.oneofs_by_name["payload"]
    oneof_names = {f.name for f in oneof.fields}
    for kind, payload_type in PAYLOAD_TYPES.items():
        if kind not in oneof_names:
            problems.append(f"Event.payload has no field {kind!r} for {payload_type.__name__}")
            continue
        descriptor = events_pb.Event.DESCRIPTOR.fields_by_name[kind].message_type
        dataclass_fields = {f.name for f in dataclasses.fields(payload_type)}
        proto_fields = set(descriptor.fields_by_name)
        for name in sorted(dataclass_fields - proto_fields):
            problems.append(f"{descriptor.full_name} lacks field {name!r} of {payload_type.__name__}")
        for name in sorted(proto_fields - dataclass_fields):
            problems.append(f"{descriptor.full_name}.{name} has no counterpart in {payload_type.__name__}")
        for name in sorted(dataclass_fields & proto_fields):
            is_enum = descriptor.fields_by_name[name].type == FieldDescriptor.TYPE_ENUM
            if is_enum != (name in _ENUM_FIELDS):
                problems.append(f"{descriptor.full_name}.{name}: enum-ness differs from the payload field")
    for kind in sorted(oneof_names - set(PAYLOAD_TYPES)):
        problems.append(f"Event.payload field {kind!r} has no payload dataclass")
    for enum_type, (wrapper, prefix) in _ENUMS.items():
        proto_names = {name.removeprefix(prefix) for name in wrapper.keys()} - {"UNSPECIFIED"}
        runtime_names = {member.name for member in enum_type}
        if proto_names != runtime_names:
            problems.append(
                f"{enum_type.__name__}: proto lacks {sorted(runtime_names - proto_names)}, "
                f"runtime lacks {sorted(proto_names - runtime_names)}"
            )
    return problems


# --- runs, artifacts, recipe problems -----------------------------------------------------------


# The longest input or label value a run record shows before bounding it further.
RUN_INFO_VALUE_BYTES = 4096


def run_info_to_proto(run: RunRecord, max_bytes: int | None = None) -> agent_pb.RunInfo:
    """The run as a RunInfo of at most `max_bytes`: long values are cut, shorter and shorter."""
    value_bytes = RUN_INFO_VALUE_BYTES
    info = _run_info(run, value_bytes)
    while max_bytes is not None and info.ByteSize() > max_bytes and value_bytes > 16:
        value_bytes //= 4
        info = _run_info(run, value_bytes)
    if max_bytes is not None and info.ByteSize() > max_bytes:
        # Too many entries even with every value cut: say how many, show none.
        info.ClearField("inputs")
        info.ClearField("labels")
        if run.inputs:
            info.inputs["…"] = f"[cut: {len(run.inputs)} inputs]"
        if run.labels:
            info.labels["…"] = f"[cut: {len(run.labels)} labels]"
    return info


def _run_info(run: RunRecord, value_bytes: int) -> agent_pb.RunInfo:
    def bounded(values: dict[str, str]) -> dict[str, str]:
        return {key: cut_text(value, value_bytes, f"cut: {utf8_size(value)} bytes") for key, value in values.items()}

    info = agent_pb.RunInfo(
        run_id=run.run_id,
        recipe_name=run.recipe_name,
        recipe_version=run.recipe_version,
        status=enum_to_proto(run.status),
        stop_reason=enum_to_proto(run.stop_reason),
        verified=run.verified,
        summary=cut_text(run.summary, RECORD_SUMMARY_BYTES, "the whole summary is in the run's final verdict event"),
        trace_id=run.trace_id,
        inputs=bounded(run.inputs),
        labels=bounded(run.labels),
        create_time=timestamp_from_ns(run.created_ns),
        update_time=timestamp_from_ns(run.updated_ns),
        last_seq=run.last_seq,
        earliest_seq=run.earliest_seq,
        browser_id=run.browser_id,
    )
    if run.ended_ns is not None:
        info.end_time.CopyFrom(timestamp_from_ns(run.ended_ns))
    return info


def browser_to_proto(browser: BrowserDescription) -> agent_pb.BrowserInfo:
    return agent_pb.BrowserInfo(
        browser_id=browser.browser_id,
        labels=browser.labels,
        state=agent_pb.BrowserState.Value(f"BROWSER_STATE_{browser.state.name}"),
        active_runs=browser.active_runs,
        capacity=browser.capacity,
        endpoint=browser.endpoint,
    )


def artifact_to_proto(artifact: ArtifactRecord) -> agent_pb.ArtifactInfo:
    return agent_pb.ArtifactInfo(
        artifact_id=artifact.artifact_id,
        artifact_kind=artifact.artifact_kind,
        path=artifact.path,
        media_type=artifact.media_type,
        size=artifact.size,
        sha256=artifact.sha256,
        seq=artifact.seq,
    )


def confirmation_to_proto(payload: Any) -> events_pb.ConfirmationRequested:
    message = events_pb.ConfirmationRequested()
    _fill_message(message, payload)
    return message


def problem_to_proto(problem: Problem) -> recipe_pb.RecipeProblem:
    return recipe_pb.RecipeProblem(
        source=problem.source,
        line=problem.line,
        column=problem.col,
        field_path=problem.path,
        message=problem.message,
        code=problem.code,
    )
