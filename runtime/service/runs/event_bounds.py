"""Every event a client sees fits one gRPC message; what is cut stays whole in the run directory.

A page can yield a 5 MB field, an agent a huge summary, a tool a huge result. Sent as they are,
one such event breaks every stream of the run (and, copied into the run record, GetRun and
ListRuns for every client). So before an event is stored or sent, `EventBounder.bound`:

1. cuts every text value longer than `max_field_bytes`, wherever it is (a payload field, a value
   deep in `evidence`, `params` or `data`, an agent note), to its head plus a marker naming the
   artifact that holds the whole value:
   `<head>… [cut: 5242880 bytes; full value: artifacts/event_field/<hash>.txt]`
2. if the event is still larger than `max_event_bytes` (many medium values), moves its largest
   fields out whole, largest first: a text field becomes its marker, a mapping becomes
   `{"cut": {"bytes": N, "artifact": "artifacts/event_field/<hash>.json", "sha256": ...}}`.

Full values are content-addressed artifacts (`ArtifactStore`, kind `event_field`) written before
the event is stored, so a marker never names a file that is not there. Paths inside the run
directory are made relative to it: replies never show the server's directory layout.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path, PurePath
from typing import Any

from runtime.artifacts import ArtifactRef, ArtifactStore
from runtime.events import ArtifactStored, Event
from runtime.events.model import field_names

CUT_ARTIFACT_KIND = "event_field"
# Room a marker needs after the head of a cut text.
_MARKER_ROOM = 160
# The head kept of a text moved out in the second pass: enough to recognise it.
_SECOND_PASS_HEAD = 200


@dataclass(frozen=True)
class EventLimits:
    """How large one event and one text value in it may be, in UTF-8 bytes."""

    max_event_bytes: int
    max_field_bytes: int

    @classmethod
    def for_message_size(cls, max_message_bytes: int) -> EventLimits:
        # A stream response carries at least one event plus framing; a quarter of the message
        # limit leaves room for proto overhead (Struct values cost more than their JSON).
        event = max_message_bytes // 4
        return cls(max_event_bytes=event, max_field_bytes=max(1024, min(64 * 1024, event // 16)))


@dataclass(frozen=True)
class BoundedEvent:
    event: Event
    # Artifacts written for the values that were cut, to be indexed with the event's seq.
    cuts: tuple[ArtifactRef, ...] = ()


def utf8_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def cut_text(text: str, max_bytes: int, note: str) -> str:
    """`text` itself when it fits in `max_bytes`, else its head and `… [note]` within that size."""
    if utf8_size(text) <= max_bytes:
        return text
    suffix = f"… [{note}]"
    room = max(0, max_bytes - utf8_size(suffix))
    head = text.encode("utf-8")[:room].decode("utf-8", errors="ignore")
    return head + suffix


class EventBounder:
    """Bounds the events of one run; cut values go to `run_dir/artifacts/event_field/`."""

    def __init__(self, limits: EventLimits, run_dir: Path) -> None:
        self.limits = limits
        self.run_dir = run_dir
        self._prefixes = tuple(dict.fromkeys((f"{run_dir}{os.sep}", f"{run_dir.resolve()}{os.sep}")))
        self._artifacts: ArtifactStore | None = None  # most runs never cut anything

    def bound(self, event: Event) -> BoundedEvent:
        payload = event.payload
        cuts: list[ArtifactRef] = []
        changes: dict[str, Any] = {}
        upper = 0  # an upper bound of the event's size, to skip measuring the many small events
        for name in field_names(type(payload)):
            value = getattr(payload, name)
            shrunk, size = self._shrink(value, cuts)
            upper += size
            if shrunk is not value:
                changes[name] = shrunk
        if isinstance(payload, ArtifactStored):
            changes["path"] = self.run_relative(payload.path)
        if changes:
            payload = dataclasses.replace(payload, **changes)
        if upper > self.limits.max_event_bytes and _size(payload) > self.limits.max_event_bytes:
            payload = self._move_out_largest(payload, cuts)
        if payload is event.payload:
            return BoundedEvent(event)
        return BoundedEvent(dataclasses.replace(event, payload=payload), tuple(cuts))

    def run_relative(self, path: str) -> str:
        """A path inside the run directory relative to it; any other path as its file name only."""
        for prefix in self._prefixes:
            if path.startswith(prefix):
                return path[len(prefix) :]
        return PurePath(path).name if os.path.isabs(path) else path

    # --- pass 1: long text values, wherever they are ---------------------------------------------

    def _shrink(self, value: Any, cuts: list[ArtifactRef]) -> tuple[Any, int]:
        """`value` with long texts cut and run paths made relative, and an upper bound of its size."""
        if isinstance(value, str):
            # 4 bytes per character bound the UTF-8 size without encoding the text.
            if len(value) * 4 > self.limits.max_field_bytes and utf8_size(value) > self.limits.max_field_bytes:
                value = self._cut(value, self.limits.max_field_bytes, cuts)
            elif value.startswith(self._prefixes):
                value = self.run_relative(value)
            return value, len(value) * 4 + 2
        if isinstance(value, (bool, int, float, Enum)) or value is None:
            return value, 8
        if isinstance(value, PurePath):
            return self._shrink(str(value), cuts)  # the stream sends it as text (proto_mapping._json_safe)
        if isinstance(value, dict):
            total, shrunk = 2, {}
            for key, item in value.items():
                shrunk[key], size = self._shrink(item, cuts)
                total += size + len(str(key)) * 4 + 4
            return (shrunk if any(shrunk[k] is not value[k] for k in value) else value), total
        if isinstance(value, (list, tuple)):
            total, items = 2, []
            for item in value:
                new, size = self._shrink(item, cuts)
                items.append(new)
                total += size + 2
            return (type(value)(items) if any(a is not b for a, b in zip(items, value)) else value), total
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            total, changes = 0, {}
            for name in field_names(type(value)):
                item = getattr(value, name)
                new, size = self._shrink(item, cuts)
                total += size + 2
                if new is not item:
                    changes[name] = new
            return (dataclasses.replace(value, **changes) if changes else value), total
        return value, 8

    # --- pass 2: the largest fields, until the event fits -------------------------------------

    def _move_out_largest(self, payload: Any, cuts: list[ArtifactRef]) -> Any:
        # Candidates: top-level fields, and the fields of a nested dataclass (the agent's notes).
        pieces: list[tuple[int, str, str | None]] = []
        for field in dataclasses.fields(payload):
            value = getattr(payload, field.name)
            if dataclasses.is_dataclass(value) and not isinstance(value, type):
                pieces += [(_size(getattr(value, f.name)), field.name, f.name) for f in dataclasses.fields(value)]
            elif isinstance(value, (str, dict, list, tuple)):
                pieces.append((_size(value), field.name, None))
        total = _size(payload)
        for size, name, inner in sorted(pieces, reverse=True):
            if total <= self.limits.max_event_bytes:
                break
            holder = getattr(payload, name) if inner else payload
            attribute = inner or name
            moved = self._move_out(getattr(holder, attribute), cuts)
            holder = dataclasses.replace(holder, **{attribute: moved})
            payload = holder if inner is None else dataclasses.replace(payload, **{name: holder})
            total -= size - _size(moved)
        return payload

    def _move_out(self, value: Any, cuts: list[ArtifactRef]) -> Any:
        if _size(value) <= _SECOND_PASS_HEAD + _MARKER_ROOM:
            return value  # its marker would not be smaller
        if isinstance(value, str):
            return self._cut(value, _SECOND_PASS_HEAD + _MARKER_ROOM, cuts)
        data = json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":")).encode("utf-8")
        ref = self._store(data, "application/json", cuts)
        marker = {"bytes": len(data), "artifact": self.run_relative(ref.path), "sha256": ref.sha256}
        if isinstance(value, dict):
            return {"cut": marker}
        return type(value)([f"[cut: {len(data)} bytes; full value: {marker['artifact']}]"])

    def _cut(self, text: str, max_bytes: int, cuts: list[ArtifactRef]) -> str:
        data = text.encode("utf-8")
        ref = self._store(data, "text/plain", cuts)
        return cut_text(text, max_bytes, f"cut: {len(data)} bytes; full value: {self.run_relative(ref.path)}")

    def _store(self, data: bytes, media_type: str, cuts: list[ArtifactRef]) -> ArtifactRef:
        if self._artifacts is None:
            self._artifacts = ArtifactStore(self.run_dir)
        ref = self._artifacts.put(CUT_ARTIFACT_KIND, data, media_type)
        cuts.append(ref)
        return ref


def _size(value: Any) -> int:
    """Roughly the bytes `value` takes in an event (UTF-8 text, 8 per number, framing per item)."""
    if isinstance(value, str):
        return utf8_size(value) + 2
    if isinstance(value, PurePath):
        return utf8_size(str(value)) + 2
    if isinstance(value, dict):
        return sum(utf8_size(str(key)) + _size(item) + 4 for key, item in value.items()) + 2
    if isinstance(value, (list, tuple)):
        return sum(_size(item) + 2 for item in value) + 2
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(_size(getattr(value, f.name)) + 2 for f in dataclasses.fields(value))
    return 8
