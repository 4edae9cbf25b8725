"""What each action does to a tab. `BrowserSession.perform` owns ordering, timeouts and errors;
a handler only does its work and returns ``(data, typed value)`` or raises `BrowserActionError`."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import struct
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import trafilatura
from pyppeteer.us_keyboard_layout import keyDefinitions

from runtime.artifacts import ArtifactRef
from runtime.browser.actions import Action, ActionName, ActKind, Target, WaitKind
from runtime.browser.errors import ActionErrorCode, BrowserActionError
from runtime.browser.observation import Observation, PageFingerprint, PreparedPage, VerifyOutcome
from runtime.browser.tab import ResolvedElement, Tab

Result = tuple[dict[str, Any], Any]
Handler = Callable[[Tab, Action], Awaitable[Result]]

_POLL_SECONDS = 0.05


# --------------------------------------------------------------------------- params


def _invalid(message: str) -> BrowserActionError:
    return BrowserActionError(ActionErrorCode.INVALID_PARAMS, message)


def _str_param(params: dict[str, Any], key: str, *, required: bool = True) -> str | None:
    value = params.get(key)
    if value is None:
        if required:
            raise _invalid(f"params.{key} is required (a string)")
        return None
    if not isinstance(value, str):
        raise _invalid(f"params.{key} must be a string, got {type(value).__name__}")
    return value


def _int_param(params: dict[str, Any], key: str, default: int, *, minimum: int = 0) -> int:
    value = params.get(key, default)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise _invalid(f"params.{key} must be an integer >= {minimum}, got {value!r}")
    return value


def _target_param(params: dict[str, Any], key: str = "target") -> Target:
    if params.get(key) is None:
        raise _invalid(f"params.{key} is required: {{'ref': 's1:e2'}}, {{'role': 'button', 'name': 'Save'}}, "
                       "{'text': ...}, {'css': ...} or {'xpath': ...}")
    return Target.from_params(params[key], field_path=f"params.{key}")


def check_url_allowed(tab: Tab, url: str) -> None:
    """Refuse schemes outside the policy and URLs under a blocked prefix (`blocked_url`)."""
    policy = tab.session.policy
    scheme = urlsplit(url).scheme.lower()
    if not scheme:
        raise _invalid(f"url {url!r} has no scheme; use an absolute URL like http://host/path")
    if scheme not in policy.allowed_schemes:
        raise BrowserActionError(
            ActionErrorCode.BLOCKED_URL,
            f"scheme {scheme!r} of {url} is not allowed (allowed: {', '.join(policy.allowed_schemes)})",
            url=url,
        )
    for prefix in policy.blocked_url_prefixes:
        if url.startswith(prefix):
            raise BrowserActionError(
                ActionErrorCode.BLOCKED_URL, f"{url} is under the blocked prefix {prefix}", url=url
            )


async def _refuse_blocked_tab(tab: Tab) -> None:
    if tab.session.policy.blocked_url_prefixes:
        url = await tab.current_url()
        for prefix in tab.session.policy.blocked_url_prefixes:
            if url.startswith(prefix):
                raise BrowserActionError(
                    ActionErrorCode.BLOCKED_URL,
                    f"tab {tab.tab_id} shows {url} (blocked prefix {prefix}); refusing to act on it",
                    url=url,
                )


# --------------------------------------------------------------------------- navigation


async def _navigate(tab: Tab, url: str) -> dict[str, Any]:
    check_url_allowed(tab, url)
    tab.last_status = None
    # Leave a little of the action budget so pyppeteer's own timeout reports first, precisely.
    budget = max(1, int(tab.remaining_ms()) - 250)
    try:
        response = await tab.page.goto(url, {"waitUntil": "load", "timeout": budget})
    except Exception as exc:
        if type(exc).__name__ == "TimeoutError":
            raise BrowserActionError(
                ActionErrorCode.TIMEOUT, f"{url} did not finish loading within {budget} ms", url=url
            ) from None
        if "net::" in str(exc) or type(exc).__name__ == "PageError":
            raise BrowserActionError(
                ActionErrorCode.NAVIGATION_FAILED, f"could not load {url}: {exc}", url=url
            ) from None
        raise
    status = response.status if response is not None else tab.last_status
    tab.last_status = status
    final_url = tab.page.url
    tab.session.update_tab_url(tab.tab_id, final_url)
    return {"url": final_url, "status": status, "title": await tab.page.title()}


async def session_start(tab: Tab, action: Action) -> Result:
    url = _str_param(action.params, "url", required=False)
    primary = tab.session.tab(None)
    data: dict[str, Any] = {"tab_id": primary.tab_id, "session_id": tab.session.session_id}
    if url:
        data.update(await _navigate(primary, url))
    else:
        data.update({"url": primary.page.url, "title": await primary.page.title(), "status": primary.last_status})
    return data, None


async def session_stop(tab: Tab, action: Action) -> Result:  # handled by the session itself
    return {"stopped": True}, None


async def open_url(tab: Tab, action: Action) -> Result:
    url = _str_param(action.params, "url")
    assert url is not None
    return await _navigate(tab, url), None


async def _wait_until_loaded(tab: Tab) -> None:
    while True:
        if await tab.evaluate("document.readyState") == "complete":
            return
        if tab.remaining_ms() < 100:
            raise BrowserActionError(
                ActionErrorCode.TIMEOUT, f"tab {tab.tab_id} did not finish loading in time", url=tab.page.url
            )
        await asyncio.sleep(_POLL_SECONDS)


async def wait_for_loaded(tab: Tab, action: Action) -> Result:
    await _wait_until_loaded(tab)
    return {"status": "complete", "url": await tab.current_url()}, None


# --------------------------------------------------------------------------- page capture


async def _capture_png(tab: Tab, full_page: bool) -> tuple[bytes, int, int]:
    params: dict[str, Any] = {"format": "png"}
    if full_page:
        metrics = await tab.cdp.send("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        params["captureBeyondViewport"] = True
    # Raw CDP rather than page.screenshot(): pyppeteer's activates (focuses) the tab first.
    reply = await tab.cdp.send("Page.captureScreenshot", params)
    png = base64.b64decode(reply["data"])
    width, height = struct.unpack(">II", png[16:24])  # PNG IHDR
    return png, width, height


async def screenshot(tab: Tab, action: Action) -> Result:
    png, width, height = await _capture_png(tab, bool(action.params.get("full_page", False)))
    ref = tab.session.artifacts.put("screenshot", png, "image/png")
    return {"artifact": ref.to_dict(), "url": await tab.current_url(), "width": width, "height": height}, ref


async def _readable_text(tab: Tab, html: str, url: str) -> tuple[str, str]:
    extracted = await asyncio.to_thread(
        trafilatura.extract, html, url=url, include_comments=False, include_tables=True
    )
    if extracted and extracted.strip():
        return extracted.strip(), "trafilatura"
    # trafilatura looks for an article-like main block and returns nothing on small pages
    # (forms, one-line pages); the visible text is then the honest reduction.
    inner = await tab.evaluate("document.body ? document.body.innerText : ''")
    return str(inner or "").strip(), "inner_text"


def _inline_or_artifact(tab: Tab, text: str) -> tuple[str, ArtifactRef | None]:
    encoded = text.encode("utf-8")
    if len(encoded) <= tab.session.policy.inline_limit_bytes:
        return text, None
    return "", tab.session.artifacts.put("text", encoded, "text/plain")


async def readability_extract(tab: Tab, action: Action) -> Result:
    html = await tab.evaluate("document.documentElement ? document.documentElement.outerHTML : ''")
    url = await tab.current_url()
    text, source = await _readable_text(tab, str(html or ""), url)
    inline, ref = _inline_or_artifact(tab, text)
    data = {"text": inline, "title": await tab.page.title(), "url": url, "source": source,
            "artifact": ref.to_dict() if ref else None}
    return data, None


async def get_html(tab: Tab, action: Action) -> Result:
    xpath = _str_param(action.params, "xpath", required=False)
    if xpath:
        element = await tab.resolve(Target(xpath=xpath))
        html = await tab.call_on(element, "function() { return this.outerHTML; }")
    else:
        html = await tab.evaluate("document.documentElement.outerHTML")
    encoded = str(html).encode("utf-8")
    ref = tab.session.artifacts.put("html", encoded, "text/html")
    return {"artifact": ref.to_dict(), "url": await tab.current_url(), "size": len(encoded)}, ref


async def prepare_page(tab: Tab, action: Action) -> Result:
    await _wait_until_loaded(tab)
    # The page is loaded and nothing acts on it meanwhile, so the capture, the HTML, the URL and
    # the title are read in one round of concurrent CDP calls, and trafilatura (in a worker
    # thread) overlaps the screenshot's encoding.
    html_read = tab.evaluate("document.documentElement ? document.documentElement.outerHTML : ''")
    html, url, title = await asyncio.gather(html_read, tab.current_url(), tab.page.title())
    html = str(html or "")
    (png, _, _), (text, source) = await asyncio.gather(_capture_png(tab, False), _readable_text(tab, html, url))
    shot = tab.session.artifacts.put("screenshot", png, "image/png")
    inline, text_ref = _inline_or_artifact(tab, text)
    html_bytes = html.encode("utf-8")
    html_ref = (
        tab.session.artifacts.put("html", html_bytes, "text/html")
        if len(html_bytes) > tab.session.policy.inline_limit_bytes
        else None
    )
    prepared = PreparedPage(
        tab_id=tab.tab_id,
        url=url,
        status=tab.last_status,
        title=title,
        text=inline,
        text_source=source,
        screenshot=shot,
        html_artifact=html_ref,
        text_artifact=text_ref,
    )
    return prepared.to_dict(), prepared


_XPATH_SCAN_SCRIPT = """
((scope, limit) => {
  const selector = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[role],[onclick],[contenteditable],h1,h2,h3,h4,h5,h6';
  const xpathOf = (el) => {
    const steps = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentNode) {
      let index = 1;
      for (let sib = node.previousElementSibling; sib; sib = sib.previousElementSibling)
        if (sib.tagName === node.tagName) index++;
      steps.unshift(node.tagName.toLowerCase() + '[' + index + ']');
    }
    return '/' + steps.join('/');
  };
  const out = [];
  let total = 0;
  for (const el of document.querySelectorAll(selector)) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (scope === 'viewport' && (r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth)) continue;
    total++;
    if (out.length >= limit) continue;
    out.push({xpath: xpathOf(el), tag: el.tagName.toLowerCase(),
              text: (el.innerText || el.value || el.getAttribute('aria-label') || '').trim().slice(0, 120),
              bbox: {x: Math.round(r.x), y: Math.round(r.y + scrollY), w: Math.round(r.width), h: Math.round(r.height)}});
  }
  return {elements: out, total};
})
"""


async def xpath_scan(tab: Tab, action: Action) -> Result:
    scope = action.params.get("scope", "viewport")
    if scope not in ("viewport", "document"):
        raise _invalid(f"params.scope must be 'viewport' or 'document', got {scope!r}")
    limit = _int_param(action.params, "limit", 500, minimum=1)
    found = await tab.evaluate(f"{_XPATH_SCAN_SCRIPT}({json.dumps(scope)}, {limit})")
    return {"elements": found["elements"], "total": found["total"], "truncated": found["total"] > limit}, None


# --------------------------------------------------------------------------- observe / snapshot


def _budget(tab: Tab, action: Action) -> int:
    return _int_param(action.params, "max_elements", tab.session.policy.snapshot_max_elements, minimum=1)


async def snapshot(tab: Tab, action: Action) -> Result:
    taken = await tab.take_snapshot(_budget(tab, action))
    max_chars = _int_param(action.params, "max_chars", tab.session.policy.snapshot_max_chars, minimum=100)
    return {**taken.to_dict(), "rendered": taken.render(max_chars)}, taken


async def observe(tab: Tab, action: Action) -> Result:
    taken = await tab.take_snapshot(_budget(tab, action))
    text_chars = _int_param(action.params, "text_chars", 2000, minimum=0)
    excerpt = await tab.evaluate(f"(document.body ? document.body.innerText : '').slice(0, {text_chars})")
    observation = Observation(
        tab_id=tab.tab_id, url=taken.url, title=taken.title, text_excerpt=str(excerpt or ""), snapshot=taken
    )
    max_chars = _int_param(action.params, "max_chars", tab.session.policy.snapshot_max_chars, minimum=100)
    return {**observation.to_dict(), "rendered": observation.render(max_chars)}, observation


# --------------------------------------------------------------------------- act

_PREPARE_CLICK = """function() {
  if (!this.isConnected) return 'detached';
  this.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  const r = this.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return 'hidden';
  if (this.disabled) return 'disabled';
  const root = this.getRootNode();
  const probe = root.elementFromPoint ? root : this.ownerDocument;
  const hit = probe.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  let node = hit;
  while (node) { if (node === this) return 'ok'; node = node.parentNode || node.host; }
  if (!hit) return 'covered';
  const id = hit.id ? '#' + hit.id : '';
  const cls = typeof hit.className === 'string' && hit.className ? '.' + hit.className.trim().split(/\\s+/).join('.') : '';
  return 'covered:' + hit.tagName.toLowerCase() + id + cls;
}"""


async def _click(tab: Tab, element: ResolvedElement) -> dict[str, Any]:
    state = await tab.call_on(element, _PREPARE_CLICK)
    if state == "detached":
        raise BrowserActionError(ActionErrorCode.STALE_REF, f"element {element.how} is no longer in the page")
    if state in ("hidden", "disabled"):
        raise BrowserActionError(
            ActionErrorCode.NOT_INTERACTABLE, f"element {element.how} is {state}; it cannot be clicked", state=state
        )
    if state.startswith("covered"):
        # A person could not click it either: report what is on top (a cookie banner, a modal)
        # rather than clicking through it or clicking the overlay instead.
        covering = state.partition(":")[2] or "another element"
        raise BrowserActionError(
            ActionErrorCode.NOT_INTERACTABLE,
            f"element {element.how} is covered by {covering}; dismiss it first",
            state="covered",
            covered_by=covering,
        )
    quads = (await tab.cdp.send("DOM.getContentQuads", {"objectId": element.object_id})).get("quads") or []
    if quads:
        quad = quads[0]
        x = sum(quad[0::2]) / 4
        y = sum(quad[1::2]) / 4
        await tab.page.mouse.click(x, y)
        return {"clicked": True, "method": "mouse", "x": round(x, 1), "y": round(y, 1)}
    # Visible by the hit test but without content quads (e.g. inline boxes split oddly): the click
    # goes to this element itself, never to a point that could belong to another one.
    await tab.call_on(element, "function() { this.click(); }")
    return {"clicked": True, "method": "dom"}


_PREPARE_TYPE = """function(clear) {
  if (!this.isConnected) return 'detached';
  const tag = this.tagName.toLowerCase();
  const textual = ['text','search','email','url','tel','password','number',''].includes((this.getAttribute('type') || '').toLowerCase());
  const editable = this.isContentEditable || tag === 'textarea' || (tag === 'input' && textual);
  if (!editable) return 'not_editable';
  if (this.disabled || this.readOnly) return 'disabled';
  this.scrollIntoView({block: 'center', behavior: 'instant'});
  this.focus();
  if (clear) {
    if (this.isContentEditable) { this.textContent = ''; }
    else { this.value = ''; this.dispatchEvent(new Event('input', {bubbles: true})); }
  }
  return 'ok';
}"""


async def _type(tab: Tab, element: ResolvedElement, text: str, *, clear: bool, submit: bool) -> dict[str, Any]:
    state = await tab.call_on(element, _PREPARE_TYPE, clear)
    if state == "detached":
        raise BrowserActionError(ActionErrorCode.STALE_REF, f"element {element.how} is no longer in the page")
    if state != "ok":
        raise BrowserActionError(
            ActionErrorCode.NOT_INTERACTABLE, f"element {element.how} is {state.replace('_', ' ')}", state=state
        )
    if text:
        await tab.cdp.send("Input.insertText", {"text": text})
    if submit:
        await tab.page.keyboard.press("Enter")
    value = await tab.call_on(element, "function() { return this.isContentEditable ? this.innerText : this.value; }")
    return {"typed": True, "value": value, "submitted": submit}


_SELECT_OPTION = """function(value, label) {
  if (!this.isConnected) return {state: 'detached'};
  if (this.tagName.toLowerCase() !== 'select') return {state: 'not_select'};
  if (this.disabled) return {state: 'disabled'};
  const norm = (s) => s.replace(/\\s+/g, ' ').trim().toLowerCase();
  const options = Array.from(this.options);
  const match = options.find(o => value !== null ? o.value === value : norm(o.text) === norm(label));
  if (!match) return {state: 'no_option', options: options.map(o => ({value: o.value, label: o.text.trim()}))};
  this.value = match.value;
  match.selected = true;
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {state: 'ok', value: match.value, label: match.text.trim()};
}"""


async def _select(tab: Tab, element: ResolvedElement, value: str | None, label: str | None) -> dict[str, Any]:
    outcome = await tab.call_on(element, _SELECT_OPTION, value, label)
    state = outcome["state"]
    if state == "detached":
        raise BrowserActionError(ActionErrorCode.STALE_REF, f"element {element.how} is no longer in the page")
    if state == "no_option":
        raise BrowserActionError(
            ActionErrorCode.NOT_FOUND,
            f"no option with {'value ' + repr(value) if value is not None else 'label ' + repr(label)}",
            options=outcome["options"],
        )
    if state != "ok":
        raise BrowserActionError(ActionErrorCode.NOT_INTERACTABLE, f"element {element.how}: {state}", state=state)
    return {"selected": True, "value": outcome["value"], "label": outcome["label"]}


async def _press(tab: Tab, key: str) -> dict[str, Any]:
    *modifiers, main = key.split("+") if key != "+" else ["+"]
    for name in [*modifiers, main]:
        if name not in keyDefinitions:
            raise _invalid(f"unknown key {name!r} in {key!r}; use names like Enter, Tab, Escape, ArrowDown, a, Shift+Tab")
    for modifier in modifiers:
        await tab.page.keyboard.down(modifier)
    await tab.page.keyboard.press(main)
    for modifier in reversed(modifiers):
        await tab.page.keyboard.up(modifier)
    return {"pressed": key}


async def _scroll(tab: Tab, element: ResolvedElement | None, direction: str, amount: int) -> dict[str, Any]:
    if element is not None:
        await tab.call_on(element, "function() { this.scrollIntoView({block: 'center', behavior: 'instant'}); }")
    else:
        dx, dy = {"down": (0, amount), "up": (0, -amount), "right": (amount, 0), "left": (-amount, 0)}[direction]
        await tab.evaluate(f"window.scrollBy({{left: {dx}, top: {dy}, behavior: 'instant'}})")
    position = await tab.evaluate("({x: scrollX, y: scrollY})")
    return {"scrolled": True, "scroll_x": position["x"], "scroll_y": position["y"]}


async def act(tab: Tab, action: Action) -> Result:
    params = action.params
    try:
        kind = ActKind(params.get("kind"))
    except ValueError:
        raise _invalid(f"params.kind must be one of {[k.value for k in ActKind]}, got {params.get('kind')!r}") from None
    await _refuse_blocked_tab(tab)
    element: ResolvedElement | None = None
    needs_target = kind in (ActKind.CLICK, ActKind.TYPE, ActKind.SELECT)
    if needs_target or params.get("target") is not None:
        element = await tab.resolve(_target_param(params))
    data: dict[str, Any]
    if kind is ActKind.CLICK:
        assert element is not None
        data = await _click(tab, element)
    elif kind is ActKind.TYPE:
        assert element is not None
        text = _str_param(params, "text")
        assert text is not None
        data = await _type(tab, element, text, clear=bool(params.get("clear", True)), submit=bool(params.get("submit")))
    elif kind is ActKind.SELECT:
        assert element is not None
        value = _str_param(params, "value", required=False)
        label = _str_param(params, "label", required=False)
        if (value is None) == (label is None):
            raise _invalid("select needs exactly one of params.value or params.label")
        data = await _select(tab, element, value, label)
    elif kind is ActKind.PRESS:
        key = _str_param(params, "key")
        assert key is not None
        if element is not None:
            await tab.call_on(element, "function() { this.focus(); }")
        data = await _press(tab, key)
    else:
        direction = params.get("direction", "down")
        if direction not in ("up", "down", "left", "right"):
            raise _invalid(f"params.direction must be up, down, left or right, got {direction!r}")
        data = await _scroll(tab, element, direction, _int_param(params, "amount", 600, minimum=1))
    return {"kind": kind.value, "target": element.how if element else None, **data}, None


async def browser_click(tab: Tab, action: Action) -> Result:
    xpath = _str_param(action.params, "xpath")
    await _refuse_blocked_tab(tab)
    element = await tab.resolve(Target(xpath=xpath))
    return await _click(tab, element), None


async def browser_type(tab: Tab, action: Action) -> Result:
    xpath = _str_param(action.params, "xpath")
    text = _str_param(action.params, "text")
    assert text is not None
    await _refuse_blocked_tab(tab)
    element = await tab.resolve(Target(xpath=xpath))
    return await _type(tab, element, text, clear=True, submit=bool(action.params.get("submit"))), None


# --------------------------------------------------------------------------- wait / extract / close


async def wait(tab: Tab, action: Action) -> Result:
    params = action.params
    try:
        kind = WaitKind(params.get("kind"))
    except ValueError:
        raise _invalid(f"params.kind must be one of {[k.value for k in WaitKind]}, got {params.get('kind')!r}") from None
    started = asyncio.get_running_loop().time()
    if kind is WaitKind.TIMEOUT:
        milliseconds = _int_param(params, "value", 0)
        if milliseconds > tab.remaining_ms():
            raise _invalid(f"wait timeout {milliseconds} ms exceeds the action's timeout; raise timeout_ms")
        await asyncio.sleep(milliseconds / 1000)
    elif kind is WaitKind.LOAD:
        await _wait_until_loaded(tab)
    else:
        value = _str_param(params, "value")
        assert value is not None
        pattern = re.compile(value) if (kind is WaitKind.URL and params.get("regex")) else None
        while True:
            if kind is WaitKind.TEXT_INCLUDES:
                body = await tab.evaluate("document.body ? document.body.innerText : ''")
                satisfied = value in str(body or "")
            else:
                url = await tab.current_url()
                satisfied = bool(pattern.search(url)) if pattern else value in url
            if satisfied:
                break
            if tab.remaining_ms() < 100:
                what = f"text {value!r}" if kind is WaitKind.TEXT_INCLUDES else f"url matching {value!r}"
                raise BrowserActionError(
                    ActionErrorCode.TIMEOUT, f"{what} did not appear on tab {tab.tab_id} in time", url=tab.page.url
                )
            await asyncio.sleep(_POLL_SECONDS)
    waited = (asyncio.get_running_loop().time() - started) * 1000
    return {"kind": kind.value, "satisfied": True, "waited_ms": round(waited)}, None


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
        raise _invalid(f"{where} must be a CSS selector string or an object with 'selector' or 'target'")
    unknown = sorted(set(spec) - _FIELD_KEYS)
    if unknown:
        raise _invalid(f"{where} has unknown keys {unknown}; allowed: {sorted(_FIELD_KEYS)}")
    if ("selector" in spec) == ("target" in spec):
        raise _invalid(f"{where} needs exactly one of 'selector' (CSS) or 'target' (ref, role+name, text, css or xpath)")
    attr = spec.get("attr")
    if attr is not None and not isinstance(attr, str):
        raise _invalid(f"{where}.attr must be a string")
    read_all = bool(spec.get("all"))
    if "selector" in spec:
        if not isinstance(spec["selector"], str):
            raise _invalid(f"{where}.selector must be a string")
        return _FieldRequest(spec["selector"], None, attr, read_all)
    target = Target.from_params(spec["target"], field_path=f"{where}.target")
    if target.css and not target.index:
        return _FieldRequest(target.css, None, attr, read_all)
    if read_all:
        raise _invalid(f"{where}.all needs a CSS selector; a {target.kind} target names one element")
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


async def extract(tab: Tab, action: Action) -> Result:
    params = action.params
    if params.get("readable"):
        return await readability_extract(tab, action)
    fields = params.get("fields")
    if not isinstance(fields, dict) or not fields:
        raise _invalid("extract needs params.fields ({name: {selector | target, attr?, all?}}) or params.readable=true")
    requests = {name: _field_request(name, spec) for name, spec in fields.items()}
    batch = {
        name: {"selector": r.selector, "attr": r.attr, "all": r.all} for name, r in requests.items() if r.selector is not None
    }
    values: dict[str, Any] = {}
    if batch:
        try:
            values = await tab.evaluate(f"{_EXTRACT_FIELDS}({json.dumps(batch)})")
        except BrowserActionError as exc:
            raise _invalid(f"bad selector in params.fields: {exc.error.message}") from None
    for name, request in requests.items():
        if request.target is not None:
            values[name] = await _read_target(tab, request.target, request.attr)
    ordered = {name: values.get(name) for name in requests}
    missing = [name for name, value in ordered.items() if value is None or value == []]
    return {"fields": ordered, "missing": missing, "url": await tab.current_url()}, None


async def close(tab: Tab, action: Action) -> Result:
    summary = _str_param(action.params, "summary", required=False)
    await tab.session._close_context()
    return {"closed": True, "summary": summary}, None


# --------------------------------------------------------------------------- verify


_FINGERPRINT_SCRIPT = """(() => {
  const els = document.getElementsByTagName('*');
  const tags = new Array(els.length);
  for (let i = 0; i < els.length; i++) tags[i] = els[i].tagName;
  const fields = Array.from(document.querySelectorAll('input,textarea,select'))
    .map(e => e.type === 'checkbox' || e.type === 'radio' ? String(e.checked) : e.value);
  return {url: location.href, structure: tags.join(','), fields: fields.join('\\u0001'),
          text: document.body ? document.body.innerText : ''};
})()"""


async def page_fingerprint(tab: Tab, action: Action) -> Result:
    raw = await tab.evaluate(_FINGERPRINT_SCRIPT)
    digest = hashlib.sha256(
        "\u0000".join((raw["url"], raw["structure"], raw["fields"], raw["text"])).encode("utf-8")
    ).hexdigest()
    fingerprint = PageFingerprint(
        url=raw["url"],
        digest=digest,
        element_count=raw["structure"].count(",") + 1 if raw["structure"] else 0,
        text_length=len(raw["text"]),
    )
    return fingerprint.to_dict(), fingerprint


_ELEMENT_STATE = """function() {
  const r = this.getBoundingClientRect();
  const style = getComputedStyle(this);
  return {
    exists: this.isConnected,
    visible: this.isConnected && r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && style.display !== 'none',
    enabled: !this.disabled,
    checked: !!this.checked,
    value: 'value' in this ? String(this.value) : (this.innerText || '').trim(),
  };
}"""


async def verify(tab: Tab, action: Action) -> Result:
    params = action.params
    check = params.get("check")
    if check == "url_matches":
        value = _str_param(params, "value")
        assert value is not None
        url = await tab.current_url()
        passed = bool(re.search(value, url)) if params.get("regex") else value in url
        outcome = VerifyOutcome(check, passed, value, url, f"url {url} {'matches' if passed else 'does not match'} {value!r}")
    elif check == "text_present":
        value = _str_param(params, "value")
        assert value is not None
        body = " ".join(str(await tab.evaluate("document.body ? document.body.innerText : ''") or "").split())
        passed = " ".join(value.split()) in body
        outcome = VerifyOutcome(check, passed, value, body[:300],
                                f"text {value!r} {'is' if passed else 'is not'} on the page")
    elif check == "element_state":
        target = _target_param(params)
        state = params.get("state", "exists")
        if state not in ("exists", "visible", "enabled", "checked", "value"):
            raise _invalid(f"params.state must be exists, visible, enabled, checked or value, got {state!r}")
        expected = params.get("expected", True if state != "value" else None)
        if state == "value" and not isinstance(expected, str):
            raise _invalid("element_state with state=value needs params.expected (a string)")
        try:
            element = await tab.resolve(target)
            observed_states = await tab.call_on(element, _ELEMENT_STATE)
        except BrowserActionError as exc:
            if exc.error.code is not ActionErrorCode.NOT_FOUND:
                raise
            observed_states = {"exists": False, "visible": False, "enabled": False, "checked": False, "value": None}
        observed = observed_states[state]
        passed = observed == expected
        outcome = VerifyOutcome(check, passed, expected, observed,
                                f"{target.to_dict()} {state}={observed!r} (expected {expected!r})")
    elif check == "title_includes":
        value = _str_param(params, "value")
        assert value is not None
        title = str(await tab.evaluate("document.title") or "")
        passed = " ".join(value.split()).casefold() in " ".join(title.split()).casefold()
        outcome = VerifyOutcome(check, passed, value, title,
                                f"title {title!r} {'includes' if passed else 'does not include'} {value!r}")
    else:
        raise _invalid(
            f"params.check must be url_matches, text_present, title_includes or element_state, got {check!r}"
        )
    return outcome.to_dict(), outcome


HANDLERS: dict[str, Handler] = {
    ActionName.SESSION_START.value: session_start,
    ActionName.SESSION_STOP.value: session_stop,
    ActionName.BROWSER_WAIT_FOR_LOADED.value: wait_for_loaded,
    ActionName.BROWSER_SCREENSHOT.value: screenshot,
    ActionName.BROWSER_READABILITY_EXTRACT.value: readability_extract,
    ActionName.BROWSER_XPATH_SCAN.value: xpath_scan,
    ActionName.BROWSER_CLICK.value: browser_click,
    ActionName.BROWSER_TYPE.value: browser_type,
    ActionName.BROWSER_GET_HTML.value: get_html,
    ActionName.OPEN_URL.value: open_url,
    ActionName.OBSERVE.value: observe,
    ActionName.SNAPSHOT.value: snapshot,
    ActionName.ACT.value: act,
    ActionName.WAIT.value: wait,
    ActionName.EXTRACT.value: extract,
    ActionName.CLOSE.value: close,
    ActionName.VERIFY.value: verify,
    ActionName.PAGE_FINGERPRINT.value: page_fingerprint,
    ActionName.PREPARE_PAGE.value: prepare_page,
}
