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


_EXTRACT_FIELDS = """((fields) => {
  const out = {};
  for (const [name, spec] of Object.entries(fields)) {
    const read = (el) => spec.attr ? el.getAttribute(spec.attr)
      : ('value' in el && ['INPUT','TEXTAREA','SELECT'].includes(el.tagName) ? el.value : el.innerText.trim());
    if (spec.all) out[name] = Array.from(document.querySelectorAll(spec.selector)).map(read);
    else { const el = document.querySelector(spec.selector); out[name] = el ? read(el) : null; }
  }
  return out;
})"""

# The same reading rule as _EXTRACT_FIELDS, for one element found through any Target.
_READ_ELEMENT = """function(attr) {
  if (attr) return this.getAttribute(attr);
  if ('value' in this && ['INPUT','TEXTAREA','SELECT'].includes(this.tagName)) return this.value;
  return (this.innerText || this.textContent || '').trim();
}"""

_FIELD_KEYS = {"selector", "target", "attr", "all"}


@dataclass(frozen=True)
class _FieldRequest:
    """One field to extract: by a CSS selector read in one batch, or by any other Target."""

    selector: str | None
    target: Target | None
    attr: str | None
    all: bool


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
    if "selector" in spec:
        if not isinstance(spec["selector"], str):
            raise invalid(f"{where}.selector must be a string")
        return _FieldRequest(spec["selector"], None, attr, read_all)
    target = Target.from_params(spec["target"], field_path=f"{where}.target")
    if target.css and not target.index:
        return _FieldRequest(target.css, None, attr, read_all)
    if read_all:
        raise invalid(f"{where}.all needs a CSS selector; a {target.kind} target names one element")
    return _FieldRequest(None, target, attr, False)


async def _read_target(tab: Tab, target: Target, attr: str | None) -> Any:
    """The element's text/value/attribute, or None when nothing matches (a missing field, not an
    error). A stale ref or a bad selector still fails the action: the caller must know."""
    try:
        element = await tab.resolve(target)
    except BrowserActionError as exc:
        if exc.error.code is ActionErrorCode.NOT_FOUND:
            return None
        raise
    return await tab.call_on(element, _READ_ELEMENT, attr)


async def extract(scope: ActionScope, action: Action) -> Result:
    tab = scope.tab
    params = action.params
    if params.get("readable"):
        return await readability_extract(scope, action)
    fields = params.get("fields")
    if not isinstance(fields, dict) or not fields:
        raise invalid("extract needs params.fields ({name: {selector | target, attr?, all?}}) or params.readable=true")
    requests = {name: _field_request(name, spec) for name, spec in fields.items()}
    batch = {
        name: {"selector": r.selector, "attr": r.attr, "all": r.all} for name, r in requests.items() if r.selector is not None
    }
    values: dict[str, Any] = {}
    if batch:
        try:
            values = await tab.evaluate(f"{_EXTRACT_FIELDS}({json.dumps(batch)})")
        except BrowserActionError as exc:
            raise invalid(f"bad selector in params.fields: {exc.error.message}") from None
    for name, request in requests.items():
        if request.target is not None:
            values[name] = await _read_target(tab, request.target, request.attr)
    ordered = {name: values.get(name) for name in requests}
    missing = [name for name, value in ordered.items() if value is None or value == []]
    return {"fields": ordered, "missing": missing, "url": await tab.current_url()}, None
