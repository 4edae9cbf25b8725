"""Event payloads as the store keeps them: JSON text, written fast because every event is written."""

from __future__ import annotations

import dataclasses
import json

from runtime.events import Event
from runtime.events.model import field_names, payload_to_dict


def payload_json(event: Event) -> str:
    """The payload as the event model serialises it (`payload_to_dict`), written without its
    per-value walk: this runs for every event. Enums are `str` enums, so JSON writes their values;
    nested dataclasses (agent notes) become objects; free-form values JSON cannot hold (evidence,
    params) are stored as their text, as the gRPC stream sends them."""
    payload = event.payload
    fields = {name: getattr(payload, name) for name in field_names(type(payload))}
    return json.dumps(fields, separators=(",", ":"), ensure_ascii=False, default=_json_value)


def _json_value(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return payload_to_dict(value)  # type: ignore[arg-type]
    return str(value)

