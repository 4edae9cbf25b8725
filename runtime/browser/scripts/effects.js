// What an act changed by itself (runtime/browser/action_handlers/effects.py judges it): before
// the gesture a watch is set up on the whole document (and the target's shadow root) and first
// watches for a short baseline with nobody acting; whatever changes then changes by itself, as
// does what the churn ledger (ledger.js) saw change at two moments or more before the gesture.
// After the gesture the act waits until the page settles, then reads what changed.

// The latest act's watch in this world.
let current = null;

// Sets up the watch on `this` (the act's target) for an act of `kind`, takes the baseline and
// marks the act's window in the ledger; answers the scopes watched and the churn seen.
verity.watchEffects = async function (kind, landmarks, baselineMs, longestMs) {
  const el = this, doc = el.ownerDocument, root = el.getRootNode();
  if (current) current.observer.disconnect();
  const byId = (id) => (root.getElementById ? root.getElementById(id) : null) || doc.getElementById(id);
  // The target's own scopes: a change there is its effect whenever it comes before the check.
  const scopes = [el];
  const container = el.closest(landmarks);
  if (container) scopes.push(container);
  for (const id of (el.getAttribute('aria-controls') || '').split(/\s+/).filter(Boolean)) {
    const controlled = byId(id);
    if (controlled) scopes.push(controlled);
  }
  const tracked = [el];
  if (el.control) tracked.push(el.control);
  for (const f of el.querySelectorAll('input,select,textarea')) { if (tracked.length < 20) tracked.push(f); }
  // Focus counts only for a field that takes input: a clicked button or link takes focus anyway.
  const editable = (e) => e.isContentEditable || ['textarea', 'select'].includes(e.localName) ||
    (e.localName === 'input' && !['button', 'submit', 'reset', 'image', 'checkbox', 'radio', 'hidden'].includes((e.type || '').toLowerCase()));
  const state = (e) => ({
    value: 'value' in e ? String(e.value) : null, checked: !!e.checked, selected: !!e.selected,
    expanded: e.getAttribute('aria-expanded'), pressed: e.getAttribute('aria-pressed'),
    aria_checked: e.getAttribute('aria-checked'), aria_selected: e.getAttribute('aria-selected'),
    open: !!e.open, focused: editable(e) && (doc.activeElement === e || root.activeElement === e),
  });
  const describe = (e) => {
    if (!e) return '#text';
    const cls = typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\s+/)[0] : '';
    return e.localName + (e.id ? '#' + e.id : cls) + (e.getAttribute('data-field') ? '[data-field=' + e.getAttribute('data-field') + ']' : '');
  };
  const visibleNow = (e) => e.isConnected && e.checkVisibility({visibilityProperty: true, opacityProperty: true}) &&
    e.getClientRects().length > 0;
  const elementOf = (node) => node.nodeType === 1 ? node : node.parentElement;
  const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const watch = {el, kind, tracked, state, describe, scopes, visibleNow, phase: 'baseline', churn: new Map(), changes: [],
                 recurring: new Map(), why: new Map(),
                 ignored: new Map(), late: 0, closed: false, waiters: [], before: null, focusBefore: null,
                 scroll: null};
  const aspect = (r) => r.type === 'attributes' ? '@' + r.attributeName : 'content';
  // A change is the page's own when its element changed the same way in the baseline or again and
  // again before it (the ledger), or sits inside an element whose content did (a carousel's
  // slides; for the ledger not the body's or the root's, which a page fills once more at times).
  const whole = new Set([doc.documentElement, doc.body, doc.head]);
  const churned = (e, a) => {
    for (let n = e; n; n = up(n)) {
      const again = watch.recurring.get(n);
      if (again && (again.has(a) && n === e || again.has('content') && !whole.has(n))) return watch.why.get(n);
      const seen = watch.churn.get(n);
      if (seen && (seen.has('content') || (n === e && seen.has(a)))) return watch.why.get(n) || 'changed in the ' + baselineMs + ' ms watched before the act';
    }
    return null;
  };
  const inScope = (e) => watch.scopes.some((s) => s === e || s.contains(e));
  // A write that leaves the node as it was (a framework re-rendering what is shown) is no change.
  const {unchanged, OBSERVE_OPTIONS: options} = verity.ledger;
  const handle = (records) => {
    for (const r of records) {
      const e = elementOf(r.target);
      if (!e || unchanged(r)) continue;
      const a = aspect(r);
      if (watch.phase === 'baseline') {
        if (!watch.churn.has(e)) watch.churn.set(e, new Set());
        watch.churn.get(e).add(a);
        continue;
      }
      const why = churned(e, a);
      if (why) { const d = describe(e) + ' (' + why + ')'; watch.ignored.set(d, (watch.ignored.get(d) || 0) + 1); continue; }
      if (watch.closed && !inScope(e)) { watch.late += 1; continue; }
      // A node added is shown by its own text, not by its parent's (the body's would say little).
      const added = r.type === 'childList' ? Array.from(r.addedNodes).find((n) => (n.textContent || '').trim()) : null;
      if (watch.changes.length < 200) watch.changes.push({e, a, type: r.type, added: added || null});
      for (const wake of watch.waiters) wake();
    }
  };
  watch.flush = () => handle(watch.observer.takeRecords());
  watch.observer = new MutationObserver(handle);
  watch.observer.observe(doc, options);
  if (root !== doc && root.nodeType === 11) watch.observer.observe(root, options);
  current = watch;
  if (baselineMs > 0) await new Promise((resolve) => setTimeout(resolve, baselineMs));
  watch.flush();
  // What changed by itself at two moments or more in the seconds before: periodic, not the act's.
  let ledger = verity.ledger.current();
  if (!ledger || ledger.doc !== doc) ledger = verity.ledger.start();
  const recurring = [], timesOf = new Map();
  for (const [e, a, times] of ledger.churn(performance.now())) {
    if (!watch.recurring.has(e)) { watch.recurring.set(e, new Set()); recurring.push(e); }
    watch.recurring.get(e).add(a);
    const most = Math.max(times, timesOf.get(e) || 0);
    timesOf.set(e, most);
    watch.why.set(e, 'changed by itself ' + most + ' times in the ' + Math.round(ledger.recentMs / 1000) + ' s before the act');
  }
  ledger.beginAct(longestMs);
  watch.ledger = ledger;
  watch.phase = 'act';
  // A hover may show elements by CSS alone (`li:hover > ul`), changing no node: what is visible
  // around the target (its parent's subtree: its own content and its siblings') is noted now, and
  // an element that becomes visible is the hover's effect.
  watch.nearby = kind === 'hover' ? Array.from((el.parentElement || el).querySelectorAll('*')).slice(0, 500) : [];
  watch.visibleBefore = watch.nearby.map(visibleNow);
  watch.before = tracked.map(state);
  watch.focusBefore = doc.activeElement;
  watch.scroll = [scrollX, scrollY];
  return {scopes: scopes.slice(1).map(describe), baseline_churn: Array.from(watch.churn.keys()).slice(0, 10).map(describe),
          recurring_churn: recurring.slice(0, 10).map((e) => describe(e) + ' (' + watch.why.get(e) + ')')};
};

// Waits until nothing but baseline churn has changed for `quietMs` (or `maxMs` passed), then closes
// the window in which a change anywhere in the document counts.
verity.settleEffects = async function (quietMs, maxMs) {
  const w = current;
  if (!w || w.el !== this) return null;
  const started = performance.now();
  w.flush();
  await new Promise((resolve) => {
    let quiet = null;
    const done = () => { clearTimeout(quiet); clearTimeout(cap); w.waiters = w.waiters.filter((f) => f !== arm); resolve(); };
    const arm = () => { clearTimeout(quiet); quiet = setTimeout(done, quietMs); };
    const cap = setTimeout(done, maxMs);
    w.waiters.push(arm);
    arm();
  });
  w.flush();
  w.closed = true;
  if (w.ledger) w.ledger.endAct();
  return Math.round(performance.now() - started);
};

// An act that skipped its settle (its step says what it expects) still ends its own window.
verity.endAct = function () {
  const w = current;
  if (w && w.el === this && w.ledger) w.ledger.endAct();
};

// What the watch saw: the target's state before and now, the changes in the document, what was
// ignored as the page's own, a dialog, focus, what a hover showed, a scroll.
verity.readEffects = function () {
  const w = current;
  if (!w || w.el !== this) return null;
  w.flush();
  const doc = this.ownerDocument;
  const secret = (e) => e.localName === 'input' && (e.type || '').toLowerCase() === 'password';
  const names = {value: 'value', checked: 'checked', selected: 'selected', expanded: 'aria-expanded',
                 pressed: 'aria-pressed', aria_checked: 'aria-checked', aria_selected: 'aria-selected',
                 open: 'open', focused: 'focus'};
  const stateChanges = [];
  w.tracked.forEach((e, i) => {
    const now = w.state(e), then = w.before[i];
    for (const key of Object.keys(names)) {
      if (now[key] === then[key]) continue;
      const who = (i === 0 ? 'the target' : 'its field ' + e.localName) + "'s " + names[key];
      if (key === 'value' && secret(e)) stateChanges.push({key, what: who + ' changed (a secret: not shown)'});
      else stateChanges.push({key, what: who + ' ' + JSON.stringify(then[key]) + ' -> ' + JSON.stringify(now[key])});
    }
  });
  const shown = (e) => e.isConnected && (!e.checkVisibility || e.checkVisibility({visibilityProperty: true}));
  const changed = new Map();
  let dialog = null;
  for (const c of w.changes) {
    const label = c.a === 'content' ? 'content of ' + w.describe(c.e) : 'attribute ' + c.a.slice(1) + ' of ' + w.describe(c.e);
    if (!changed.has(label)) {
      const shownBy = c.added && c.added.isConnected ? c.added : c.e;
      const text = c.a === 'content' && shownBy.isConnected ? ((shownBy.nodeType === 1 ? shownBy.innerText : '') || shownBy.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 80) : null;
      changed.set(label, text ? label + ' (now ' + JSON.stringify(text) + ')' : label);
    }
    const box = c.e.isConnected && (c.e.closest('dialog,[role=dialog],[role=alertdialog]') || (c.e.querySelector && c.e.querySelector('dialog,[role=dialog],[role=alertdialog]')));
    if (box && shown(box) && !dialog) dialog = box.getAttribute('aria-label') || box.localName;
  }
  const active = doc.activeElement;
  const focusMoved = active !== w.focusBefore && active && active !== doc.body && active !== this ? w.describe(active) : null;
  const field = (e) => e && {
    tag: e.localName, type: (e.getAttribute('type') || '').toLowerCase(), contenteditable: !!e.isContentEditable,
    value: 'value' in e ? String(e.value) : null, text: e.isContentEditable ? e.innerText : null,
    checked: !!e.checked, role: e.getAttribute('role'), aria_checked: e.getAttribute('aria-checked'),
    selected: e.localName === 'select' ? Array.from(e.selectedOptions).map((o) => o.value) : null,
  };
  return {
    target: field(this), control: field(this.control || null),
    checked_before: w.before.map((s) => [s.checked, s.aria_checked]).slice(0, 2),
    state_changes: stateChanges, changes: Array.from(changed.values()).slice(0, 8), change_count: w.changes.length,
    ignored: Array.from(w.ignored.keys()).slice(0, 5), late: w.late, dialog, focus_moved: focusMoved,
    selection: w.kind === 'select_text' ? String(doc.getSelection()) : null,
    shown: w.nearby.filter((e, i) => !w.visibleBefore[i] && w.visibleNow(e) && !w.nearby.some((o, j) => o !== e && o.contains(e) && !w.visibleBefore[j]))
      .slice(0, 5).map((e) => w.describe(e) + (e.innerText ? ' (' + JSON.stringify(e.innerText.trim().replace(/\s+/g, ' ').slice(0, 60)) + ')' : '')),
    scrolled: w.kind === 'scroll' && (scrollX !== w.scroll[0] || scrollY !== w.scroll[1]) ? scrollX + ',' + scrollY : null,
  };
};
