"""Which document a read came from, and whether that document was validated.

Target validation judges one document: the one a navigate or observe prepared. Anything read
later (an extract's fields, a verify step's conditions, an agent's done_when, an act's target)
must come from that same document. Before such a read the run asks which document the tab shows
now (`page_fingerprint`: its identity and a hash of its content):

- the validated document: read it as it is now. The evidence says whether its content changed
  since validation (`content_changed_since_validation`), which a script may do;
- another document (a late redirect, a `location` change, a `javascript:` or `blob:` swap): it is
  prepared and validated again (status, domain, blocks, keywords) before anything is read from
  it. Valid, it becomes the validated document; not valid, the read stops with that blocker;
- nothing validated yet (the recipe turned validation off, or observed nothing): the read goes
  on and its provenance says `document_validated: false`.

Each read's evidence carries a `provenance` record; extracted values keep theirs, and the final
verdict of a completed run lists them.
"""

from __future__ import annotations

from typing import Any

from runtime.browser.vocabulary.document import DocumentIdentity
from runtime.events import GuardrailTripped, ToolUsed
from runtime.execute.context.run_context import RunContext
from runtime.execute.context.recovery import Blocker
from runtime.execute.reads.refused_path import refused_target_check
from runtime.execute.step_outcome import StepResult
from runtime.execute.judges.target_check import PageObservation, TargetCheck, validate_target
from runtime.plan.state_kinds import TARGET_CHECK

# A read whose document was replaced while it ran is checked and made again, this often at most.
READ_ATTEMPTS = 2


class DocumentCheck:
    """The outcome of `current_document`: the provenance record, or the blocked result."""

    def __init__(self, provenance: dict[str, Any], blocked: StepResult | None = None) -> None:
        self.provenance = provenance
        self.blocked = blocked


async def current_document(ctx: RunContext, state_id: str, timeout_ms: int) -> DocumentCheck:
    """Make sure the document about to be read is a validated one (see the module rules)."""
    validated = ctx.page.validated
    document, digest = await _document_now(ctx, timeout_ms)
    unchecked = _needs_no_check(ctx, document, digest)
    if unchecked is not None:
        return DocumentCheck(unchecked)
    assert document is not None
    # A new document since validation: judge it before anything is read from it.
    observation = await ctx.browser.prepare(state_id, timeout_ms)
    ctx.page.saw(observation)
    check = target_verdict(ctx, observation)
    ctx.page.judge(check)
    earlier = f"the validated {validated.url} ({_which(validated)})" if validated else "a page that failed validation"
    summary = f"the page is now {observation.url} ({_which(observation.document)}), not {earlier}"
    action_id, tab_id = ctx.browser.new_action_id("revalidate"), ctx.browser.tabs.acting_id
    ctx.events.emit(ToolUsed(tool=TARGET_CHECK, action_id=action_id, phase="start", summary=f"revalidate: {summary}", tab_id=tab_id))
    if check.valid:
        ctx.events.emit(ToolUsed(tool=TARGET_CHECK, action_id=action_id, phase="success", summary=check.reason, tab_id=tab_id))
        record = _record(observation.document, observation.document, observation.content_digest, observation.content_digest)
        record.update(document_changed_since_validation=True, revalidated=True, previously_validated=validated.to_dict() if validated else None)
        return DocumentCheck(record)
    assert check.blocker_kind is not None
    ctx.events.emit(ToolUsed(tool=TARGET_CHECK, action_id=action_id, phase="error", summary=check.reason, error_code=check.blocker_kind.value, tab_id=tab_id))
    evidence = {**check.evidence, "revalidated": True, "validated_document": validated.to_dict() if validated else None}
    ctx.recovery.blocker = Blocker(state_id, check.blocker_kind, f"{summary}; {check.reason}", evidence)
    ctx.events.emit(GuardrailTripped(guard=TARGET_CHECK, blocker_kind=check.blocker_kind, detail=check.reason, evidence=evidence))
    blocked = StepResult(
        "blocked", False, summary=f"{summary}: {check.reason}", blocker_kind=check.blocker_kind, thinking="revalidate the new document before reading it", evidence=evidence
    )
    return DocumentCheck({}, blocked)


def provenance_of_read(ctx: RunContext, fingerprint: dict[str, Any] | None) -> dict[str, Any] | None:
    """The provenance of a read that carries the fingerprint of the document it came from (an
    extract with `fingerprint`, taken in the read's own evaluation) when that document needs no
    check: it is the validated one, or nothing had to be validated. None: the read proves
    nothing; the document is checked first (`current_document`) and read again."""
    if not fingerprint or not fingerprint.get("document"):
        return None
    return _needs_no_check(ctx, DocumentIdentity.from_dict(fingerprint["document"]), str(fingerprint.get("digest", "")))


def _needs_no_check(ctx: RunContext, document: DocumentIdentity | None, digest: str) -> dict[str, Any] | None:
    """The provenance of a read from `document` when it may be read as it is (the validated
    document, or none had to be validated); None when it must be judged first."""
    validated = ctx.page.validated
    nothing_to_check = document is None or (validated is None and not ctx.page.validation_required)
    if nothing_to_check or validated is not None and document.same_document(validated) and document.url == validated.url:
        return _record(document, validated, digest, ctx.page.validated_digest)
    return None


def target_verdict(ctx: RunContext, observation: PageObservation) -> TargetCheck:
    """Is `observation` the recipe's target? The one check validation and revalidation share."""
    target = ctx.plan.target
    keywords = [ctx.values.text(k) or "" for k in target.get("validation_keywords", [])]
    # A page path the network policy refused is that refusal, whatever the page shows now.
    return refused_target_check(ctx) or validate_target(
        observation, expected_status=int(target.get("expected_status", 200)), allowed_domains=list(target.get("allowed_domains", [])), keywords=keywords,
        login=ctx.login,
    )


async def document_record(ctx: RunContext, timeout_ms: int) -> dict[str, Any]:
    """The provenance of a read that does not require a validated document (an agent's
    done_when: the agent moves between pages on its own): which document, and whether it is the
    validated one."""
    document, digest = await _document_now(ctx, timeout_ms)
    validated = ctx.page.validated
    record = _record(document, validated, digest, ctx.page.validated_digest)
    if document is not None and validated is not None and not document.same_document(validated):
        record.update(document_validated=False, document_changed_since_validation=True)
    return record


def read_from(provenance: dict[str, Any], document: dict[str, Any] | None) -> bool:
    """Did a read (whose driver result names `document`) see the document `provenance` is about?"""
    expected = provenance.get("document")
    if not expected or not document:
        return True
    return DocumentIdentity.from_dict(expected).same_document(DocumentIdentity.from_dict(document))


async def _document_now(ctx: RunContext, timeout_ms: int) -> tuple[DocumentIdentity | None, str]:
    found = await ctx.browser.run_action("page_fingerprint", "which document is shown", lambda s, a: s.fingerprint(action_id=a, timeout_ms=timeout_ms))
    if not found.ok or not found.data.get("document"):
        return None, ""
    return DocumentIdentity.from_dict(found.data["document"]), str(found.data.get("digest", ""))


def _record(document: DocumentIdentity | None, validated: DocumentIdentity | None, digest: str, validated_digest: str) -> dict[str, Any]:
    """A read from `document`, which is `validated` itself (or nothing was validated)."""
    return {
        "document": document.to_dict() if document else None,
        "document_validated": validated is not None and document is not None,
        "validated_document": validated.to_dict() if validated else None,
        "document_changed_since_validation": False,
        "content_changed_since_validation": validated is not None and digest != validated_digest,
        "revalidated": False,
    }


def _which(document: DocumentIdentity | None) -> str:
    return f"document #{document.number}, loader {document.loader_id[:8]}" if document else "unknown document"
