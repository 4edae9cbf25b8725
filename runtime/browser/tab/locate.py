"""Finding the one element a locator names, with Playwright's strictness.

A locator names elements by role (and accessible name), text, label, placeholder, alt text,
title, test id (`data-testid`), CSS or XPath; `has_text` narrows the matches, `within` scopes the
search to a container (itself one element) and `frame` to an iframe's document. The search runs
in the frame's isolated world (page scripts cannot see or fake it), over the document and its open
shadow roots, in document order; CSS selectors pierce open shadow roots too. Roles and accessible
names are the snapshot's (snapshot_capture.ELEMENT_VOCABULARY: accname 1.2 and HTML-AAM as Chromium
computes them), whole however long; role and name locators skip aria-hidden subtrees.

Strictness: only visible elements count, and among them the ones a person can see first (not at
opacity 0, off the page or clipped away; runtime/browser/shown.py). When several match, the locator must say which (`nth`,
or `first`), else the action fails with `ambiguous_target` and lists them: the driver never picks
"the first one" on its own. An exact name or text (`exact`) is compared case-sensitively, whole;
otherwise case-insensitively, and whole matches win over partial ones. CSS, XPath and test-id
locators that match only hidden elements still find them (a hidden input's value can be read;
a click then fails as not_interactable).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runtime.browser.vocabulary.actions import Target
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError
from runtime.browser.vocabulary.shown import SHOWN_HELPERS
from runtime.browser.tab.snapshot_capture import ELEMENT_VOCABULARY, FrameWorlds

# Candidates an ambiguous_target error lists (the count is always given in full).
LISTED_CANDIDATES = 10
# Locator kinds that may find hidden elements when no visible one matches.
STRUCTURAL_KINDS = frozenset({"css", "xpath", "test_id"})

# The search, a function of one spec (`locate_spec`). It leaves its matches in
# `globalThis.__verityLocated`, where the chosen one is taken from (by `locate`, or in the same
# evaluation by a read that locates and reads at once: action_handlers/extract.py).
LOCATE_FUNCTION = r"""(function (spec) {
""" + ELEMENT_VOCABULARY + SHOWN_HELPERS + r"""
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const shown = (el) => {
    if (!el.isConnected || (el.checkVisibility && !el.checkVisibility({visibilityProperty: true}))) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const descendants = (root) => {
    const out = [];
    const stack = [];
    const push = (node) => {
      const kids = [];
      for (let c = node.firstElementChild; c; c = c.nextElementSibling) kids.push(c);
      if (node.shadowRoot) for (let c = node.shadowRoot.firstElementChild; c; c = c.nextElementSibling) kids.push(c);
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    };
    push(root);
    while (stack.length) { const el = stack.pop(); if (!SKIP.has(el.tagName)) { out.push(el); push(el); } }
    return out;
  };
  // 2: the whole text matches; 1: part of it (not exact only); 0: no match.
  const score = (actual, wanted, exact) => {
    const a = norm(actual), w = norm(wanted);
    if (exact) return a === w ? 2 : 0;
    const al = a.toLowerCase(), wl = w.toLowerCase();
    return al === wl ? 2 : (wl && al.includes(wl) ? 1 : 0);
  };
  const fullText = (el) => {
    const tag = el.localName, type = (el.getAttribute('type') || '').toLowerCase();
    if (tag === 'input' && ['button', 'submit', 'reset'].includes(type)) return el.value;
    return el.textContent;
  };
  // Each label a field has, read as its accessible name reads it (accname 1.2's text alternative,
  // the snapshot's own): a <label>'s text without what is hidden, with its CSS content and an
  // embedded control's value; aria-labelledby's elements (hidden ones too, as accname has it).
  const labelsOf = (el) => {
    const out = [];
    const alternative = (node, labelled) => squash(textAlternative(node, {visited: new Set([el]), includeHidden: labelled && hiddenForAria(node), labelled, root: false}));
    if (el.labels) for (const l of el.labels) if (!hiddenForAria(l)) out.push(alternative(l, false));
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const root = el.getRootNode();
      out.push(by.split(/\s+/).map(id => root.getElementById ? root.getElementById(id) : null).filter(Boolean).map(n => alternative(n, true)).join(' '));
    }
    const aria = el.getAttribute('aria-label');
    if (aria) out.push(aria);
    return out;
  };
  const best = (values, wanted, exact) => Math.max(0, ...values.filter(v => v !== null && v !== undefined).map(v => score(v, wanted, exact)));
  const scorer = (s) => {
    const v = s.value, exact = !!s.exact;
    switch (s.kind) {
      // Elements outside the accessibility tree (an aria-hidden subtree) have no role to match
      // (asked last: it is the dearer question, and most elements fail the others).
      case 'role': return (el) => {
        const tag = el.localName, role = roleOf(el, tag);
        if (role !== v.toLowerCase()) return 0;
        const matched = s.name === null || s.name === undefined ? 2 : score(nameOf(el, tag, role), s.name, exact);
        return matched && !ariaHiddenAbove(el) ? matched : 0;
      };
      case 'name': return (el) => {
        const tag = el.localName, role = roleOf(el, tag);
        if (!(role || isInteractive(el, tag, role))) return 0;
        const matched = score(nameOf(el, tag, role), v, exact);
        return matched && !ariaHiddenAbove(el) ? matched : 0;
      };
      case 'text': return (el) => score(fullText(el), v, exact);
      case 'label': return (el) => best(labelsOf(el), v, exact);
      case 'placeholder': return (el) => best([el.getAttribute('placeholder')], v, exact);
      case 'alt': return (el) => best([el.getAttribute('alt')], v, exact);
      case 'title': return (el) => best([el.getAttribute('title')], v, exact);
      case 'test_id': return (el) => el.getAttribute('data-testid') === v ? 2 : 0;
    }
    return null;
  };
  // CSS that pierces open shadow roots, as Playwright's does: a selector is split into compound
  // selectors and combinators, each compound is matched by the browser, and the combinators are
  // followed in the composed tree (a shadow root's parent is its host), so `shop-shelf button`
  // finds a button inside <shop-shelf>'s shadow root.
  const splitSelector = (text, separators) => {
    const parts = [];
    let depth = 0, quote = '', start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (quote) { if (c === '\\') i++; else if (c === quote) quote = ''; continue; }
      if (c === '"' || c === "'") quote = c;
      else if (c === '\\') i++;
      else if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
      else if (depth === 0 && separators.includes(c)) { parts.push(text.slice(start, i), c); start = i + 1; }
    }
    parts.push(text.slice(start));
    return separators === ',' ? parts.filter((p, i) => i % 2 === 0) : parts;
  };
  // [{compound, combinator}], the combinator joining each compound to the one before it.
  const compoundChain = (complex) => {
    const pieces = splitSelector(complex.trim(), ' \t\n>+~');
    const chain = [];
    let combinator = null;
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i];
      if (i % 2 === 1) { if (piece.trim()) combinator = piece; else if (!combinator) combinator = ' '; continue; }
      if (!piece.trim()) continue;
      chain.push({compound: piece, combinator: chain.length ? combinator || ' ' : null});
      combinator = null;
    }
    return chain;
  };
  const parentOrHost = (el) => el.parentElement || (el.parentNode && el.parentNode.host) || null;
  const composedMatch = (el, chain, i) => {
    if (!el.matches(chain[i].compound)) return false;
    if (i === 0) return true;
    switch (chain[i].combinator) {
      case '>': { const p = parentOrHost(el); return !!p && composedMatch(p, chain, i - 1); }
      case '+': { const p = el.previousElementSibling; return !!p && composedMatch(p, chain, i - 1); }
      case '~': for (let p = el.previousElementSibling; p; p = p.previousElementSibling) if (composedMatch(p, chain, i - 1)) return true; return false;
      default: for (let p = parentOrHost(el); p; p = parentOrHost(p)) if (composedMatch(p, chain, i - 1)) return true; return false;
    }
  };
  const structural = (s, root) => {
    if (s.kind === 'css') {
      root.querySelector(s.value);  // a selector the browser cannot parse fails here, with its message
      const all = descendants(root);
      const alternatives = splitSelector(s.value, ',');
      if (alternatives.some((a) => !a.trim())) return Array.from(root.querySelectorAll(s.value));
      const chains = alternatives.map(compoundChain);
      return all.filter((el) => chains.some((chain) => composedMatch(el, chain, chain.length - 1)));
    }
    const doc = root.ownerDocument || root;
    const found = doc.evaluate(s.value, root, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    const out = [];
    for (let i = 0; i < found.snapshotLength; i++) { const n = found.snapshotItem(i); if (n.nodeType === 1) out.push(n); }
    return out;
  };
  const find = (s, root) => {
    let scored;
    if (s.kind === 'css' || s.kind === 'xpath') scored = structural(s, root).map(el => [el, 2]);
    else { const f = scorer(s); scored = descendants(root).map(el => [el, f(el)]).filter(p => p[1] > 0); }
    if (s.kind === 'text') {
      // The innermost element that says it: a wrapper around the matching span is not a match.
      const kept = new Set(scored.map(p => p[0]));
      scored = scored.filter(([el]) => !Array.from(kept).some(o => o !== el && el.contains(o)));
    }
    if (s.has_text) scored = scored.filter(([el]) => score(el.textContent, s.has_text, false) > 0);
    const visible = scored.filter(([el]) => shown(el));
    // Among those, the ones a person can see (not at opacity 0, not off the page, not clipped
    // away: runtime/browser/shown.py) count first, so a decoy drawn invisibly before the element
    // shown is neither read nor clicked; with none seen, the rendered ones count (a checkbox
    // styled at opacity 0 under its label is still the one to click).
    const seen = visible.filter(([el]) => shownElement(el) && shownRects(el.getClientRects()));
    let pool = seen.length ? seen : visible;
    if (!visible.length && ['css', 'xpath', 'test_id'].includes(s.kind)) pool = scored;
    if (pool.some(p => p[1] === 2)) pool = pool.filter(p => p[1] === 2);
    return pool.map(p => p[0]);
  };
  const describe = (el) => {
    // An element in an aria-hidden subtree (found by CSS, say) has no role or name to show.
    const tag = el.localName, hidden = ariaHiddenAbove(el), role = hidden ? '' : roleOf(el, tag);
    return {tag, role, name: hidden ? '' : cap(nameOf(el, tag, role), 120), text: norm(el.textContent).slice(0, 80), visible: shown(el)};
  };
  let root = document;
  for (const scope of spec.within) {
    const containers = find(scope, root);
    if (containers.length !== 1) return {scope_error: containers.length ? 'ambiguous' : 'not_found', scope, candidates: containers.slice(0, 10).map(describe), count: containers.length};
    root = containers[0];
  }
  const matches = find(spec, root);
  globalThis.__verityLocated = matches;
  return {count: matches.length, candidates: matches.slice(0, spec.listed).map(describe), chosen: spec.nth === null ? null : (matches.at(spec.nth) ? describe(matches.at(spec.nth)) : null)};
})
"""


@dataclass(frozen=True)
class Located:
    """The element a locator found: its live handle and how it was chosen (for evidence)."""

    object_id: str
    how: dict[str, Any]


def locate_spec(target: Target) -> dict[str, Any]:
    """The in-page search for one target (`LOCATE_FUNCTION`'s argument; the frame aside, which
    `locate` finds first): kind and value, name, exact, has_text, the chain of `within`
    containers outermost first, and which match to take."""
    chain: list[dict[str, Any]] = []
    scope = target.within
    while scope is not None:
        chain.insert(0, _one(scope))
        scope = scope.within
    nth = target.index if target.index is not None else (0 if target.first else None)
    return {**_one(target), "within": chain, "nth": nth, "listed": LISTED_CANDIDATES}


def _one(target: Target) -> dict[str, Any]:
    kind = target.kind
    value = getattr(target, kind) if kind != "name" else target.name
    return {"kind": kind, "value": value, "name": target.name if kind == "role" else None, "exact": target.exact, "has_text": target.has_text}


async def locate(worlds: FrameWorlds, cdp: Any, target: Target) -> Located:
    """The one element `target` names in a tab (its frame worlds and CDP session; see the module
    rules), or not_found / ambiguous_target."""
    context_id = await _context_for(worlds, cdp, target.frame)
    spec = locate_spec(target)
    reply = await worlds.call(context_id, LOCATE_FUNCTION, spec)
    how = target.to_dict()
    if "exceptionDetails" in reply:
        details = reply["exceptionDetails"]
        raise invalid_locator(how, str((details.get("exception") or {}).get("description") or details.get("text") or "script error"))
    chosen_index, chosen_how = choose_match(reply["result"]["value"], spec, how)
    element = await worlds.evaluate(context_id, f"globalThis.__verityLocated.at({int(chosen_index)})", by_value=False)
    result = element.get("result", {})
    if result.get("subtype") != "node":
        raise BrowserActionError(ActionErrorCode.NOT_FOUND, f"the element matching {how} vanished", target=how)
    return Located(result["objectId"], chosen_how)


def chosen_index(spec: dict[str, Any]) -> int:
    """Which match a search takes when it is unambiguous: its `nth`, else the only one. The
    in-page read of a located element (runtime/browser/action_handlers/extract.py) takes the same."""
    return 0 if spec["nth"] is None else int(spec["nth"])


def choose_match(found: dict[str, Any], spec: dict[str, Any], how: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Strictness, applied to what `LOCATE_FUNCTION` found for `spec`: the index of the match to
    take and how it was chosen (for evidence), or not_found / ambiguous_target."""
    if "scope_error" in found:
        _raise_for_scope(found, how)
    count = int(found["count"])
    candidates = found["candidates"]
    if spec["nth"] is None and count > 1:
        listed = "; ".join(_describe(c) for c in candidates)
        raise BrowserActionError(
            ActionErrorCode.AMBIGUOUS_TARGET,
            f"{count} visible elements match {how}: {listed}{' ...' if count > len(candidates) else ''}; "
            "say which with nth (0-based, -1 for the last) or first: true, or narrow the locator",
            target=how,
            count=count,
            candidates=candidates,
        )
    index = chosen_index(spec)
    if count == 0 or found["chosen"] is None and spec["nth"] is not None or not (-count <= index < count):
        raise BrowserActionError(ActionErrorCode.NOT_FOUND, f"no visible element matches {how} ({count} match(es))", target=how, count=count)
    chosen = found["chosen"] if spec["nth"] is not None else candidates[0]
    return index, {**how, "matches": count, "chosen": {"nth": index, **chosen}}


def invalid_locator(how: dict[str, Any], description: str) -> BrowserActionError:
    """A locator the browser could not run (a CSS or XPath it cannot parse), with its message."""
    return BrowserActionError(ActionErrorCode.INVALID_PARAMS, f"invalid locator {how}: {description.splitlines()[0]}", target=how)


def _describe(candidate: dict[str, Any]) -> str:
    label = candidate.get("name") or candidate.get("text") or ""
    return f"{candidate.get('role') or candidate.get('tag')} {label!r}"


def _raise_for_scope(found: dict[str, Any], how: dict[str, Any]) -> None:
    scope = found["scope"]
    where = f"{scope['kind']}={scope['value']!r}"
    if found["scope_error"] == "ambiguous":
        raise BrowserActionError(
            ActionErrorCode.AMBIGUOUS_TARGET,
            f"the container within {how} is ambiguous: {found['count']} visible elements match {where}; "
            "a container must be one element",
            target=how,
            count=found["count"],
            candidates=found["candidates"],
        )
    raise BrowserActionError(ActionErrorCode.NOT_FOUND, f"no visible container matches {where} for {how}", target=how)


async def _context_for(worlds: FrameWorlds, cdp: Any, frame: Target | None) -> int:
    """The isolated world to search in: the top document's, or the document of the iframe
    `frame` names (found itself with strictness, in its own parent's document)."""
    if frame is None:
        return await worlds.top_context()
    frames = await worlds.frames()
    owner = await locate(worlds, cdp, frame)
    if owner.how["chosen"].get("tag") not in ("iframe", "frame"):
        raise BrowserActionError(ActionErrorCode.INVALID_PARAMS, f"frame {frame.to_dict()} names a {owner.how['chosen'].get('tag')}, not an iframe")
    node = (await cdp.send("DOM.describeNode", {"objectId": owner.object_id})).get("node", {})
    frame_id = node.get("frameId")
    match = next((f for f in frames if f["id"] == frame_id), None)
    if match is None:
        raise BrowserActionError(ActionErrorCode.NOT_FOUND, f"the iframe {frame.to_dict()} has no document yet", target=frame.to_dict())
    return await worlds.context_for(match)
