"""The values a run finds, as later steps reference them: `{steps.<step_id>.<field>}` and
`{vars.<name>}` (runtime/template/references.py). Each value is kept with its source record (the
state that produced it, the page it was read from and when), never as a bare string.

Writers: the walker records a state's outputs (extract fields, an evaluate result, a loop's
count); `set` and `for_each` give variables; an agent step writes the values its model extracted
through `record_step`, like any other step.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from runtime.template.references import STEPS, VARS


@dataclass(frozen=True)
class ValueRecord:
    """One value and where it came from: `source` holds `state` (the executed state, `[i]` in a
    loop), `url` and `document` (the page read, when one was) and `at` (seconds since the epoch)."""

    value: Any
    source: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "source": dict(self.source)}


@dataclass
class ValueStore:
    steps: dict[str, dict[str, ValueRecord]] = field(default_factory=dict)
    vars: dict[str, ValueRecord] = field(default_factory=dict)
    # Inside a for_each over elements: the loop variable -> the driver target of the current element.
    elements: dict[str, dict[str, Any]] = field(default_factory=dict)

    def record_step(self, step_id: str, values: Mapping[str, Any], source: Mapping[str, Any]) -> None:
        """A step's values, replacing those of its earlier execution (a loop's previous item)."""
        stamped = {"at": round(time.time(), 3), **source}
        self.steps[step_id] = {name: ValueRecord(value, stamped) for name, value in values.items()}

    def record_step_fields(self, step_id: str, values: Mapping[str, tuple[Any, Mapping[str, Any]]]) -> None:
        """A step's values, each with its own source; replaces its earlier execution's, as record_step."""
        at = round(time.time(), 3)
        self.steps[step_id] = {name: ValueRecord(value, {"at": at, **source}) for name, (value, source) in values.items()}

    def set_var(self, name: str, value: Any, source: Mapping[str, Any]) -> None:
        self.vars[name] = ValueRecord(value, {"at": round(time.time(), 3), **source})

    def lookup(self, name: str) -> ValueRecord:
        """The record a reference names. Raises KeyError (with the reference) when it has none:
        the loader proves every reference defined, so only an agent's missing field gets here."""
        scope, _, rest = name.partition(".")
        if scope == STEPS:
            step_id, _, field_name = rest.partition(".")
            return self.steps[step_id][field_name]
        if scope == VARS:
            return self.vars[rest]
        raise KeyError(name)

    def snapshot(self) -> dict[str, Any]:
        """Every value with its source, for the run's records."""
        return {
            STEPS: {step: {name: record.to_dict() for name, record in values.items()} for step, values in self.steps.items()},
            VARS: {name: record.to_dict() for name, record in self.vars.items()},
        }


class FillValues(Mapping[str, Any]):
    """What `fill` looks names up in: the run's inputs and built-ins, then references."""

    def __init__(self, plain: Mapping[str, Any], store: ValueStore) -> None:
        self._plain = plain
        self._store = store

    def __getitem__(self, name: str) -> Any:
        if name in self._plain:
            return self._plain[name]
        return self._store.lookup(name).value

    def __iter__(self) -> Iterator[str]:
        return iter(self._plain)

    def __len__(self) -> int:
        return len(self._plain)
