"""Collecting element candidates from every frame of a tab, with roles, names and live handles.

A small walker runs inside each frame in an isolated JavaScript world (page scripts cannot see
or tamper with it). It pierces open shadow roots, skips aria-hidden subtrees (they are not in the
accessibility tree) and unrendered elements, computes roles (ELEMENT_VOCABULARY) and keeps every
candidate in that world's registry: a ref resolves to the very object the walker saw, so a
re-rendered or removed element can never stand in for it. The walk computes no accessible name
and no layout box: a page of the snapshot (`_VIEW`) describes only the elements it shows, so
every element of a 17,000-link page has a ref for the cost of one pass over its DOM.

Why not `DOMSnapshot.captureSnapshot`: on a 10,000-element page it costs ~600 ms in Chromium
plus ~250 ms of decoding in Python; the in-page walker returns only counts, a page only its
elements.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from runtime.browser.vocabulary.observation import BoundingBox

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
  const LANDMARK_ROLES = new Set(['banner','complementary','contentinfo','form','main','navigation','region','search']);
  const LANDMARK_NAME_CHARS = 80;
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

_CAPTURE = r"""
(function (snapshotId) {
  const state = globalThis.__verityState ||
    (globalThis.__verityState = {seen: new WeakMap(), seq: 0, snapshotId: null, elements: []});
""" + ELEMENT_VOCABULARY + r"""
  // Tags whose implicit role can be interactive or a landmark; any other element is either only
  // through an attribute, so most elements of a big page are passed over without a role.
  const MAYBE_INTERACTIVE = new Set(['a','area','button','input','select','textarea','summary','details','option','datalist','td']);
  const MAYBE_LANDMARK = new Set(['header','footer','nav','main','aside','section','form','search']);
  const elements = [], roles = [], interactive = [], inShadow = [], region = [], landmarks = [];
  // Parallel stacks (no per-element arrays): element, in a shadow root, inside an interactive
  // element, innermost landmark.
  const stackEl = [document.documentElement], stackShadow = [false], stackInside = [false], stackRegion = [-1];
  while (stackEl.length) {
    const el = stackEl.pop(), shadow = stackShadow.pop(), inside = stackInside.pop();
    let here = stackRegion.pop();
    if (!el || SKIP.has(el.tagName) || el.getAttribute('aria-hidden') === 'true') continue;
    const tag = el.localName;
    let isInteractiveHere = false;
    if (tag !== 'html' && tag !== 'body') {
      const attributed = el.hasAttribute('role') || el.hasAttribute('onclick') || el.hasAttribute('tabindex') || el.hasAttribute('contenteditable');
      let role = null;
      // A plain link or button (most of a big page's elements): its role without the role cache.
      if (!attributed && tag === 'a') { isInteractiveHere = el.hasAttribute('href'); role = isInteractiveHere ? 'link' : ''; }
      else if (!attributed && tag === 'button') { role = 'button'; isInteractiveHere = true; }
      else if (attributed || MAYBE_INTERACTIVE.has(tag)) { role = roleOf(el, tag); isInteractiveHere = isInteractive(el, tag, role); }
      if (attributed || MAYBE_LANDMARK.has(tag)) {
        if (role === null) role = roleOf(el, tag);
        if (LANDMARK_ROLES.has(role)) { landmarks.push({el, role, parent: here}); here = landmarks.length - 1; }
      }
      let textBlock = false;
      if (!isInteractiveHere && !inside) {
        if (HEADINGS.has(tag) || (tag === 'img' && el.getAttribute('alt'))) textBlock = true;
        else for (let c = el.firstChild; c; c = c.nextSibling)
          if (c.nodeType === 3 && c.data.trim()) { textBlock = true; break; }
      }
      if (isInteractiveHere || textBlock) {
        elements.push(el); roles.push(role === null ? roleOf(el, tag) : role);
        interactive.push(isInteractiveHere); inShadow.push(shadow); region.push(here);
      }
    }
    const childInside = inside || isInteractiveHere;
    for (let c = el.lastElementChild; c; c = c.previousElementSibling) {
      stackEl.push(c); stackShadow.push(shadow); stackInside.push(childInside); stackRegion.push(here);
    }
    if (el.shadowRoot)
      for (let c = el.shadowRoot.lastElementChild; c; c = c.previousElementSibling) {
        stackEl.push(c); stackShadow.push(true); stackInside.push(childInside); stackRegion.push(here);
      }
  }
  // Rendered ones only (display, visibility, content-visibility): a style lookup each, no layout
  // box; boxes are measured only for the elements a page shows.
  const kept = [];
  for (let i = 0; i < elements.length; i++) if (elements[i].checkVisibility({visibilityProperty: true})) kept.push(i);
  const pick = (values) => kept.map((i) => values[i]);
  const previous = state.seq, current = previous + 1;
  state.elements = pick(elements);
  state.roles = pick(roles);
  state.interactive = pick(interactive);
  state.inShadow = pick(inShadow);
  state.region = pick(region);
  state.seenBefore = state.elements.map((el) => previous > 0 && state.seen.get(el) === previous);
  for (const el of state.elements) state.seen.set(el, current);
  state.landmarks = landmarks;
  state.seq = current;
  state.snapshotId = snapshotId;
  state.view = null;
  const within = new Array(landmarks.length).fill(0);
  for (const r of state.region) for (let l = r; l >= 0; l = landmarks[l].parent) within[l]++;
  let interactiveCount = 0;
  for (const flag of state.interactive) if (flag) interactiveCount++;
  return {total: state.elements.length, interactive: interactiveCount, url: location.href, title: document.title,
          landmarks: landmarks.map((l, i) => [l.role, cap(nameOf(l.el, l.el.localName, l.role), LANDMARK_NAME_CHARS), within[i]])};
})
"""

# One page of a captured snapshot, in one frame: the elements matching the query (role, text in
# the name or the content, inside a landmark or a ref's subtree), interactive ones first, each
# list in document order; `ranges` picks what to describe of each list (null: counts only). Names
# are computed here, for the described elements (and for every candidate a text filter reads):
# the walk that gave the refs computed none.
_VIEW = r"""
(function (snapshotId, query, ranges) {
  const state = globalThis.__verityState;
  if (!state || state.snapshotId !== snapshotId) return {stale: true};
""" + ELEMENT_VOCABULARY + r"""
  const key = JSON.stringify(query);
  if (!state.view || state.view.key !== key) {
    const all = state.elements;
    const roles = query.roles && query.roles.length ? new Set(query.roles) : null;
    const needle = query.text ? squash(query.text).toLowerCase() : '';
    let inRegion = null;
    if (query.none) inRegion = () => false;
    else if (query.within_index !== undefined && query.within_index !== null) {
      const root = all[query.within_index];
      inRegion = (i) => { for (let n = all[i]; n; n = flatParent(n)) if (n === root) return true; return false; };
    } else if (query.landmark) {
      const wanted = query.landmark_name ? squash(query.landmark_name).toLowerCase() : null;
      const chosen = new Set();
      state.landmarks.forEach((l, i) => {
        if (l.role !== query.landmark) return;
        if (wanted !== null && cap(nameOf(l.el, l.el.localName, l.role), LANDMARK_NAME_CHARS).toLowerCase() !== wanted) return;
        chosen.add(i);
      });
      inRegion = (i) => { for (let l = state.region[i]; l >= 0; l = state.landmarks[l].parent) if (chosen.has(l)) return true; return false; };
    }
    const inter = [], text = [];
    for (let i = 0; i < all.length; i++) {
      if (roles && !roles.has(state.roles[i])) continue;
      if (inRegion && !inRegion(i)) continue;
      if (needle) {
        const el = all[i];
        if (!el.isConnected) continue;
        const name = nameOf(el, el.localName, state.roles[i]).toLowerCase();
        if (!name.includes(needle) && !squash(el.textContent).toLowerCase().includes(needle)) continue;
      }
      (state.interactive[i] ? inter : text).push(i);
    }
    state.view = {key, inter, text};
  }
  const view = state.view;
  const items = [];
  if (ranges) {
    const describe = (i) => {
      const el = all_(i), tag = el.localName, role = state.roles[i];
      const r = el.getBoundingClientRect();
      // Shown names are capped for the snapshot's size; locators compare the whole name.
      const name = el.isConnected ? cap(nameOf(el, tag, role), 120) : '';
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
      return [i, tag, role, name, text === name ? '' : text,
              Math.round(r.x * 10) / 10, Math.round(r.y * 10) / 10,
              Math.round(r.width * 10) / 10, Math.round(r.height * 10) / 10,
              state.interactive[i], state.inShadow[i], attrs, state.seenBefore[i], el.isConnected];
    };
    const all_ = (i) => state.elements[i];
    for (const i of view.inter.slice(ranges[0], ranges[1])) items.push(describe(i));
    for (const i of view.text.slice(ranges[2], ranges[3])) items.push(describe(i));
  }
  return {counts: [view.inter.length, view.text.length], items};
})
"""


@dataclass
class Candidate:
    """A described element of a snapshot page: interactive, or visible with its own text.
    `local_index` is its place among its frame's refs (document order)."""

    tag: str
    role: str
    name: str
    text: str
    bbox: BoundingBox
    interactive: bool
    in_shadow: bool
    attributes: dict[str, str]
    seen_before: bool
    connected: bool
    local_index: int


@dataclass(frozen=True)
class Landmark:
    """A landmark region of a frame (banner, navigation, main, ...) and how many refs it holds."""

    role: str
    name: str
    elements: int

    def label(self) -> str:
        return f'{self.role} "{self.name}"' if self.name else self.role


@dataclass
class FrameCapture:
    """One frame's part of a snapshot: refs `first_number`..`first_number + total - 1`."""

    frame_id: str
    label: str
    url: str
    context_id: int
    total: int
    interactive: int
    first_number: int
    offset: tuple[float, float]
    landmarks: list[Landmark]


@dataclass
class Capture:
    url: str
    title: str
    frames: list[FrameCapture]
    notes: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(frame.total for frame in self.frames)

    @property
    def interactive(self) -> int:
        return sum(frame.interactive for frame in self.frames)


class FrameWorlds:
    """Isolated-world execution contexts per frame, recreated when a frame loads a new document.

    Chromium makes the driver's world in every new document itself (the tab's churn-ledger script
    is added for that world) and says so in `Runtime.executionContextCreated`; those events are
    followed, so a read needs no round trip to learn its world. `Page.createIsolatedWorld` on a
    frame returns that same world, and is asked only for a document whose world was not
    announced (one that existed before the tab was attached)."""

    def __init__(self, cdp: Any, top_frame_id: Callable[[], str] = lambda: "") -> None:
        self._cdp = cdp
        self._top_frame_id = top_frame_id
        self._contexts: dict[tuple[str, str], int] = {}
        # The announced worlds, by frame id, as of the last CDP event received.
        self._announced: dict[str, int] = {}
        cdp.on("Runtime.executionContextCreated", self._on_created)
        cdp.on("Runtime.executionContextDestroyed", self._on_destroyed)
        cdp.on("Runtime.executionContextsCleared", lambda _params: self._announced.clear())

    def _on_created(self, params: dict[str, Any]) -> None:
        context = params.get("context") or {}
        aux = context.get("auxData") or {}
        if context.get("name") == WORLD_NAME and aux.get("type") == "isolated" and aux.get("frameId"):
            self._announced[aux["frameId"]] = context["id"]

    def _on_destroyed(self, params: dict[str, Any]) -> None:
        gone = params.get("executionContextId")
        for frame_id, context_id in list(self._announced.items()):
            if context_id == gone:
                del self._announced[frame_id]

    async def top_context(self) -> int:
        """The world of the document the top frame shows."""
        announced = self._announced.get(self._top_frame_id())
        if announced is not None:
            return announced
        return await self.context_for((await self.frames())[0])

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
        announced = self._announced.get(frame["id"])
        if announced is not None:
            return announced
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
        self._announced.clear()

    def forget(self, frame: dict[str, Any]) -> None:
        self._contexts.pop((frame["id"], frame.get("loaderId", "")), None)
        self._announced.pop(frame["id"], None)

    async def evaluate(self, context_id: int, expression: str, *, by_value: bool = True, await_promise: bool = False) -> dict[str, Any]:
        return await self._cdp.send(
            "Runtime.evaluate",
            {"expression": expression, "contextId": context_id, "returnByValue": by_value, "awaitPromise": await_promise},
        )

    async def call(self, context_id: int, declaration: str, *args: Any) -> dict[str, Any]:
        """The function `declaration` defines, called in a world with JSON `args`, its value
        returned. A large search or read whose arguments vary is sent this way rather than
        written into an expression with them: V8 keeps the compiled function for a source text it
        has seen, and a text that differs with each call is compiled again each time (a few
        milliseconds for the locator; BENCHMARKS.md, "Runtime overhead")."""
        return await self._cdp.send(
            "Runtime.callFunctionOn",
            {"functionDeclaration": declaration, "executionContextId": context_id, "arguments": [{"value": arg} for arg in args], "returnByValue": True},
        )


async def capture_candidates(cdp: Any, worlds: FrameWorlds, *, snapshot_id: str) -> Capture:
    """Run the walker in every frame: every candidate gets a ref (registered in the frame's
    isolated world); nothing is described yet (`describe_frame` does it for a page)."""
    capture = Capture(url="", title="", frames=[])
    frames = await worlds.frames()
    number = 1
    for position, frame in enumerate(frames):
        label = "main" if position == 0 else frame.get("url", "")
        reply: dict[str, Any] | None = None
        for attempt in range(2):
            try:
                context_id = await worlds.context_for(frame)
                # Called with its argument, so the walker's text is the same at every capture and
                # V8 compiles it once per world, not at every observe (FrameWorlds.call).
                reply = await worlds.call(context_id, _CAPTURE, snapshot_id)
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
        offset = (0.0, 0.0) if position == 0 else await _frame_offset(cdp, frame["id"])
        landmarks = [Landmark(role, name, count) for role, name, count in value["landmarks"]]
        capture.frames.append(
            FrameCapture(frame["id"], label, frame.get("url", ""), context_id, value["total"], value["interactive"], number, offset, landmarks)
        )
        number += value["total"]
    return capture


class FrameGone(Exception):
    """The frame's world no longer holds the snapshot (it navigated, or a newer walk replaced it)."""


async def describe_frame(
    worlds: FrameWorlds, frame: FrameCapture, snapshot_id: str, query: dict[str, Any], ranges: tuple[int, int, int, int] | None
) -> tuple[tuple[int, int], list[Candidate]]:
    """The counts of the frame's elements matching `query` (interactive, other) and, for
    `ranges` (slices of those two lists), their descriptions."""
    try:
        reply = await worlds.call(frame.context_id, _VIEW, snapshot_id, query, list(ranges) if ranges else None)
    except Exception as exc:  # noqa: BLE001 - the frame's world went with its document
        if "context" in str(exc).lower():
            raise FrameGone(str(exc)) from None
        raise
    if "exceptionDetails" in reply:
        raise RuntimeError(f"snapshot page script failed in frame {frame.label}: {reply['exceptionDetails'].get('text', 'script error')}")
    value = reply["result"]["value"]
    if value.get("stale"):
        raise FrameGone(f"frame {frame.label} no longer holds snapshot {snapshot_id}")
    offset_x, offset_y = frame.offset
    candidates = [
        Candidate(
            tag=item[1],
            role=item[2],
            name=item[3],
            text=item[4],
            bbox=BoundingBox(round(item[5] + offset_x, 1), round(item[6] + offset_y, 1), item[7], item[8]),
            interactive=item[9],
            in_shadow=item[10],
            attributes=item[11],
            seen_before=item[12],
            connected=item[13],
            local_index=item[0],
        )
        for item in value["items"]
    ]
    counts = value["counts"]
    return (int(counts[0]), int(counts[1])), candidates


async def _frame_offset(cdp: Any, frame_id: str) -> tuple[float, float]:
    """Top-left of an iframe's content box in the top-level viewport (CSS px)."""
    try:
        owner = await cdp.send("DOM.getFrameOwner", {"frameId": frame_id})
        box = await cdp.send("DOM.getBoxModel", {"backendNodeId": owner["backendNodeId"]})
        content = box["model"]["content"]
        return float(content[0]), float(content[1])
    except Exception:  # noqa: BLE001 - an offset is cosmetic; never fail a snapshot for it
        return 0.0, 0.0


def element_expression(snapshot_id: str, local_index: int) -> str:
    """JS (in the frame's isolated world) returning the registered element of a ref, or null."""
    return (
        "(() => { const s = globalThis.__verityState;"
        f" return s && s.snapshotId === {json.dumps(snapshot_id)} ? (s.elements[{int(local_index)}] || null) : null; }})()"
    )
