// A snapshot: every candidate element of the frame (interactive, or visible with its own text)
// gets a ref, the walk keeping the very element it saw, so a ref resolves to that object and a
// re-rendered or removed element can never stand in for it. The walk pierces open shadow roots,
// skips aria-hidden subtrees (they are not in the accessibility tree) and unrendered elements, and
// computes roles, but no accessible name and no layout box: a page of the snapshot
// (`describeSnapshot`) describes only the elements it shows, so every element of a 17,000-link
// page has a ref for the cost of one pass over its DOM.

// Tags whose implicit role can be interactive or a landmark; any other element is either only
// through an attribute, so most elements of a big page are passed over without a role.
const MAYBE_INTERACTIVE = new Set(['a','area','button','input','select','textarea','summary','details','option','datalist','td']);
const MAYBE_LANDMARK = new Set(['header','footer','nav','main','aside','section','form','search']);

// The frame's latest snapshot: its elements by local index, what the walk learnt of each, and
// which elements an earlier walk already saw.
const state = {seen: new WeakMap(), seq: 0, snapshotId: null, elements: []};

// Walks the frame's document and keeps its candidates as snapshot `snapshotId`; answers their
// counts, the document's URL and title, and its landmarks (role, name, refs inside).
verity.captureSnapshot = (snapshotId) => {
  const {SKIP, HEADINGS, LANDMARK_ROLES, LANDMARK_NAME_CHARS, cap, roleOf, nameOf, isInteractive} =
    verity.elementVocabulary();
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
  // box; boxes are measured only for the elements a page shows. Text at opacity 0 is no text a
  // person reads (a page could hide instructions for the model there); a control at opacity 0
  // stays, as a styled checkbox under its label is still the one to click.
  const kept = [];
  for (let i = 0; i < elements.length; i++) {
    const el = elements[i];
    if (el.checkVisibility({visibilityProperty: true}) && (interactive[i] || el.checkVisibility({opacityProperty: true}))) kept.push(i);
  }
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
  state.index = null;
  const within = new Array(landmarks.length).fill(0);
  for (const r of state.region) for (let l = r; l >= 0; l = landmarks[l].parent) within[l]++;
  let interactiveCount = 0;
  for (const flag of state.interactive) if (flag) interactiveCount++;
  return {total: state.elements.length, interactive: interactiveCount, url: location.href, title: document.title,
          landmarks: landmarks.map((l, i) => [l.role, cap(nameOf(l.el, l.el.localName, l.role), LANDMARK_NAME_CHARS), within[i]])};
};

// One page of a captured snapshot, in one frame: the elements matching the query (role, text in
// the name or the content, inside a landmark or a ref's subtree), interactive ones first, each
// list in document order; `ranges` picks what to describe of each list (null: counts only). Names
// are computed here, for the described elements (and for every candidate a text filter reads):
// the walk that gave the refs computed none.
verity.describeSnapshot = (snapshotId, query, ranges) => {
  if (state.snapshotId !== snapshotId) return {stale: true};
  const {LANDMARK_NAME_CHARS, squash, cap, flatParent, nameOf, textOf} = verity.elementVocabulary();
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
    // Only the walk's elements: a tree or a search may have given more refs since.
    for (let i = 0; i < state.roles.length; i++) {
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
};

// A tree snapshot (tree.js, tree_render.js) walks nothing up front: its refs are given as the
// tree shows elements, in the order it shows them, so the refs a model reads are short.
verity.beginTreeSnapshot = (snapshotId) => {
  Object.assign(state, {snapshotId, earlierId: state.snapshotId, elements: [], index: new Map(), roles: [], interactive: [], inShadow: [],
    region: [], seenBefore: [], landmarks: [], view: null});
  return {url: location.href, title: document.title};
};

// The local index of `el` in the frame's latest snapshot, given it now when it has none.
verity.refIndex = (el) => {
  if (!state.index) state.index = new Map(state.elements.map((known, i) => [known, i]));
  let index = state.index.get(el);
  if (index === undefined) {
    index = state.elements.length;
    state.elements.push(el);
    state.index.set(el, index);
  }
  return index;
};
verity.holdsSnapshot = (snapshotId) => state.snapshotId === snapshotId;
// A new tree written line for line as the earlier one is held under the earlier id, so the refs
// a model already holds act on this writing's elements (snapshot_tree.py same_tree); only in the
// document that held the earlier one (a new document's world never did).
verity.renameSnapshot = (from, to) => {
  if (state.snapshotId !== from || state.earlierId !== to) return false;
  state.snapshotId = to;
  return true;
};
// The local index of the element a call is made on (an iframe, found by its frame's owner).
verity.refIndexOfThis = function (snapshotId) { return state.snapshotId === snapshotId ? verity.refIndex(this) : null; };

// The element behind local index `index` of snapshot `snapshotId`, or null (the frame has taken a
// newer snapshot since).
verity.snapshotElement = (snapshotId, index) => state.snapshotId === snapshotId ? (state.elements[index] || null) : null;
