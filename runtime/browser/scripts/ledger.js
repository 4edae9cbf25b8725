// The churn ledger: what each element of a document changed by itself, kept from the document's
// start.
//
// A short watch before an act sees only a change faster than the watch (a clock ticking every
// 60 ms); a clock ticking once a second may tick in the act's settle and pass for its effect. So
// every document of a tab starts, in the driver's isolated world (page scripts cannot see or
// disturb it), a MutationObserver from its first moment that keeps per element (a WeakMap) the
// last few distinct moments each of its aspects changed: its content (text, child nodes) or an
// attribute by name.
//
// - The document's first rendering is not churn: nothing is kept while it loads, nor after, until
//   it has been quiet for QUIET_MS (at most SETTLING_MAX_MS: a page that never rests still gets
//   a ledger).
// - What the run's own steps change is not churn: an act marks its own window (from its gesture to
//   the end of its settle, effects.js), a recipe's page script its run (`ownChange`), and each
//   window ends only once the document has been quiet for QUIET_MS after it (at most
//   SETTLING_MAX_MS), so what a framework updates a moment later (a toolbar following a new
//   selection; an act with no settle of its own) is still the step's.
// - At the next act, an element (or element + attribute) that changed at two or more moments, at
//   least DISTINCT_MS apart, in the RECENT_MS before the gesture changes by itself (a clock, a
//   ticker, a carousel): the same change after the act is not the act's. A page's one-off update
//   (a "loading..." shown once) is a single moment, so an act that later writes there still
//   counts.
// - A write that leaves a node as it was (textContent, innerHTML, setAttribute or a text node's
//   data set to what it held, as frameworks re-render) is no change, here and for an act's effect.
//
// Memory stays bounded: KEEP moments per aspect, ASPECTS aspects per element, RECURRING elements.

// Changes closer than this are one moment (a render touches an element several times at once).
const DISTINCT_MS = 100;
// How far back before a gesture a repeated change counts as the page's own.
const RECENT_MS = 5000;
const KEEP = 8;
const ASPECTS = 16;
const RECURRING = 500;
// How long the document must be quiet for its first rendering, or a change of the run's own, to be
// over; and the longest either may last.
const QUIET_MS = 300;
const SETTLING_MAX_MS = 2000;

// What an observer of changes asks for: old values too, for `unchanged`.
const OBSERVE_OPTIONS = {
  subtree: true, childList: true, characterData: true, attributes: true, attributeOldValue: true, characterDataOldValue: true,
};

// Whether a MutationRecord left its node as it was: an attribute or text whose old value is the
// current one, or children replaced by equal ones in the same places.
const unchanged = (r) => {
  if (r.type === 'attributes') return r.oldValue === r.target.getAttribute(r.attributeName);
  if (r.type === 'characterData') return r.oldValue === r.target.data;
  const gone = r.removedNodes, came = r.addedNodes;
  if (!gone.length || gone.length !== came.length) return false;
  for (let i = 0; i < gone.length; i++) if (!gone[i].isEqualNode(came[i])) return false;
  return true;
};

// The ledger of the document this world shows, once started.
let current = null;

// `verity.ledger.start()` starts the ledger of the world's document, once per document (at the
// document's start: the tab adds it to every new document; or when an act first needs it, for a
// document that began before the tab was followed), and answers it. `ledger.churn(now)` lists
// [element, aspect, times] changed at 2+ idle moments in the RECENT_MS before `now`;
// `ledger.beginAct()` / `ledger.endAct()` mark an act's own window.
const start = () => {
  if (current && current.doc === document) return current;
  const moments = new WeakMap();
  const recurring = new Map();
  // `settling`: the first rendering, or a step of the run's own, still landing: {since, last change}.
  const ledger = {doc: document, actingUntil: -1, recentMs: RECENT_MS, settling: {since: performance.now(), last: performance.now()}};
  const settled = (now) => {
    const s = ledger.settling;
    if (s && (now - s.last >= QUIET_MS || now - s.since >= SETTLING_MAX_MS)) ledger.settling = null;
    return ledger.settling === null;
  };
  const note = (records) => {
    const now = performance.now();
    if (now < ledger.actingUntil) return;
    if (document.readyState === 'loading') {
      ledger.settling = {since: now, last: now};
      return;
    }
    for (const r of records) {
      const e = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (!e || unchanged(r)) continue;
      if (!settled(now)) {
        ledger.settling.last = now;
        continue;
      }
      const a = r.type === 'attributes' ? '@' + r.attributeName : 'content';
      let byAspect = moments.get(e);
      if (!byAspect) { byAspect = new Map(); moments.set(e, byAspect); }
      let times = byAspect.get(a);
      if (!times) {
        if (byAspect.size >= ASPECTS) continue;
        times = [];
        byAspect.set(a, times);
      }
      if (times.length && now - times[times.length - 1] < DISTINCT_MS) continue;
      times.push(now);
      if (times.length > KEEP) times.shift();
      if (times.length >= 2) {
        recurring.delete(e);
        recurring.set(e, true);
        if (recurring.size > RECURRING) recurring.delete(recurring.keys().next().value);
      }
    }
  };
  // Each step of loading (interactive, complete) starts the first rendering's settling again: what
  // DOMContentLoaded and load handlers draw is the page being built.
  document.addEventListener('readystatechange', () => { const now = performance.now(); ledger.settling = {since: now, last: now}; });
  ledger.observer = new MutationObserver(note);
  ledger.observer.observe(document, OBSERVE_OPTIONS);
  ledger.flush = () => note(ledger.observer.takeRecords());
  ledger.churn = (now) => {
    ledger.flush();
    const found = [];
    for (const e of Array.from(recurring.keys())) {
      let live = false;
      for (const [a, times] of moments.get(e) || []) {
        const recent = times.filter((t) => t >= now - RECENT_MS && t <= now).length;
        if (times.length && times[times.length - 1] >= now - RECENT_MS) live = true;
        if (recent >= 2) found.push([e, a, recent]);
      }
      if (!live) recurring.delete(e);
    }
    return found;
  };
  // What changes from the gesture to the end of the settle is the act's (what came before is
  // flushed as idle first). An act that never says it ended (its document went) ends by itself.
  ledger.beginAct = (longestMs) => { ledger.flush(); ledger.actingUntil = performance.now() + longestMs; };
  ledger.endAct = () => {
    ledger.observer.takeRecords();
    ledger.actingUntil = -1;
    const now = performance.now();
    ledger.settling = {since: now, last: now};
  };
  current = ledger;
  return ledger;
};

// A step of the run's own that changes the page without a gesture (a recipe's page script): its
// changes are not churn. `ownChange(true)` before it, `ownChange(false)` after. With
// `modelScript`, the script is an agent's model's: what it writes is kept as the model's words
// (script_writes.js).
const OWN_CHANGE_LONGEST_MS = 60000;
const ownChange = (begins, modelScript = false) => {
  const ledger = start();
  if (begins) {
    if (modelScript) verity.scriptWrites.begin();
    ledger.beginAct(OWN_CHANGE_LONGEST_MS);
  } else {
    verity.scriptWrites.end();
    ledger.endAct();
  }
};

verity.ledger = {start, current: () => current, unchanged, OBSERVE_OPTIONS};
verity.ownChange = ownChange;
