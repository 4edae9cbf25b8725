"""`output.validate`: the extracted data against the recipe's output JSON Schema; output.json is
written either way, and only a valid output lets the run complete."""

from __future__ import annotations

from typing import Any

from runtime.events import StructuredOutput
from runtime.execute.context.run_context import RunContext
from runtime.execute.step_outcome import StepResult
from runtime.plan.model import State


async def validate_output(ctx: RunContext, state: State) -> StepResult:
    schema = ctx.plan.output_schema
    findings = ctx.findings
    if ctx.plan.output_values is not None:
        # output.values names the result key by key, from the values the run found.
        try:
            findings.data = ctx.values.value(ctx.plan.output_values)
        except KeyError as missing:
            findings.note_failure(f"output: no value {missing} was found")
            findings.output_valid = False
            return StepResult("invalid", False, summary=findings.failure)
    errors = schema_errors(schema, findings.data)
    findings.output_valid = not errors
    findings.output_errors = errors
    ctx.files.write_output(findings.data, findings.output_valid, errors)
    ctx.events.emit(StructuredOutput(data=dict(findings.data), valid=findings.output_valid, errors=tuple(errors)))
    if errors:
        findings.note_failure("output invalid: " + "; ".join(errors))
        return StepResult("invalid", False, summary=findings.failure, evidence={"errors": errors})
    evidence = {"output": findings.data}
    if ctx.plan.output_values is not None:
        # Where each output value came from: the state, the page and the time it was read.
        evidence["sources"] = ctx.values.sources(ctx.plan.output_values)
    return StepResult("valid", True, verified=True, summary="output matches the schema", evidence=evidence)


# What a recipe that names no output schema gets (runtime/recipe/model.py, Output): any object.
_ANY_OBJECT_SCHEMA = {"type": "object"}


def schema_errors(schema: dict[str, Any], data: Any) -> list[str]:
    """Where `data` breaks `schema`, one line per error, by the validator the schema's `$schema`
    names (else the latest draft), formats checked."""
    if schema == _ANY_OBJECT_SCHEMA and isinstance(data, dict):
        # Nothing to check beyond the type, and a run without a schema of its own does not pay
        # jsonschema's import (0.1-0.2 s of CPU, BENCHMARKS.md "Run start").
        return []
    import jsonschema

    validator_cls = jsonschema.validators.validator_for(schema)
    validator = validator_cls(schema, format_checker=validator_cls.FORMAT_CHECKER)
    problems = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in problems]
