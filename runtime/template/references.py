"""How recipe text names values a run found: `{steps.<step_id>.<field>}` and `{vars.<name>}`.

- `{steps.read.price}`: the field `price` an `extract` step with id `read` read (`text` for its
  readable text), an `evaluate` step's `result` (and its declared `fields`), a `for_each` step's
  `count`, or a value an `agent` step's model extracted.
- `{vars.price}`: a variable given by a `set` step, or a `for_each` loop's item (`{vars.<as>}`,
  `{vars.<as>_index}`).

A reference is a placeholder like `{name}` (same braces, same `{{`/`}}` escapes); the loader
checks each one statically (references_check.py) and the run fills it from its value store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

STEPS = "steps"
VARS = "vars"

_STEP_REFERENCE = re.compile(r"^steps\.([a-z][a-z0-9_-]{0,63})\.([A-Za-z_][A-Za-z0-9_]*)$")
_VAR_REFERENCE = re.compile(r"^vars\.([a-z_][a-z0-9_]{0,63})$")


@dataclass(frozen=True)
class Reference:
    """One parsed reference: `scope` is `steps` (with `step` and `field`) or `vars` (with `name`)."""

    scope: str
    step: str = ""
    field: str = ""
    name: str = ""

    @property
    def text(self) -> str:
        return f"{STEPS}.{self.step}.{self.field}" if self.scope == STEPS else f"{VARS}.{self.name}"


def is_reference(name: str) -> bool:
    """Does this placeholder name look like a reference (it starts with `steps.` or `vars.`)?"""
    return name.startswith((STEPS + ".", VARS + "."))


def parse_reference(name: str) -> Reference:
    """The reference a placeholder name spells. Raises ValueError, saying the right form, when it
    starts like one but is not."""
    step = _STEP_REFERENCE.match(name)
    if step:
        return Reference(STEPS, step=step.group(1), field=step.group(2))
    var = _VAR_REFERENCE.match(name)
    if var:
        return Reference(VARS, name=var.group(1))
    raise ValueError(f"bad reference {{{name}}}: write {{steps.<step_id>.<field>}} or {{vars.<name>}}")


def single_placeholder(text: str) -> str | None:
    """The placeholder name when `text` is exactly one placeholder (`"{steps.read.price}"`), else None.
    Such a value keeps its type when filled (a number stays a number, a list a list)."""
    match = re.fullmatch(r"\{([^{}=][^{}]*)\}", text)  # `{= ...}` is an expression, not a name
    return match.group(1) if match else None
