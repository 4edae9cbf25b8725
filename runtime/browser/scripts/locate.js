// Finding the elements a locator names, in document order, over the document and its open shadow
// roots (CSS selectors pierce them too), with Playwright's strictness judged from what this
// answers (runtime/browser/tab/locate.py). Roles and accessible names are the snapshot's
// (vocabulary.js), whole however long; role and name locators skip aria-hidden subtrees. Only
// visible elements count, and among them the ones a person can see first (shown.js).

// The matches of the latest search, where the element a search chose is taken from (`located`).
let located = [];

// The search for one spec (kind and value, name, exact, has_text, the `within` containers
// outermost first, which match to take, how many to list): the count of its matches, the first
// few described, and the chosen one; or the container that was not one element.
verity.locate = (spec) => {
  const {SKIP, NAMELESS_ROLES, cap, ariaHiddenAbove, roleOf, nameOf, isInteractive} =
    verity.elementVocabulary();
  const {shownElement, shownRects} = verity.shownJudge();
  // Zero-width spaces and soft hyphens are no text to match, as for Playwright.
  const norm = (s) => (s || '').replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
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
  const compare = (a, w, exact) => {
    if (exact) return a === w ? 2 : 0;
    const al = a.toLowerCase(), wl = w.toLowerCase();
    return al === wl ? 2 : (al.includes(wl) ? 1 : 0);
  };
  // Names and texts are compared with their spaces squashed (an empty wanted text is part of
  // nothing); an attribute (placeholder, alt, title) as written, as Playwright's attribute
  // locators compare it.
  const score = (actual, wanted, exact) => {
    const a = norm(actual), w = norm(wanted);
    return !exact && !w && a ? 0 : compare(a, w, exact);
  };
  const attributeScore = (actual, wanted, exact) => (actual === null || actual === undefined ? 0 : compare(actual, wanted, exact));
  // An element's text as Playwright's text and label locators read it: its text nodes and those of
  // its open shadow root, hidden ones too (no layout is asked), without scripts, styles or the
  // document's head; a button-like input's value.
  const textCache = new Map();
  const elementText = (el) => {
    if (textCache.has(el)) return textCache.get(el);
    let text = '';
    const tag = el.localName, type = (el.getAttribute && (el.getAttribute('type') || '').toLowerCase()) || '';
    if (tag === 'script' || tag === 'noscript' || tag === 'style' || (document.head && document.head.contains(el))) text = '';
    else if (tag === 'input' && ['button', 'submit', 'reset'].includes(type)) text = el.value;
    else {
      for (const parent of el.shadowRoot ? [el, el.shadowRoot] : [el]) {
        for (let child = parent.firstChild; child; child = child.nextSibling) {
          if (child.nodeType === Node.TEXT_NODE) text += child.nodeValue || '';
          else if (child.nodeType === Node.ELEMENT_NODE) text += elementText(child);
        }
      }
    }
    textCache.set(el, text);
    return text;
  };
  // The labels a field has, as Playwright's label locator takes them: the elements aria-labelledby
  // names when it names any, else aria-label when it says something, else the <label>s of a
  // labelable control (a hidden <label> too). A label is read as its text (elementText): what it
  // hides and what aria-hidden leaves out count, CSS content and an aria-label on the label
  // itself do not (its accessible name, which a role locator's name is, can differ).
  const LABELABLE = new Set(['button', 'meter', 'output', 'progress', 'select', 'textarea']);
  const labelsOf = (el) => {
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const root = el.getRootNode();
      const named = by.split(/\s+/).map(id => root.getElementById ? root.getElementById(id) : null).filter(Boolean);
      if (named.length) return named.map(elementText);
    }
    const aria = el.getAttribute('aria-label');
    if (aria && aria.trim()) return [aria];
    const labelable = LABELABLE.has(el.localName) || (el.localName === 'input' && (el.getAttribute('type') || '').toLowerCase() !== 'hidden');
    return labelable && el.labels ? Array.from(el.labels).map(elementText) : [];
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
        const name = NAMELESS_ROLES.has(role) ? '' : nameOf(el, tag, role);
        const matched = s.name === null || s.name === undefined ? 2 : score(name, s.name, exact);
        return matched && !ariaHiddenAbove(el) ? matched : 0;
      };
      case 'name': return (el) => {
        const tag = el.localName, role = roleOf(el, tag);
        if (!(role || isInteractive(el, tag, role))) return 0;
        const matched = score(nameOf(el, tag, role), v, exact);
        return matched && !ariaHiddenAbove(el) ? matched : 0;
      };
      // A host whose shadow root says it all is no match of its own, nor is the root (Playwright's
      // innermost rule takes the shadow root for a child, and a root is not an element).
      case 'text': return (el) => (el.shadowRoot && score(elementText(el.shadowRoot), v, exact) ? 0 : score(elementText(el), v, exact));
      case 'label': return (el) => best(labelsOf(el), v, exact);
      case 'placeholder': return (el) => attributeScore(el.getAttribute('placeholder'), v, exact);
      case 'alt': return (el) => attributeScore(el.getAttribute('alt'), v, exact);
      case 'title': return (el) => attributeScore(el.getAttribute('title'), v, exact);
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
    // Its text as Playwright's hasText filter reads it (elementText: no scripts, its shadow root's).
    if (s.has_text) scored = scored.filter(([el]) => score(elementText(el), s.has_text, false) > 0);
    const visible = scored.filter(([el]) => shown(el));
    // Among those, the ones a person can see (not at opacity 0, not off the page, not clipped
    // away: shown.js) count first, so a decoy drawn invisibly before the element
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
  located = matches;
  return {count: matches.length, candidates: matches.slice(0, spec.listed).map(describe), chosen: spec.nth === null ? null : (matches.at(spec.nth) ? describe(matches.at(spec.nth)) : null)};
};

// The match at `index` of the latest search (negative counts from the last), or undefined.
verity.located = (index) => located.at(index);

// What a snapshot ref's element is, as a locator can find it again once the snapshot is gone (an
// agent's act frozen into a recipe step): its role, its whole accessible name and its shown text.
verity.refTarget = function () {
  const {ariaHiddenAbove, roleOf, nameOf} = verity.elementVocabulary();
  const tag = this.localName, hidden = ariaHiddenAbove(this), role = hidden ? '' : roleOf(this, tag);
  return {tag, role, name: hidden ? '' : nameOf(this, tag, role), text: (this.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 80)};
};
