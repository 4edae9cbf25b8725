"""Collecting element candidates from every frame of a tab, with roles, names and live handles.

A small walker runs inside each frame in an isolated JavaScript world (page scripts cannot see
or tamper with it). It pierces open shadow roots, skips aria-hidden subtrees (they are not in the
accessibility tree), computes roles and accessible names (ELEMENT_VOCABULARY), applies
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

# How elements are read: roles (WAI-ARIA 1.2 and HTML-AAM), accessible names (accname 1.2, as
# Chromium computes them: aria-labelledby, embedded control values, aria-label, <label>, alt,
# legend/caption, content with ::before/::after and slots, title, placeholder) and interactivity.
# Shared by the snapshot walker and the locator (locate.py), so a role and a name mean the same in
# snapshots, refs, strictness counts and locators. Computed in the page: Chromium's own tree
# (Accessibility.getFullAXTree) costs ~5 s on a 17k-link page, and a name is only needed for the
# elements a walk keeps or a locator tests.
ELEMENT_VOCABULARY = r"""
  const SKIP = new Set(['SCRIPT','STYLE','NOSCRIPT','TEMPLATE','HEAD','TITLE','META','LINK']);
  const HEADINGS = new Set(['h1','h2','h3','h4','h5','h6']);
  const INTERACTIVE_TAGS = new Set(['button','select','textarea','summary','details']);
  const INTERACTIVE_ROLES = new Set(['button','link','checkbox','radio','textbox','searchbox','combobox',
    'listbox','option','menuitem','menuitemcheckbox','menuitemradio','tab','switch','slider','spinbutton',
    'treeitem','gridcell']);
  // WAI-ARIA 1.2 roles; `role="foo button"` takes the first token in this list.
  const ARIA_ROLES = new Set(['alert','alertdialog','application','article','banner','blockquote','button',
    'caption','cell','checkbox','code','columnheader','combobox','complementary','contentinfo','definition',
    'deletion','dialog','directory','document','emphasis','feed','figure','form','generic','grid','gridcell',
    'group','heading','img','image','insertion','link','list','listbox','listitem','log','main','mark','marquee',
    'math','menu','menubar','menuitem','menuitemcheckbox','menuitemradio','meter','navigation','none','note',
    'option','paragraph','presentation','progressbar','radio','radiogroup','region','row','rowgroup',
    'rowheader','scrollbar','search','searchbox','separator','slider','spinbutton','status','strong',
    'subscript','superscript','switch','tab','table','tablist','tabpanel','term','textbox','time','timer',
    'toolbar','tooltip','tree','treegrid','treeitem']);
  // Roles whose accessible name comes from their content (WAI-ARIA 1.2 "name from: contents").
  const NAME_FROM_CONTENT = new Set(['button','cell','checkbox','columnheader','gridcell','heading','link',
    'menuitem','menuitemcheckbox','menuitemradio','option','radio','row','rowheader','switch','tab','tooltip',
    'treeitem']);
  const INPUT_ROLES = {button:'button', submit:'button', reset:'button', image:'button', checkbox:'checkbox',
    radio:'radio', range:'slider', number:'spinbutton', search:'searchbox', hidden:'', file:'button'};
  const TEXT_INPUTS = new Set(['', 'text', 'email', 'tel', 'url', 'search']);
  const TAG_ROLES = {button:'button', textarea:'textbox', summary:'button', h1:'heading',
    h2:'heading', h3:'heading', h4:'heading', h5:'heading', h6:'heading', option:'option', datalist:'listbox',
    li:'listitem', ul:'list', ol:'list', menu:'list', nav:'navigation', main:'main', table:'table',
    tr:'row', tbody:'rowgroup', thead:'rowgroup', tfoot:'rowgroup', p:'paragraph', dialog:'dialog',
    label:'label', iframe:'iframe', article:'article', hr:'separator', fieldset:'group', optgroup:'group',
    details:'group', figure:'figure', output:'status', progress:'progressbar', meter:'meter', dt:'term',
    dd:'definition', dfn:'term', svg:'img', math:'math', search:'search', blockquote:'blockquote'};
  const LANDMARK_SCOPES = new Set(['article','aside','main','nav','section']);
  const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const cap = (s, n) => s.length > n ? s.slice(0, n) : s;

  // Everything below is cached for one walk (one evaluation of the script): an element's hidden
  // state, role and name are computed once however many locators, counts or parents ask.
  const hiddenCache = new Map(), roleCache = new Map(), nameCache = new Map();
  // The parent in the flattened tree: a slotted node's slot, a shadow root's host.
  const flatParent = (el) => el.assignedSlot || el.parentElement || (el.parentNode && el.parentNode.host) || null;
  const closestFlat = (el, test) => { for (let n = el; n; n = flatParent(n)) if (test(n)) return n; return null; };
  // Inside an aria-hidden="true" subtree (crossing shadow roots): not in the accessibility tree.
  const ariaHiddenAbove = (el) => {
    let hidden = hiddenCache.get(el);
    if (hidden !== undefined) return hidden;
    if (el.getAttribute('aria-hidden') === 'true') hidden = true;
    else { const parent = flatParent(el); hidden = parent ? ariaHiddenAbove(parent) : false; }
    hiddenCache.set(el, hidden);
    return hidden;
  };
  const styleHides = (style) => style.display === 'none' || style.visibility === 'hidden' || style.visibility === 'collapse';
  // Hidden from the accessibility tree: aria-hidden, display:none (here or above), visibility.
  const hiddenForAria = (el) => SKIP.has(el.tagName) || ariaHiddenAbove(el) || styleHides(getComputedStyle(el)) ||
    (getComputedStyle(el).display !== 'contents' && !el.checkVisibility());
  const focusable = (el) => el.hasAttribute('tabindex') || (el.matches('a[href], area[href], button, input, select, textarea, summary, iframe, [contenteditable]:not([contenteditable=false])') && !el.matches(':disabled'));
  const namedByAuthor = (el) => !!(squash(el.getAttribute('aria-label')) || el.getAttribute('aria-labelledby') || el.getAttribute('title'));

  const implicitRole = (el, tag) => {
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : '';
      case 'input': {
        const type = (el.getAttribute('type') || '').toLowerCase();
        if (el.hasAttribute('list') && (TEXT_INPUTS.has(type) || !(type in INPUT_ROLES))) return 'combobox';
        if (type in INPUT_ROLES) return INPUT_ROLES[type];
        return 'textbox';
      }
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'img': return el.getAttribute('alt') === '' && !namedByAuthor(el) ? 'presentation' : 'img';
      // A section or form is a landmark only when it is named.
      case 'section': return namedByAuthor(el) ? 'region' : '';
      case 'form': return namedByAuthor(el) ? 'form' : '';
      case 'aside': case 'header': case 'footer': {
        const scoped = closestFlat(flatParent(el) || el, (n) => n !== el && LANDMARK_SCOPES.has(n.localName));
        if (tag === 'aside') return scoped && !namedByAuthor(el) ? '' : 'complementary';
        return scoped ? '' : (tag === 'header' ? 'banner' : 'contentinfo');
      }
      case 'td': { const t = el.closest('table'); return t && /^(grid|treegrid)$/.test(roleOf(t, 'table')) ? 'gridcell' : 'cell'; }
      case 'th': {
        const scope = (el.getAttribute('scope') || '').toLowerCase();
        if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
        if (scope === 'col' || scope === 'colgroup') return 'columnheader';
        // No scope: Chromium's guess. Beside a data cell with content it heads its row; among
        // header cells, or alone in its row, it heads a column (alone in a one-row table: nothing).
        const before = el.previousElementSibling, after = el.nextElementSibling;
        if (!before && !after) {
          const table = el.parentElement && el.parentElement.localName === 'tr' ? el.closest('table') : null;
          return table && table.rows.length <= 1 ? '' : 'columnheader';
        }
        const dataCell = (n) => !!n && n.localName === 'td' && (n.children.length > 0 || !!n.textContent.trim());
        if (before && before.localName === 'th' && after && after.localName === 'th') return 'columnheader';
        return dataCell(before) || dataCell(after) ? 'rowheader' : 'columnheader';
      }
    }
    return TAG_ROLES[tag] || '';
  };
  const roleOf = (el, tag) => {
    let role = roleCache.get(el);
    if (role !== undefined) return role;
    role = null;
    const attribute = el.getAttribute('role');
    if (attribute) for (const token of attribute.toLowerCase().split(/\s+/)) {
      if (!ARIA_ROLES.has(token)) continue;
      // A focusable or author-named element keeps its own role (ARIA's presentational conflict rule).
      if ((token === 'none' || token === 'presentation') && (focusable(el) || namedByAuthor(el))) break;
      role = token === 'image' ? 'img' : token === 'none' ? 'presentation' : token;
      break;
    }
    if (role === null) role = implicitRole(el, tag || el.localName);
    roleCache.set(el, role);
    return role;
  };

  // CSS generated content (::before / ::after) as text: the quoted strings of `content`. Asking
  // each element's pseudo styles costs more than the rest of its name, so the document's style
  // sheets are read once for the rules that set `content` on a pseudo-element, the elements those
  // rules can match are found in one query, and only they are asked (every element when a sheet
  // cannot be read or a selector not queried, and elements in shadow roots).
  let pseudoRules;
  const pseudoCandidates = () => {
    if (pseudoRules !== undefined) return pseudoRules;
    const bases = new Set(['q']);
    const visit = (rules) => {
      for (const rule of rules) {
        if (rule.cssRules && rule.cssRules.length) visit(rule.cssRules);
        if (!rule.selectorText || !rule.style || !rule.style.getPropertyValue('content')) continue;
        for (const part of rule.selectorText.split(',')) {
          if (!/::?(before|after)\b/i.test(part)) continue;
          const base = part.replace(/::?(before|after)\b.*$/i, '').trim();
          bases.add(!base || /[>+~]$/.test(base) ? '*' : base);
        }
      }
    };
    try {
      for (const sheet of [...document.styleSheets, ...(document.adoptedStyleSheets || [])]) visit(sheet.cssRules);
      pseudoRules = new Set(document.querySelectorAll([...bases].join(', ')));
    } catch (e) {
      pseudoRules = null;
    }
    return pseudoRules;
  };
  const pseudoText = (el, which) => {
    const rules = pseudoCandidates();
    if (rules !== null && !rules.has(el) && el.getRootNode() === document) return '';
    const content = getComputedStyle(el, which).content;
    if (!content || content === 'none' || content === 'normal') return '';
    let out = '';
    content.replace(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g, (_, a, b) => { out += (a ?? b).replace(/\\(.)/g, '$1'); return ''; });
    return out;
  };
  const CONTROL_VALUE_ROLES = new Set(['textbox','searchbox','combobox','listbox','slider','spinbutton','range']);
  const controlValue = (el, role) => {
    if (role === 'textbox' || role === 'searchbox') return el.value !== undefined ? el.value : el.textContent;
    if (role === 'combobox' || role === 'listbox') {
      if (el.localName === 'select') return Array.from(el.selectedOptions || []).map(o => o.text).join(' ');
      if (el.localName === 'input') return el.value;
      const selected = el.querySelectorAll('[role=option][aria-selected=true]');
      return Array.from(selected).map(o => textAlternative(o, {visited: new Set(), includeHidden: false, labelled: true, root: false})).join(' ');
    }
    return el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || el.value || '';
  };
  const flatChildren = (el) => {
    if (el.localName === 'slot') {
      const assigned = el.assignedNodes({flatten: true});
      if (assigned.length) return assigned;
    }
    return el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
  };
  const contentText = (el, ctx) => {
    let out = pseudoText(el, '::before');
    for (const child of flatChildren(el)) {
      if (child.nodeType === 3) { out += child.data; continue; }
      if (child.nodeType !== 1 || SKIP.has(child.tagName)) continue;
      const style = getComputedStyle(child);
      if (!ctx.includeHidden && (styleHides(style) || child.getAttribute('aria-hidden') === 'true')) continue;
      const text = textAlternative(child, ctx);
      // Block boxes are words of their own (Chromium separates them with spaces).
      const display = style.display;
      out += display === 'inline' || display === 'contents' ? text : ' ' + text + ' ';
    }
    return out + pseudoText(el, '::after');
  };
  const LABELABLE = new Set(['button','input','meter','output','progress','select','textarea']);
  // accname 1.2's text alternative of one node; `ctx.root` is the element whose name is asked.
  const textAlternative = (el, ctx) => {
    if (ctx.visited.has(el)) return '';
    ctx.visited.add(el);
    const tag = el.localName;
    const inner = {...ctx, root: false};
    // 2B: aria-labelledby, unless we are already following one.
    const labelledBy = ctx.labelled ? null : el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const root = el.getRootNode();
      const parts = labelledBy.split(/\s+/).filter(Boolean).map((id) => root.getElementById ? root.getElementById(id) : null)
        .filter(Boolean).map((ref) => textAlternative(ref, {visited: ctx.visited, includeHidden: hiddenForAria(ref), labelled: true, root: false}));
      const text = squash(parts.join(' '));
      if (text) return text;
    }
    const role = roleOf(el, tag);
    // 2C: a control inside a label or a name being computed contributes its value.
    if (!ctx.root && CONTROL_VALUE_ROLES.has(role)) return controlValue(el, role);
    // 2D: aria-label.
    const ariaLabel = squash(el.getAttribute('aria-label'));
    if (ariaLabel) return ariaLabel;
    // 2E: what HTML itself names an element by.
    if (role !== 'presentation') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (tag === 'input' && (type === 'button' || type === 'submit' || type === 'reset')) {
        if (el.hasAttribute('value')) return el.value;
        if (type !== 'button') return type === 'submit' ? 'Submit' : 'Reset';
      }
      if (LABELABLE.has(tag) && el.labels && el.labels.length && !(tag === 'input' && type === 'hidden')) {
        const labels = Array.from(el.labels).filter((label) => !hiddenForAria(label));
        const text = squash(labels.map((label) => textAlternative(label, inner)).join(' '));
        if (text) return text;
      }
      if (tag === 'input' && type === 'image') {
        const alt = el.getAttribute('alt');
        if (alt) return alt;
        if (el.getAttribute('title')) return el.getAttribute('title');
        return 'Submit';
      }
      if (tag === 'img' || tag === 'area') {
        const alt = el.getAttribute('alt');
        if (alt && alt.trim()) return alt;
      }
      if (tag === 'svg') {
        const title = Array.from(el.children).find((c) => c.localName === 'title');
        if (title && title.textContent.trim()) return title.textContent;
      }
      const caption = {fieldset: 'legend', figure: 'figcaption', table: 'caption'}[tag];
      if (caption) {
        const c = Array.from(el.children).find((n) => n.localName === caption);
        if (c && (ctx.includeHidden || !hiddenForAria(c))) { const text = squash(textAlternative(c, inner)); if (text) return text; }
      }
    }
    // 2F: the content, for roles named by it and for everything inside a name being computed.
    if (NAME_FROM_CONTENT.has(role) || !ctx.root || tag === 'label' || tag === 'legend' || tag === 'caption' || tag === 'figcaption') {
      const text = contentText(el, inner);
      if (text.trim()) return ctx.root ? squash(text) : text;
    }
    // 2I: the tooltip, then (for text fields) the placeholder.
    const title = el.getAttribute('title');
    if (title && title.trim()) return title;
    const placeholder = el.getAttribute('placeholder');
    if ((tag === 'input' || tag === 'textarea') && placeholder) return placeholder;
    return '';
  };
  // The accessible name of an element, whole (no cap: a long name still matches).
  const nameOf = (el, tag, role) => {
    let name = nameCache.get(el);
    if (name === undefined) {
      // Most names on a big page are a link's or a button's own text: same answer, less work.
      role = roleOf(el, tag);
      if (NAME_FROM_CONTENT.has(role) && !el.firstElementChild && !el.shadowRoot && !LABELABLE.has(tag) &&
          !el.hasAttribute('aria-label') && !el.hasAttribute('aria-labelledby'))
        name = squash(pseudoText(el, '::before') + el.textContent + pseudoText(el, '::after'));
      if (!name) name = squash(textAlternative(el, {visited: new Set(), includeHidden: false, labelled: false, root: true}));
      nameCache.set(el, name);
    }
    return name;
  };
  const textOf = (el) => cap(squash(el.textContent), 120);
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
    if (!el || SKIP.has(el.tagName) || el.getAttribute('aria-hidden') === 'true') continue;
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
    // Shown names are capped for the snapshot's size; locators compare the whole name.
    const name = cap(nameOf(el, tag, f.role), 120);
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
