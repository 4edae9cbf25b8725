"""The churn ledger: what each element of a document changed by itself, kept from the document's start.

A short watch before an act sees only a change faster than the watch (a clock ticking every 60 ms);
a clock ticking once a second may tick in the act's settle and pass for its effect. So every
document of a tab gets, in the driver's isolated world (page scripts cannot see or disturb it), a
MutationObserver from its first moment that keeps per element (a WeakMap) the last few distinct
moments each of its aspects changed: its content (text, child nodes) or an attribute by name.

- The parser building the page is one render, not churn: nothing is kept while the document loads.
- An act marks its own window (from its gesture to the end of its settle, effects.py): what changes
  then is the act's and never kept as churn.
- At the next act, an element (or element + attribute) that changed at two or more moments, at
  least DISTINCT_MS apart, in the RECENT_MS before the gesture changes by itself (a clock, a ticker,
  a carousel): the same change after the act is not the act's. A page's one-off update (a
  "loading..." shown once) is a single moment, so an act that later writes there still counts.

- A write that leaves a node as it was (textContent, innerHTML, setAttribute or a text node's data
  set to what it held, as frameworks re-render) is no change, here and for an act's effect.

Memory stays bounded: KEEP moments per aspect, ASPECTS aspects per element, RECURRING elements.
"""

from __future__ import annotations

import json

# Changes closer than this are one moment (a render touches an element several times at once).
DISTINCT_MS = 100
# How far back before a gesture a repeated change counts as the page's own.
RECENT_MS = 5000
KEEP = 8
ASPECTS = 16
RECURRING = 500

# Whether a MutationRecord left its node as it was: an attribute or text whose old value is the
# current one, or children replaced by equal ones in the same places. The observer must be asked for
# old values (OBSERVE_OPTIONS).
UNCHANGED_JS = """(r) => {
  if (r.type === 'attributes') return r.oldValue === r.target.getAttribute(r.attributeName);
  if (r.type === 'characterData') return r.oldValue === r.target.data;
  const gone = r.removedNodes, came = r.addedNodes;
  if (!gone.length || gone.length !== came.length) return false;
  for (let i = 0; i < gone.length; i++) if (!gone[i].isEqualNode(came[i])) return false;
  return true;
}"""
OBSERVE_OPTIONS = "{subtree: true, childList: true, characterData: true, attributes: true, attributeOldValue: true, characterDataOldValue: true}"

# Installs the ledger on globalThis of the world it runs in, once per document. `ledger.churn(now)`
# lists [element, aspect, times] changed at 2+ idle moments in the RECENT_MS before `now`;
# `ledger.beginAct()` / `ledger.endAct()` mark an act's own window.
_SOURCE = """(function (distinctMs, recentMs, keep, aspects, most) {
  if (globalThis.__verityChurn && globalThis.__verityChurn.doc === document) return;
  const moments = new WeakMap();
  const recurring = new Map();
  const ledger = {doc: document, actingUntil: -1};
  const unchanged = /*UNCHANGED*/;
  const note = (records) => {
    const now = performance.now();
    if (now < ledger.actingUntil || document.readyState === 'loading') return;
    for (const r of records) {
      const e = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (!e || unchanged(r)) continue;
      const a = r.type === 'attributes' ? '@' + r.attributeName : 'content';
      let byAspect = moments.get(e);
      if (!byAspect) { byAspect = new Map(); moments.set(e, byAspect); }
      let times = byAspect.get(a);
      if (!times) {
        if (byAspect.size >= aspects) continue;
        times = [];
        byAspect.set(a, times);
      }
      if (times.length && now - times[times.length - 1] < distinctMs) continue;
      times.push(now);
      if (times.length > keep) times.shift();
      if (times.length >= 2) {
        recurring.delete(e);
        recurring.set(e, true);
        if (recurring.size > most) recurring.delete(recurring.keys().next().value);
      }
    }
  };
  ledger.observer = new MutationObserver(note);
  ledger.observer.observe(document, /*OPTIONS*/);
  ledger.flush = () => note(ledger.observer.takeRecords());
  ledger.churn = (now) => {
    ledger.flush();
    const found = [];
    for (const e of Array.from(recurring.keys())) {
      let live = false;
      for (const [a, times] of moments.get(e) || []) {
        const recent = times.filter((t) => t >= now - recentMs && t <= now).length;
        if (times.length && times[times.length - 1] >= now - recentMs) live = true;
        if (recent >= 2) found.push([e, a, recent]);
      }
      if (!live) recurring.delete(e);
    }
    return found;
  };
  // What changes from the gesture to the end of the settle is the act's (what came before is
  // flushed as idle first). An act that never says it ended (its document went) ends by itself.
  ledger.beginAct = (longestMs) => { ledger.flush(); ledger.actingUntil = performance.now() + longestMs; };
  ledger.endAct = () => { ledger.observer.takeRecords(); ledger.actingUntil = -1; };
  globalThis.__verityChurn = ledger;
})"""


def ledger_script() -> str:
    """The ledger's installer as a statement (for Page.addScriptToEvaluateOnNewDocument and for a
    document that began before the tab was followed)."""
    source = _SOURCE.replace("/*UNCHANGED*/", UNCHANGED_JS).replace("/*OPTIONS*/", OBSERVE_OPTIONS)
    return f"{source}({json.dumps(DISTINCT_MS)}, {json.dumps(RECENT_MS)}, {KEEP}, {ASPECTS}, {RECURRING});"
