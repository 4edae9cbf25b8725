"""Extracting named fields from a page, by CSS selector in one batch or by any other target."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from runtime.browser.action_handlers.params import invalid
from runtime.browser.action_handlers.read import readability_extract
from runtime.browser.action_handlers.scope import ActionScope, Result
from runtime.browser.actions import Action, Target
from runtime.browser.errors import ActionErrorCode, BrowserActionError
from runtime.browser.tab import Tab


# How one element reads, by `how` = {attr, value, trim}: a form control (input, textarea, select)
# reads what it holds now unless `value` is false; `attr: value` on one means the same (its
# attribute is only the markup's initial value); a multiple select reads its chosen values joined
# by ', '; anything else reads its text, trimmed unless `trim` is false.
_READ_ONE = """(el, how) => {
  const control = ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
  const holds = () => el.tagName === 'SELECT' && el.multiple
    ? Array.from(el.selectedOptions).map(o => o.value).join(', ') : el.value;
  if (how.attr && !(how.attr === 'value' && control)) return el.getAttribute(how.attr);
  if (control && how.value !== false) return holds();
  if (how.value === true) return null;
  const text = el.innerText !== undefined ? el.innerText : (el.textContent || '');
  return how.trim === false ? text : text.trim();
}"""

_EXTRACT_FIELDS = f"""((fields) => {{
  const read = {_READ_ONE};
  const out = {{}};
  for (const [name, spec] of Object.entries(fields)) {{
    if (spec.all) out[name] = Array.from(document.querySelectorAll(spec.selector)).map((el) => read(el, spec));
    else {{ const el = document.querySelector(spec.selector); out[name] = el ? read(el, spec) : null; }}
  }}
  return out;
}})"""

# The same reading rule as _EXTRACT_FIELDS, for one element found through any Target.
_READ_ELEMENT = f"""function(how) {{ return ({_READ_ONE})(this, how); }}"""

_FIELD_KEYS = {"selector", "target", "attr", "all", "value", "trim"}


@dataclass(frozen=True)
class _FieldRequest:
    """One field to extract: by a CSS selector read in one batch, or by any other Target."""

    selector: str | None
    target: Target | None
    attr: str | None
    all: bool
    # {attr, value, trim} as _READ_ONE takes them.
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
    how = {"attr": attr, "value": value, "trim": trim}
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


async def _read_target(tab: Tab, target: Target, how: dict[str, Any]) -> tuple[Any, dict[str, Any] | None]:
    """The element's text/value/attribute and how it was found, or (None, None) when nothing
    matches (a missing field, not an error). Several matches (ambiguous_target), a stale ref or
    a bad selector fail the action: the caller must know."""
    try:
        element = await tab.resolve(target)
    except BrowserActionError as exc:
        if exc.error.code is ActionErrorCode.NOT_FOUND:
            return None, None
        raise
    return await tab.call_on(element, _READ_ELEMENT, how), element.how


async def extract(scope: ActionScope, action: Action) -> Result:
    tab = scope.tab
    params = action.params
    if params.get("readable"):
        return await readability_extract(scope, action)
    fields = params.get("fields")
    if not isinstance(fields, dict) or not fields:
        raise invalid("extract needs params.fields ({name: {selector | target, attr?, value?, trim?, all?}}) or params.readable=true")
    requests = {name: _field_request(name, spec) for name, spec in fields.items()}
    batch = {
        name: {"selector": r.selector, "all": r.all, **r.how} for name, r in requests.items() if r.selector is not None
    }
    document = tab.document()
    values: dict[str, Any] = {}
    if batch:
        try:
            # In the isolated world, as every other read: the page's own scripts cannot stand in
            # for the DOM they show.
            values = await tab.evaluate(f"{_EXTRACT_FIELDS}({json.dumps(batch)})")
        except BrowserActionError as exc:
            raise invalid(f"bad selector in params.fields: {exc.error.message}") from None
    found: dict[str, Any] = {}
    ambiguous: dict[str, Any] = {}
    for name, request in requests.items():
        if request.target is None:
            continue
        try:
            values[name], found[name] = await _read_target(tab, request.target, request.how)
        except BrowserActionError as exc:
            if exc.error.code is not ActionErrorCode.AMBIGUOUS_TARGET:
                raise
            # One field naming several elements is that field's problem, not the whole read's.
            values[name] = None
            ambiguous[name] = {"message": exc.error.message, **exc.error.details}
    ordered = {name: values.get(name) for name in requests}
    missing = [name for name, value in ordered.items() if value is None or value == []]
    read_from = tab.document()
    return {
        "fields": ordered,
        "missing": missing,
        "ambiguous": ambiguous,
        "found": found,
        "url": await tab.current_url(),
        # The document the fields were read from; a different one after the read means it was
        # replaced meanwhile and the read proves nothing about either.
        "document": read_from.to_dict(),
        "document_changed_during_read": not document.same_document(read_from),
    }, None
