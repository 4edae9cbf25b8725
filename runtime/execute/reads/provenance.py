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
  on and its provenance says `document_validated: false`, unless the read requires a validated
  document (an agent step's: its model chooses its pages), which judges the document first;
- a page path the fence refused (a click, a submit or a script sent the tab off the allowed
  domains, whether the refusal page replaced the document or not): nothing is read on it, and
  the read stops with the refusal's blocker kind (reads/refused_path.py);
- the validated document, but a script changed what it shows since: it is judged again for
  blockers (a login or captcha wall, an error, a "not found" put in its place) before anything is
  read from it; its keywords are not asked again, as a page updating itself may drop them.

A field read inside a frame is kept only when the frame's document passes the same judges
(`judged_frames`; its keywords are the top document's to carry; a srcdoc, about:blank or data:
frame's domain is its embedder's origin). A field read while a layer covers the page is kept
only when that layer is no wall (`judged_cover`).

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
from runtime.outcomes import BlockerKind
from runtime.plan.state_kinds import TARGET_CHECK

# A read whose document was replaced while it ran is checked and made again, this often at most.
READ_ATTEMPTS = 2


class DocumentCheck:
    """The outcome of `current_document`: the provenance record, or the blocked result."""

    def __init__(self, provenance: dict[str, Any], blocked: StepResult | None = None) -> None:
        self.provenance = provenance
        self.blocked = blocked


async def current_document(ctx: RunContext, state_id: str, timeout_ms: int, *, required: bool = False, judge_changes: bool = True) -> DocumentCheck:
    """Make sure the document about to be read is a validated one (see the module rules).
    `required`: a read that may never come from an unvalidated document (an agent step's);
    `judge_changes`: False for an act, which reads no value, so a page its own earlier acts
    changed is not judged again before each act."""
    refused = refused_target_check(ctx)
    if refused is not None:
        return _blocked(ctx, state_id, refused, "the page path was refused")
    validated = ctx.page.validated
    document, digest = await document_now(ctx, timeout_ms)
    if document is None and required:
        return _blocked(ctx, state_id, TargetCheck(False, BlockerKind.NAVIGATION_FAILED, "no page is open to read from"), "nothing is shown")
    unchecked = _needs_no_check(ctx, document, digest, required, judge_changes)
    if unchecked is not None:
        return DocumentCheck(unchecked)
    assert document is not None
    judged, seen = ctx.page.target_check, ctx.page.observation
    if judged is not None and not judged.valid and seen is not None and _same(seen.document, document):
        # This very document was judged already and is not the target: no read, and no second look.
        return _blocked(ctx, state_id, judged, f"the page {seen.url} failed validation")
    if validated is not None and _same(validated, document):
        return await _judged_again(ctx, state_id, timeout_ms, validated)
    # A new document since validation: judge it before anything is read from it.
    observation = await ctx.browser.prepare(state_id, timeout_ms)
    ctx.page.saw(observation)
    check = target_verdict(ctx, observation)
    ctx.page.judge(check)
    earlier = f"the validated {validated.url} ({_which(validated)})" if validated else "a page that was validated"
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
    return _blocked(ctx, state_id, check, summary, validated)


async def _judged_again(ctx: RunContext, state_id: str, timeout_ms: int, validated: DocumentIdentity) -> DocumentCheck:
    """The validated document shows something else now (a script rewrote it): prepared again and
    judged again for blockers (see `judged_as_it_is_now`)."""
    observation = await ctx.browser.prepare(state_id, timeout_ms)
    if observation.document is None or not _same(observation.document, validated):
        # It went away while it was prepared: judge what is there instead, from the start.
        return await current_document(ctx, state_id, timeout_ms, required=True)
    return judged_as_it_is_now(ctx, state_id, observation, validated)


def judged_as_it_is_now(ctx: RunContext, state_id: str, observation: PageObservation, validated: DocumentIdentity) -> DocumentCheck:
    """The validated document as it shows itself now: no blocker, and it stays the validated one
    (with its new content); a blocker (a wall, an error, "not found" put in its place), and
    nothing is read from it. Its status, URL and keywords were judged once and are not asked again."""
    check = target_verdict(ctx, observation, keywords=False)
    action_id, tab_id = ctx.browser.new_action_id("revalidate"), ctx.browser.tabs.acting_id
    summary = f"{observation.url} changed what it shows since it was validated"
    ctx.events.emit(ToolUsed(tool=TARGET_CHECK, action_id=action_id, phase="start", summary=f"judge again: {summary}", tab_id=tab_id))
    if check.valid:
        ctx.events.emit(ToolUsed(tool=TARGET_CHECK, action_id=action_id, phase="success", summary="still no blocker", tab_id=tab_id))
        ctx.page.validated_digest = observation.content_digest
        record = _record(validated, validated, observation.content_digest, observation.content_digest)
        record.update(content_changed_since_validation=True, judged_again=True)
        return DocumentCheck(record)
    assert check.blocker_kind is not None
    ctx.events.emit(ToolUsed(tool=TARGET_CHECK, action_id=action_id, phase="error", summary=check.reason, error_code=check.blocker_kind.value, tab_id=tab_id))
    ctx.page.saw(observation)
    check = TargetCheck(False, check.blocker_kind, f"{summary}: {check.reason}", {**check.evidence, "judged_again": True})
    ctx.page.judge(check)
    return _blocked(ctx, state_id, check, summary, validated)


def _blocked(ctx: RunContext, state_id: str, check: TargetCheck, summary: str, validated: DocumentIdentity | None = None) -> DocumentCheck:
    """The read stops: the document is not the target, and that is the run's latest blocker."""
    assert check.blocker_kind is not None
    evidence = {**check.evidence, "revalidated": True, "validated_document": validated.to_dict() if validated else None}
    reason = check.reason if summary in check.reason else f"{summary}; {check.reason}"
    ctx.recovery.blocker = Blocker(state_id, check.blocker_kind, reason, evidence)
    ctx.events.emit(GuardrailTripped(guard=TARGET_CHECK, blocker_kind=check.blocker_kind, detail=check.reason, evidence=evidence))
    blocked = StepResult("blocked", False, summary=reason, blocker_kind=check.blocker_kind, thinking="validate the document before reading it", evidence=evidence)
    return DocumentCheck({}, blocked)


def provenance_of_read(ctx: RunContext, state_id: str, read: dict[str, Any]) -> DocumentCheck | None:
    """The verdict on a read that carries the fingerprint of the document it came from (an
    extract with `fingerprint`, taken in the read's own evaluation): the document needs no check
    (it is the validated one as validated, or nothing had to be validated), or it is the validated
    one showing something else and the read carries its signs, which are judged again. None: the
    read proves nothing; the document is checked first (`current_document`) and read again."""
    fingerprint = read.get("fingerprint")
    if not fingerprint or not fingerprint.get("document"):
        return None
    refused = refused_target_check(ctx)
    if refused is not None:
        return _blocked(ctx, state_id, refused, "the page path was refused")
    document, digest = DocumentIdentity.from_dict(fingerprint["document"]), str(fingerprint.get("digest", ""))
    unchecked = _needs_no_check(ctx, document, digest)
    if unchecked is not None:
        return DocumentCheck(unchecked)
    validated, signs = ctx.page.validated, read.get("signs")
    if validated is None or not _same(validated, document) or not signs:
        return None
    seen = ctx.page.observation
    status = seen.status if seen is not None and _same(seen.document, validated) else None
    observation = _observed_by_signs(state_id, document.url, status, signs, document, digest)
    return judged_as_it_is_now(ctx, state_id, observation, validated)


def judged_frames(ctx: RunContext, state_id: str, read: dict[str, Any]) -> DocumentCheck | None:
    """The verdict on the frame documents a read's fields came from (an extract's `frames`: what
    each shows of itself): each is judged as a top document would be (domain, blocker kinds: a
    login or captcha wall, an error, "not found"), but for the keywords, which the validated top
    document carries. None when every frame passes; else the read stops with the first blocker."""
    for name, signs in (read.get("frames") or {}).items():
        url = str(signs.get("url") or "")
        observation = _observed_by_signs(state_id, _frame_source(ctx, url, str(signs.get("origin") or "")), None, signs)
        check = target_verdict(ctx, observation, keywords=False)
        if not check.valid:
            assert check.blocker_kind is not None
            summary = f"{name} was read inside the frame {url}, which is not a valid page"
            judged = TargetCheck(False, check.blocker_kind, f"{summary}: {check.reason}", {**check.evidence, "frame_of_field": name})
            return _blocked(ctx, state_id, judged, summary)
    return None


def judged_cover(ctx: RunContext, state_id: str, read: dict[str, Any]) -> DocumentCheck | None:
    """The verdict on the layer that covered the page as a read's fields were read (an extract's
    `cover`, scripts/covering_layer.js): judged as the page a person met there (its domain and
    keywords are the validated document's to carry). A layer slid or faded in after validation
    changes neither the page's text nor its tags, so only the read itself sees it. None when no
    layer covered the page; a layer that is no wall leaves its description as `covering_layer`;
    a wall stops the read with its kind."""
    cover = read.get("cover")
    if not cover:
        return None
    url = str(read.get("url") or "")
    check = target_verdict(ctx, _observed_by_signs(state_id, url, None, {"cover": cover}), keywords=False)
    if check.valid:
        return DocumentCheck({"covering_layer": check.evidence.get("covering_layer")})
    return _blocked(ctx, state_id, check, f"the fields were read under a layer over {url}")


def _frame_source(ctx: RunContext, url: str, origin: str) -> str:
    """The URL a frame's domain is judged by. A srcdoc or about:blank frame holds what its embedder
    wrote into it and shares the embedder's origin: that origin (or, for an opaque one, a sandboxed
    frame's, the validated page) is where its content is from; its content is judged as any frame's.
    So is a data: frame's: its content is written in the page that names it (no request fetches
    it), and Chromium gives it an opaque origin, as a sandboxed srcdoc frame's."""
    written_by_embedder = url[:5].lower() == "data:" or url.partition("#")[0].partition("?")[0] in ("about:srcdoc", "about:blank")
    if not written_by_embedder:
        return url
    if origin.startswith(("http://", "https://")):
        return f"{origin}/"
    validated = ctx.page.validated
    return validated.url if validated is not None else url


def _observed_by_signs(
    state_id: str, url: str, status: int | None, signs: dict[str, Any], document: DocumentIdentity | None = None, digest: str = ""
) -> PageObservation:
    """A document as a read's signs show it (read.py's signs_from): judged without a prepare."""
    return PageObservation(
        state_id, url, status, str(signs.get("title") or ""), "",
        headings=tuple(signs.get("headings") or ()), visible_text=str(signs.get("visible_text") or ""),
        has_password_field=bool(signs.get("has_password_field")), has_captcha_widget=bool(signs.get("has_captcha_widget")),
        cover=signs.get("cover") or None, headers=dict(signs.get("headers") or {}), document=document, content_digest=digest,
    )


def _needs_no_check(
    ctx: RunContext, document: DocumentIdentity | None, digest: str, required: bool = False, judge_changes: bool = True
) -> dict[str, Any] | None:
    """The provenance of a read from `document` when it may be read as it is (the validated
    document as it was validated, or none had to be validated); None when it must be judged first."""
    validated = ctx.page.validated
    nothing_to_check = document is None or (validated is None and not ctx.page.validation_required and not required)
    if nothing_to_check:
        return _record(document, validated, digest, ctx.page.validated_digest)
    if validated is not None and _same(validated, document) and (digest == ctx.page.validated_digest or not judge_changes):
        return _record(document, validated, digest, ctx.page.validated_digest)
    return None


def _same(one: DocumentIdentity | None, other: DocumentIdentity | None) -> bool:
    return one is not None and other is not None and one.same_document(other) and one.url == other.url


def target_verdict(ctx: RunContext, observation: PageObservation, *, keywords: bool = True) -> TargetCheck:
    """Is `observation` the recipe's target? The one check validation and revalidation share;
    without `keywords` for a validated document judged again (see the module rules)."""
    target = ctx.plan.target
    wanted = [ctx.values.text(k) or "" for k in target.get("validation_keywords", [])] if keywords else []
    # A page path the network policy refused is that refusal, whatever the page shows now.
    return refused_target_check(ctx) or validate_target(
        observation, expected_status=int(target.get("expected_status", 200)), allowed_domains=list(target.get("allowed_domains", [])), keywords=wanted,
        login=ctx.login,
    )


async def document_record(ctx: RunContext, timeout_ms: int) -> dict[str, Any]:
    """The provenance of a read that does not require a validated document: which document, and
    whether it is the validated one."""
    document, digest = await document_now(ctx, timeout_ms)
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


async def document_now(ctx: RunContext, timeout_ms: int) -> tuple[DocumentIdentity | None, str]:
    """Which document the tab shows now, and a hash of what it shows."""
    found = await ctx.browser.run_action("page_fingerprint", "which document is shown", lambda s, a: s.fingerprint(action_id=a, timeout_ms=timeout_ms, closed_roots=True))
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
