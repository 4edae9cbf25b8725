"""Collecting element candidates from every frame of a tab, with roles, names and live handles.

A small walker runs inside each frame in an isolated JavaScript world (page scripts cannot see
or tamper with it). It pierces open shadow roots, computes roles and accessible names (ARIA
implicit roles; aria-label, aria-labelledby, <label>, alt, placeholder, title, content), applies
the element budget, and keeps the chosen elements in that world's registry: a ref resolves to
the very object the walker saw, so a re-rendered or removed element can never stand in for it.

Why not `DOMSnapshot.captureSnapshot`: on a 10,000-element page it costs ~600 ms in Chromium
plus ~250 ms of decoding in Python; the in-page walker returns only the budgeted elements.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from runtime.browser.observation import BoundingBox

WORLD_NAME = "verity-driver"

# How elements are read: implicit ARIA roles, accessible names, interactivity. Shared by the
# snapshot walker and the locator (locate.py), so a role and name mean the same in both.
ELEMENT_VOCABULARY = r"""
  const SKIP = new Set(['SCRIPT','STYLE','NOSCRIPT','TEMPLATE','HEAD','TITLE','META','LINK']);
  const HEADINGS = new Set(['h1','h2','h3','h4','h5','h6']);
  const INTERACTIVE_TAGS = new Set(['button','select','textarea','summary','details']);
  const INTERACTIVE_ROLES = new Set(['button','link','checkbox','radio','textbox','searchbox','combobox',
    'listbox','option','menuitem','menuitemcheckbox','menuitemradio','tab','switch','slider','spinbutton',
    'treeitem','gridcell']);
  const CONTENT_NAMED = new Set(['button','link','heading','option','tab','menuitem','menuitemcheckbox',
    'menuitemradio','treeitem','cell','gridcell','columnheader','rowheader','switch','checkbox','radio',
    'listitem','tooltip','paragraph','label','']);
  const INPUT_ROLES = {button:'button', submit:'button', reset:'button', image:'button', checkbox:'checkbox',
    radio:'radio', range:'slider', number:'spinbutton', search:'searchbox'};
  const TAG_ROLES = {button:'button', select:'combobox', textarea:'textbox', summary:'button', h1:'heading',
    h2:'heading', h3:'heading', h4:'heading', h5:'heading', h6:'heading', img:'img', option:'option',
    li:'listitem', ul:'list', ol:'list', nav:'navigation', main:'main', form:'form', table:'table', td:'cell',
    th:'columnheader', tr:'row', p:'paragraph', dialog:'dialog', label:'label', iframe:'iframe',
    aside:'complementary', header:'banner', footer:'contentinfo', article:'article'};
  const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const cap = (s, n) => s.length > n ? s.slice(0, n) : s;

  const roleOf = (el, tag) => {
    const explicit = el.getAttribute('role');
    if (explicit && explicit.trim()) return explicit.trim().split(/\s+/)[0].toLowerCase();
    if (tag === 'a') return el.hasAttribute('href') ? 'link' : '';
    if (tag === 'input') return INPUT_ROLES[(el.getAttribute('type') || 'text').toLowerCase()] || 'textbox';
    if (tag === 'select' && (el.multiple || el.size > 1)) return 'listbox';
    // A section is a region landmark only when it is named.
    if (tag === 'section') return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : '';
    return TAG_ROLES[tag] || '';
  };
  const textOf = (el) => cap(squash(el.textContent), 120);
  const nameOf = (el, tag, role) => {
    const aria = el.getAttribute('aria-label');
    if (aria && aria.trim()) return cap(squash(aria), 120);
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const root = el.getRootNode();
      const text = labelledBy.split(/\s+/).map(id => root.getElementById ? root.getElementById(id) : null)
        .filter(Boolean).map(textOf).join(' ');
      if (text.trim()) return cap(squash(text), 120);
    }
    if (tag === 'input' || tag === 'select' || tag === 'textarea') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (tag === 'input' && (type === 'button' || type === 'submit' || type === 'reset'))
        return el.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
      if (tag === 'input' && type === 'image') return el.alt || '';
      if (el.labels && el.labels.length) return cap(squash(Array.from(el.labels).map(textOf).join(' ')), 120);
      return cap(el.getAttribute('placeholder') || el.getAttribute('title') || '', 120);
    }
    if (tag === 'img') return cap(el.getAttribute('alt') || '', 120);
    if (CONTENT_NAMED.has(role) || tag === 'a' || tag === 'li') { const t = textOf(el); if (t) return t; }
    return cap(el.getAttribute('title') || '', 120);
  };
  const isInteractive = (el, tag, role) =>
    INTERACTIVE_ROLES.has(role) || INTERACTIVE_TAGS.has(tag) || (tag === 'a' && el.hasAttribute('href')) ||
    (tag === 'input' && el.type !== 'hidden') || el.hasAttribute('onclick') ||
    (el.hasAttribute('contenteditable') && el.getAttribute('contenteditable') !== 'false') ||
    (el.hasAttribute('tabindex') && el.tabIndex >= 0);

"""

_WALKER = r"""
(function (mode, snapshotId, maxElements) {
  const state = globalThis.__verityState ||
    (globalThis.__verityState = {seen: new WeakMap(), seq: 0, snapshotId: null, elements: [], scan: []});
""" + ELEMENT_VOCABULARY + r"""  const found = [];
  const stack = [[document.documentElement, false, false]];
  while (stack.length) {
    const [el, inShadow, inside] = stack.pop();
    if (!el || SKIP.has(el.tagName)) continue;
    const tag = el.localName;
    let interactive = false;
    if (tag !== 'html' && tag !== 'body') {
      const role = roleOf(el, tag);
      interactive = isInteractive(el, tag, role);
      let textBlock = false;
      if (!interactive && !inside) {
        if (HEADINGS.has(tag) || (tag === 'img' && el.getAttribute('alt'))) textBlock = true;
        else for (let c = el.firstChild; c; c = c.nextSibling)
          if (c.nodeType === 3 && c.data.trim()) { textBlock = true; break; }
      }
      if (interactive || textBlock) found.push({el, tag, role, interactive, inShadow, order: found.length});
    }
    const childInside = inside || interactive;
    for (let c = el.lastElementChild; c; c = c.previousElementSibling) stack.push([c, inShadow, childInside]);
    if (el.shadowRoot)
      for (let c = el.shadowRoot.lastElementChild; c; c = c.previousElementSibling) stack.push([c, true, childInside]);
  }

  // Layout queries cost ~10 us per element: only examine elements until the budget is full.
  const visible = (f) => {
    if (!f.el.checkVisibility({visibilityProperty: true})) return false;
    f.r = f.el.getBoundingClientRect();
    return f.r.width > 0 && f.r.height > 0;
  };
  const describe = (f, seenBefore) => {
    const el = f.el, tag = f.tag;
    const name = nameOf(el, tag, f.role);
    const text = textOf(el);
    const attrs = {};
    for (const key of ['type', 'href', 'placeholder', 'aria-expanded', 'name', 'id']) {
      const v = el.getAttribute(key);
      if (v !== null) attrs[key] = cap(v, 200);
    }
    if (tag === 'input' || tag === 'textarea') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (type === 'checkbox' || type === 'radio') attrs.checked = String(el.checked);
      else if (type !== 'password') attrs.value = cap(String(el.value), 200);
    } else if (tag === 'select') {
      const o = el.selectedOptions && el.selectedOptions[0];
      attrs.value = o ? squash(o.text) : '';
    }
    if (el.disabled) attrs.disabled = 'true';
    return [tag, f.role, name, text === name ? '' : text,
            Math.round(f.r.x * 10) / 10, Math.round(f.r.y * 10) / 10,
            Math.round(f.r.width * 10) / 10, Math.round(f.r.height * 10) / 10,
            f.interactive, f.inShadow, attrs, seenBefore];
  };

  const chosen = [];
  let examined = 0;
  for (const wantInteractive of [true, false]) {
    for (const f of found) {
      if (chosen.length >= maxElements) break;
      if (f.interactive !== wantInteractive) continue;
      examined++;
      if (visible(f)) chosen.push(f);
    }
  }
  chosen.sort((a, b) => a.order - b.order);
  const previous = state.seq;
  const current = previous + 1;
  const items = chosen.map(f => describe(f, previous > 0 && state.seen.get(f.el) === previous));
  for (const f of chosen) state.seen.set(f.el, current);
  state.seq = current;
  state.snapshotId = snapshotId;
  state.elements = chosen.map(f => f.el);
  return {total: found.length, examined, items, url: location.href, title: document.title};
})
"""


@dataclass
class Candidate:
    """An element worth showing: interactive, or visible with its own text."""

    tag: str
    role: str
    name: str
    text: str
    bbox: BoundingBox
    interactive: bool
    in_shadow: bool
    attributes: dict[str, str]
    seen_before: bool
    frame: str
    context_id: int
    local_index: int


@dataclass
class FrameCapture:
    frame_id: str
    url: str
    context_id: int
    total: int
    candidates: list[Candidate]


@dataclass
class Capture:
    url: str
    title: str
    frames: list[FrameCapture]
    notes: list[str] = field(default_factory=list)

    @property
    def candidates(self) -> list[Candidate]:
        return [candidate for frame in self.frames for candidate in frame.candidates]

    @property
    def total(self) -> int:
        return sum(frame.total for frame in self.frames)


class FrameWorlds:
    """Isolated-world execution contexts per frame, recreated when a frame loads a new document."""

    def __init__(self, cdp: Any) -> None:
        self._cdp = cdp
        self._contexts: dict[tuple[str, str], int] = {}

    async def frames(self) -> list[dict[str, Any]]:
        """Frames of the tab in document (pre-)order, each with id, url, loaderId, parentId."""
        tree = (await self._cdp.send("Page.getFrameTree"))["frameTree"]
        ordered: list[dict[str, Any]] = []
        pending = [tree]
        while pending:
            node = pending.pop()
            ordered.append(node["frame"])
            pending.extend(reversed(node.get("childFrames", [])))
        return ordered

    async def context_for(self, frame: dict[str, Any]) -> int:
        key = (frame["id"], frame.get("loaderId", ""))
        if key not in self._contexts:
            reply = await self._cdp.send(
                "Page.createIsolatedWorld", {"frameId": frame["id"], "worldName": WORLD_NAME}
            )
            self._contexts[key] = reply["executionContextId"]
        return self._contexts[key]

    def reset(self) -> None:
        """Forget every world: a document replaced without a new loader id (a javascript: URL)
        took its worlds with it."""
        self._contexts.clear()

    def forget(self, frame: dict[str, Any]) -> None:
        self._contexts.pop((frame["id"], frame.get("loaderId", "")), None)

    async def evaluate(self, context_id: int, expression: str, *, by_value: bool = True) -> dict[str, Any]:
        return await self._cdp.send(
            "Runtime.evaluate",
            {"expression": expression, "contextId": context_id, "returnByValue": by_value},
        )


async def capture_candidates(
    cdp: Any, worlds: FrameWorlds, *, mode: str, snapshot_id: str = "", max_elements: int = 1_000_000
) -> Capture:
    """Run the walker in every frame; the chosen elements are registered for refs."""
    capture = Capture(url="", title="", frames=[])
    frames = await worlds.frames()
    for position, frame in enumerate(frames):
        label = "main" if position == 0 else frame.get("url", "")
        expression = f"{_WALKER}({json.dumps(mode)}, {json.dumps(snapshot_id)}, {int(max_elements)})"
        reply: dict[str, Any] | None = None
        for attempt in range(2):
            try:
                context_id = await worlds.context_for(frame)
                reply = await worlds.evaluate(context_id, expression)
                break
            except Exception as exc:  # noqa: BLE001 - a frame may navigate or detach mid-capture
                worlds.forget(frame)
                if attempt == 1:
                    capture.notes.append(f"frame {label} not captured: {str(exc).splitlines()[0]}")
        if reply is None:
            continue
        if "exceptionDetails" in reply:
            capture.notes.append(f"frame {label} not captured: {reply['exceptionDetails'].get('text', 'script error')}")
            continue
        value = reply["result"]["value"]
        if position == 0:
            capture.url = value.get("url", frame.get("url", ""))
            capture.title = value.get("title", "")
        offset_x, offset_y = (0.0, 0.0) if position == 0 else await _frame_offset(cdp, frame["id"])
        candidates = [
            Candidate(
                tag=item[0],
                role=item[1],
                name=item[2],
                text=item[3],
                bbox=BoundingBox(round(item[4] + offset_x, 1), round(item[5] + offset_y, 1), item[6], item[7]),
                interactive=item[8],
                in_shadow=item[9],
                attributes=item[10],
                seen_before=item[11],
                frame=label,
                context_id=context_id,
                local_index=index,
            )
            for index, item in enumerate(value["items"])
        ]
        capture.frames.append(FrameCapture(frame["id"], frame.get("url", ""), context_id, value["total"], candidates))
    return capture


async def _frame_offset(cdp: Any, frame_id: str) -> tuple[float, float]:
    """Top-left of an iframe's content box in the top-level viewport (CSS px)."""
    try:
        owner = await cdp.send("DOM.getFrameOwner", {"frameId": frame_id})
        box = await cdp.send("DOM.getBoxModel", {"backendNodeId": owner["backendNodeId"]})
        content = box["model"]["content"]
        return float(content[0]), float(content[1])
    except Exception:  # noqa: BLE001 - an offset is cosmetic; never fail a snapshot for it
        return 0.0, 0.0


def select_within_budget(candidates: list[Candidate], max_elements: int) -> list[Candidate]:
    """Keep at most `max_elements`, interactive ones first, in document order."""
    if len(candidates) <= max_elements:
        return candidates
    keep: set[int] = set()
    for index, candidate in enumerate(candidates):
        if len(keep) >= max_elements:
            break
        if candidate.interactive:
            keep.add(index)
    for index, candidate in enumerate(candidates):
        if len(keep) >= max_elements:
            break
        if not candidate.interactive:
            keep.add(index)
    return [c for i, c in enumerate(candidates) if i in keep]


def element_expression(snapshot_id: str, local_index: int) -> str:
    """JS (in the frame's isolated world) returning the registered element of a ref, or null."""
    return (
        "(() => { const s = globalThis.__verityState;"
        f" return s && s.snapshotId === {json.dumps(snapshot_id)} ? (s.elements[{int(local_index)}] || null) : null; }})()"
    )
