"""`extract`: read the recipe's fields from the page (any locator, optional attribute), typed and
pattern-checked, into the run's data; a missing required field is the step's blocker."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from runtime.browser import ActionErrorCode, ActionResult
from runtime.events import GuardrailTripped
from runtime.execute.context.run_context import RunContext
from runtime.execute.values.field_values import read_field
from runtime.execute.reads.provenance import READ_ATTEMPTS, current_document, judged_cover, judged_frames, provenance_of_read, read_from
from runtime.execute.context.recovery import Blocker
from runtime.execute.reads.refused_path import stop_refused_path
from runtime.execute.step_outcome import StepResult
from runtime.execute.values.run_values import RunValues, locator_of
from runtime.outcomes import BlockerKind
from runtime.plan.model import State


async def extract(ctx: RunContext, state: State) -> StepResult:
    params = state.params
    timeout = ctx.timeout_for(state)
    blocker_kind = BlockerKind(params.get("blocker_kind", BlockerKind.EXTRACTION_FAILED.value))
    field_specs: dict[str, dict[str, Any]] = params.get("fields", {})
    data = ctx.findings.data
    raw: dict[str, str | None] = {}
    read: dict[str, Any] = {}
    provenance: dict[str, Any] | None = None
    requested = {name: field_request(ctx.values, spec) for name, spec in field_specs.items()}
    summary = f"extract {', '.join(requested)}"
    if requested:
        # The common case is one read: the fields and the fingerprint of the document they came
        # from, in one evaluation. It is kept only when that document may be read as it is
        # (reads/provenance.py) and was not replaced meanwhile; otherwise what it read is dropped,
        # and the document is checked before it is read again, below.
        # When the validated document shows something else than when it was validated, the same
        # read brings what it shows about itself, judged again for blockers before any value counts.
        shown = ctx.page.validated_digest or None
        first = await ctx.browser.run_action(
            "extract", summary, lambda s, a: s.extract(requested, fingerprint=True, signs_unless=shown, action_id=a, timeout_ms=timeout)
        )
        if not first.ok and first.error_code is ActionErrorCode.TIMEOUT:
            return _failed(first)
        if first.ok and not first.data.get("document_changed_during_read"):
            judged = provenance_of_read(ctx, state.id, first.data)
            if judged is not None and judged.blocked is not None:
                return judged.blocked
            provenance = judged.provenance if judged is not None else None
            read = first.data if provenance is not None else {}
    for _ in range(READ_ATTEMPTS if provenance is None else 0):
        # Only a validated document is read (reads/provenance.py); a document replaced during the read
        # is checked and read again.
        document = await current_document(ctx, state.id, timeout)
        if document.blocked is not None:
            return document.blocked
        provenance = document.provenance
        if not field_specs:
            break
        found = await ctx.browser.run_action("extract", summary, lambda s, a: s.extract(requested, action_id=a, timeout_ms=timeout))
        if not found.ok:
            return _failed(found)
        read = found.data
        if read_from(provenance, read.get("document")) and not read.get("document_changed_during_read"):
            break
    provenance = provenance or {}
    for name, value in (read.get("fields") or {}).items():
        raw[name] = None if value is None else str(value)
    refused = stop_refused_path(ctx, state.id)
    if refused is not None:  # the page path was refused before or while it was read: keep nothing
        return refused
    framed = judged_frames(ctx, state.id, read)
    if framed is not None and framed.blocked is not None:  # a field came from a frame that is a wall
        return framed.blocked
    covered = judged_cover(ctx, state.id, read)
    if covered is not None and covered.blocked is not None:  # the fields were read under a wall
        return covered.blocked
    readings = {
        name: read_field(name, raw.get(name), spec.get("type", "string"), ctx.values.pattern(spec.get("pattern")), trim=spec.get("trim", True))
        for name, spec in field_specs.items()
    }
    for name, problem in (read.get("ambiguous") or {}).items():
        readings[name] = replace(readings[name], error=f"ambiguous: {problem.get('message', '')}")
    if params.get("readable_text"):
        text = await ctx.browser.run_action("extract", "extract readable text", lambda s, a: s.extract(readable=True, action_id=a, timeout_ms=timeout))
        data["text"] = str(text.data.get("text", "")) if text.ok else None
    missing = {name: r.error for name, r in readings.items() if not r.ok and field_specs[name].get("required", True)}
    for name, reading in readings.items():
        data[name] = reading.value
    found_by = read.get("found") or {}
    evidence: dict[str, Any] = {
        "fields": {name: {"raw": r.raw, "value": r.value, "error": r.error, "found": found_by.get(name)} for name, r in readings.items()},
        "provenance": provenance,
    }
    if covered is not None:
        evidence["covering_layer"] = covered.provenance["covering_layer"]
    observation = ctx.page.observation
    read_url = (provenance.get("document") or {}).get("url") or (observation.url if observation is not None else "")
    evidence["url"] = read_url
    if missing:
        reason = "; ".join(f"{name}: {why}" for name, why in missing.items())
        seen = observation.evidence() if observation is not None else {}
        first = next(iter(missing))
        # The text that was not a value, at the top of the evidence where a verdict shows it.
        evidence.update(field=first, raw=readings[first].raw)
        ctx.recovery.blocker = Blocker(state.id, blocker_kind, f"required field(s) missing: {reason}", {**seen, **evidence})
        ctx.events.emit(GuardrailTripped(guard="extract", blocker_kind=blocker_kind, detail=reason, evidence=evidence))
        return StepResult("blocked", False, summary=f"missing {reason}", blocker_kind=blocker_kind, evidence=evidence)
    found_values = {name: r.value for name, r in readings.items()} | ({"text": data.get("text")} if params.get("readable_text") else {})
    ctx.values.record_step(state, found_values, {"url": read_url, "document": provenance.get("document")})
    for name in found_values:
        ctx.findings.provenance[name] = {"state": state.id, **provenance}
    shown = ", ".join(f"{name}={r.value!r}" for name, r in readings.items())
    return StepResult("ok", True, verified=True, summary=f"extracted {shown}" if shown else "extracted the readable text", evidence=evidence)


def _failed(found: ActionResult) -> StepResult:
    assert found.error is not None
    return StepResult("error", False, summary=f"extract failed: {found.error.message}", error=found.error.code.value)


def field_request(values: RunValues, spec: dict[str, Any]) -> dict[str, Any]:
    """A recipe field (any locator; optional attr, value, trim) as the driver's extract field."""
    reading = {key: spec[key] for key in ("attr", "value", "trim") if spec.get(key) is not None}
    return {"target": values.locator(locator_of(spec)), **reading}
