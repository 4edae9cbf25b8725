"""`output.validate`: the extracted data against the recipe's output JSON Schema; output.json is
written either way, and only a valid output lets the run complete."""

from __future__ import annotations

import jsonschema

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
    validator_cls = jsonschema.validators.validator_for(schema)
    validator = validator_cls(schema, format_checker=validator_cls.FORMAT_CHECKER)
    problems = sorted(validator.iter_errors(findings.data), key=lambda e: list(map(str, e.absolute_path)))
    errors = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in problems]
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
