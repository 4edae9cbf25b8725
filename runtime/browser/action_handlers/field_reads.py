"""Extracting named fields from a page, by CSS selector in one batch or by any other target."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runtime.browser.action_handlers.params import invalid
from runtime.browser.action_handlers.read import SHOWN_TEXT_LIMIT_CHARS, VISIBLE_TEXT_CHARS, readability_extract, signs_from
from runtime.browser.action_handlers.checks import fingerprint_from
from runtime.browser.action_handlers.scope import ActionScope, Result
from runtime.browser.vocabulary.actions import Action, Target
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError
from runtime.browser.tab.locate import choose_match, chosen_index, invalid_locator, locate_spec
from runtime.browser.vocabulary.observation import PageFingerprint
from runtime.browser.tab.cover_frames import read_cover_frames
from runtime.browser.tab.model_frames import framed_by_model
from runtime.browser.tab.tab import Tab


_FIELD_KEYS = {"selector", "target", "attr", "all", "value", "trim", "whence"}


@dataclass(frozen=True)
class _FieldRequest:
    """One field to extract: by a CSS selector read in one batch, or by any other Target."""

    selector: str | None
    target: Target | None
    attr: str | None
    all: bool
    # {attr, value, trim} as field_reads.js reads them.
    how: dict[str, Any]


def _field_request(name: str, spec: Any) -> _FieldRequest:
    where = f"params.fields.{name}"
    if isinstance(spec, str):
        spec = {"selector": spec}
    if not isinstance(spec, dict):
        raise invalid(f"{where} must be a CSS selector string or an object with 'selector' or 'target'")
    unknown = sorted(set(spec) - _FIELD_KEYS)
    if unknown:
        raise invalid(f"{where} has unknown keys {unknown}; allowed: {sorted(_FIELD_KEYS)}")
    if ("selector" in spec) == ("target" in spec):
        raise invalid(f"{where} needs exactly one of 'selector' (CSS) or 'target' (ref, role+name, text, css or xpath)")
    attr = spec.get("attr")
    if attr is not None and not isinstance(attr, str):
        raise invalid(f"{where}.attr must be a string")
    read_all = bool(spec.get("all"))
    value = spec.get("value")
    if value is not None and not isinstance(value, bool):
        raise invalid(f"{where}.value must be true or false")
    if value is not None and attr is not None:
        raise invalid(f"{where} takes attr or value, not both")
    trim = spec.get("trim", True)
    if not isinstance(trim, bool):
        raise invalid(f"{where}.trim must be true or false")
    whence = spec.get("whence", False)
    if not isinstance(whence, bool):
        raise invalid(f"{where}.whence must be true or false")
    # whence: not the value, but where it comes from ({shown, written}: field_reads.js).
    how = {"attr": attr, "value": value, "trim": trim, "whence": whence}
    if "selector" in spec:
        if not isinstance(spec["selector"], str):
            raise invalid(f"{where}.selector must be a string")
        if read_all:
            return _FieldRequest(spec["selector"], None, attr, True, how)
        return _FieldRequest(None, Target(css=spec["selector"]), attr, False, how)
    target = Target.from_params(spec["target"], field_path=f"{where}.target")
    if read_all:
        if not target.css or target.to_dict().keys() - {"css"}:
            raise invalid(f"{where}.all needs a plain CSS selector; a {target.kind} target names one element")
        return _FieldRequest(target.css, None, attr, True, how)
    return _FieldRequest(None, target, attr, False, how)


async def _read_target(tab: Tab, target: Target, how: dict[str, Any]) -> tuple[Any, dict[str, Any] | None, dict[str, Any] | None]:
    """The element's text/value/attribute, how it was found and, inside a frame, the signs of the
    frame's document (the run judges that document before it keeps the value); (None, None, None)
    when nothing matches (a missing field, not an error). Several matches (ambiguous_target), a
    stale ref or a bad selector fail the action: the caller must know."""
    try:
        element = await tab.resolve(target)
    except BrowserActionError as exc:
        if exc.error.code is ActionErrorCode.NOT_FOUND:
            return None, None, None
        raise
    value = await tab.call_script_on(element, "readElement", how)
    if how.get("whence") and isinstance(value, dict) and await framed_by_model(tab.worlds, tab.cdp, element.context_id):
        value = {**value, "written": True}  # the frame's document is the model's own making
    frame = None
    if target.frame is not None:
        frame = await tab.call_script_on(element, "frameSigns", VISIBLE_TEXT_CHARS, SHOWN_TEXT_LIMIT_CHARS)
    return value, element.how, frame


async def extract(scope: ActionScope, action: Action) -> Result:
    tab = scope.tab
    params = action.params
    if params.get("readable"):
        return await readability_extract(scope, action)
    fields = params.get("fields")
    if not isinstance(fields, dict) or not fields:
        raise invalid("extract needs params.fields ({name: {selector | target, attr?, value?, trim?, all?}}) or params.readable=true")
    with_fingerprint = params.get("fingerprint", False)
    if not isinstance(with_fingerprint, bool):
        raise invalid("params.fingerprint must be true or false")
    signs_unless = params.get("signs_unless")
    if signs_unless is not None and not isinstance(signs_unless, str):
        raise invalid("params.signs_unless must be a content digest")
    requests = {name: _field_request(name, spec) for name, spec in fields.items()}
    # Fields the top document answers are read in one evaluation; those by a ref (a handle the
    # tab keeps) or inside an iframe (another world) are found and read one by one after it.
    in_batch: dict[str, dict[str, Any]] = {}
    for name, request in requests.items():
        if request.selector is not None:
            in_batch[name] = {"all": True, "selector": request.selector, "how": request.how}
        elif request.target is not None and not request.target.ref and request.target.frame is None:
            spec = locate_spec(request.target)
            in_batch[name] = {"spec": spec, "index": chosen_index(spec), "how": request.how}
    one_by_one = [name for name in requests if name not in in_batch]
    document = tab.document()
    values: dict[str, Any] = {}
    found: dict[str, Any] = {}
    ambiguous: dict[str, Any] = {}
    url: str | None = None
    fingerprint: PageFingerprint | None = None
    signs: dict[str, Any] | None = None
    cover: dict[str, Any] | None = None
    if in_batch or with_fingerprint:
        if with_fingerprint or signs_unless is not None:
            # The read's fingerprint and signs see a closed root attached since validation.
            await tab.adopt_closed_roots()
        reads = await _read_in_one(tab, in_batch, with_fingerprint, signs_unless)
        if reads.get("cover"):
            # A frame of another origin in the layer is read in its own world.
            reads["cover"] = await read_cover_frames(tab.worlds, tab.cdp, reads["cover"], VISIBLE_TEXT_CHARS)
            if reads.get("signs"):
                reads["signs"]["cover"] = reads["cover"]
        url = str(reads["url"])
        if with_fingerprint:
            fingerprint = fingerprint_from(reads["fingerprint"], tab)
        if reads.get("signs"):
            signs = _judgeable(reads["signs"], document.headers)
        values.update(reads["values"])
        cover = reads.get("cover")
        for name, located in reads["located"].items():
            how = requests[name].target.to_dict()  # type: ignore[union-attr] - located fields have targets
            try:
                if "error" in located:
                    raise invalid_locator(how, str(located["error"]))
                found[name] = choose_match(located, in_batch[name]["spec"], how)[1]
            except BrowserActionError as exc:
                values[name] = found[name] = None
                _unless_field_problem(exc, ambiguous, name)
    frames: dict[str, dict[str, Any]] = {}
    for name in one_by_one:
        request = requests[name]
        assert request.target is not None
        try:
            values[name], found[name], frame = await _read_target(tab, request.target, request.how)
            if frame is not None:
                frames[name] = _judgeable(frame, {}, url=str(frame["url"]), origin=str(frame.get("origin") or ""))
        except BrowserActionError as exc:
            values[name] = None
            _unless_field_problem(exc, ambiguous, name)
    if url is None or one_by_one:
        url = await tab.current_url()
    if not in_batch and not with_fingerprint:
        # Read by ref or inside a frame only: what covers the top document, asked on its own.
        cover = await read_cover_frames(tab.worlds, tab.cdp, await tab.call_script("coveringLayer", VISIBLE_TEXT_CHARS), VISIBLE_TEXT_CHARS)
    ordered = {name: values.get(name) for name in requests}
    missing = [name for name, value in ordered.items() if value is None or value == []]
    read_from = tab.document()
    data: dict[str, Any] = {
        "fields": ordered,
        "missing": missing,
        "ambiguous": ambiguous,
        "found": found,
        "url": url,
        # The document the fields were read from; a different one after the read means it was
        # replaced meanwhile and the read proves nothing about either.
        "document": read_from.to_dict(),
        "document_changed_during_read": not document.same_document(read_from),
    }
    if frames:
        # What each frame document a field was read in shows of itself, judged before the value is kept.
        data["frames"] = frames
    if fingerprint is not None:
        # The fingerprint of the document the batch was read from, taken in the same evaluation:
        # the run's provenance check needs no read of its own (runtime/execute/reads/provenance.py).
        data["fingerprint"] = fingerprint.to_dict()
    if cover:
        # The layer that covered the page as the fields were read (covering_layer.js): the run
        # judges it as the page a person met there before it keeps a value.
        data["cover"] = cover
    if signs is not None:
        # What the document shows about itself now, read with the fields because its content
        # changed since it was validated: the run judges it again for blockers from this.
        data["signs"] = signs
    return data, None


def _judgeable(raw: dict[str, Any], headers: dict[str, str], **extra: str) -> dict[str, Any]:
    """A document's signs (page_reads.js's pageSigns, with its title) as the run judges them."""
    signs = signs_from(raw, headers)
    return {**signs.to_dict(), "visible_text": signs.visible_text, "title": str(raw.get("title") or ""), **extra}


async def _read_in_one(tab: Tab, in_batch: dict[str, dict[str, Any]], with_fingerprint: bool, signs_unless: str | None) -> dict[str, Any]:
    try:
        # In the isolated world, as every other read: the page's own scripts cannot stand in
        # for the DOM they show.
        limits = [VISIBLE_TEXT_CHARS, SHOWN_TEXT_LIMIT_CHARS]
        return await tab.call_script("readFields", in_batch, with_fingerprint, signs_unless, limits)  # type: ignore[no-any-return]
    except BrowserActionError as exc:
        if exc.error.code is ActionErrorCode.SCRIPT_FAILED:  # a CSS `all` selector the browser cannot parse
            raise invalid(f"bad selector in params.fields: {exc.error.message}") from None
        raise


def _unless_field_problem(exc: BrowserActionError, ambiguous: dict[str, Any], name: str) -> None:
    """A field nothing matches is missing, and one naming several elements is that field's
    problem (listed in `ambiguous`), not the whole read's; anything else fails the action."""
    if exc.error.code is ActionErrorCode.AMBIGUOUS_TARGET:
        ambiguous[name] = {"message": exc.error.message, **exc.error.details}
    elif exc.error.code is not ActionErrorCode.NOT_FOUND:
        raise exc
