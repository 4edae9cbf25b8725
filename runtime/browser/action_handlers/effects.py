"""What an act changed by itself: the default check after an act.

Before the gesture, a watch is set up in the isolated world around the act's target (page
scripts cannot see or disturb it):

- the target's own state (value, checked, selected, aria-expanded/-pressed/-checked/-selected,
  open, focus), and that of the control a <label> names and the fields inside the target;
- a MutationObserver on the target and on its containers: its form, dialog or landmark (main,
  nav, aside, header, footer, a labelled region), and the elements it controls (aria-controls);
- a MutationObserver on the document that only keeps changes inside a dialog (a modal opening);
- for a scroll, the scroll offsets.

Afterwards `own_effect` lists what changed among those, plus a new document or URL. A clock, a
counter or an ad changing elsewhere on the page is not in the list: it is not the act's doing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runtime.browser.document import DocumentIdentity
from runtime.browser.tab import ResolvedElement, Tab

_LANDMARKS = (
    "form,dialog,[role=dialog],[role=alertdialog],main,nav,aside,header,footer,[role=main],[role=navigation],"
    "[role=complementary],[role=banner],[role=contentinfo],[role=region],[role=search],[role=form],"
    "section[aria-label],section[aria-labelledby]"
)

_INSTALL = """function(kind, landmarks) {
  const el = this, doc = el.ownerDocument, root = el.getRootNode();
  const byId = (id) => (root.getElementById ? root.getElementById(id) : null) || doc.getElementById(id);
  const scopes = [el];
  const container = el.closest(landmarks);
  if (container) scopes.push(container);
  for (const id of (el.getAttribute('aria-controls') || '').split(/\\s+/).filter(Boolean)) {
    const controlled = byId(id);
    if (controlled) scopes.push(controlled);
  }
  const tracked = [el];
  if (el.control) tracked.push(el.control);
  for (const field of el.querySelectorAll('input,select,textarea')) { if (tracked.length < 20) tracked.push(field); }
  // Focus is an effect only for a field that takes input: a clicked button or link takes focus anyway.
  const editable = (e) => e.isContentEditable || ['textarea', 'select'].includes(e.localName) ||
    (e.localName === 'input' && !['button', 'submit', 'reset', 'image', 'checkbox', 'radio', 'hidden'].includes((e.type || '').toLowerCase()));
  const state = (e) => ({
    value: 'value' in e ? String(e.value) : null, checked: !!e.checked, selected: !!e.selected,
    expanded: e.getAttribute('aria-expanded'), pressed: e.getAttribute('aria-pressed'),
    aria_checked: e.getAttribute('aria-checked'), aria_selected: e.getAttribute('aria-selected'),
    open: !!e.open, focused: editable(e) && doc.activeElement === e,
  });
  const watch = {el, kind, tracked, state, before: tracked.map(state), records: [], dialogs: [],
                 scroll: [scrollX, scrollY], observers: []};
  const describe = (node) => {
    const e = node.nodeType === 1 ? node : node.parentElement;
    if (!e) return '#text';
    return e.localName + (e.id ? '#' + e.id : '') + (e.getAttribute('data-field') ? '[data-field=' + e.getAttribute('data-field') + ']' : '');
  };
  const inScope = new MutationObserver((records) => {
    for (const r of records) if (watch.records.length < 50) watch.records.push(r.type + ' in ' + describe(r.target));
  });
  for (const scope of scopes) inScope.observe(scope, {subtree: true, childList: true, characterData: true, attributes: true});
  const dialogSel = 'dialog,[role=dialog],[role=alertdialog]';
  const anywhere = new MutationObserver((records) => {
    for (const r of records) {
      const nodes = r.type === 'childList' ? Array.from(r.addedNodes) : [r.target];
      for (const n of nodes) {
        const e = n.nodeType === 1 ? n : n.parentElement;
        const dialog = e && (e.closest(dialogSel) || (e.querySelector && e.querySelector(dialogSel)));
        if (dialog && watch.dialogs.length < 10) watch.dialogs.push(dialog);
      }
    }
  });
  anywhere.observe(doc, {subtree: true, childList: true, attributes: true, attributeFilter: ['open', 'hidden', 'style', 'class', 'aria-hidden']});
  watch.observers = [inScope, anywhere];
  const previous = globalThis.__verityEffect;
  if (previous) for (const o of previous.observers) o.disconnect();
  globalThis.__verityEffect = watch;
  return scopes.slice(1).map(describe);
}"""

_READ = """function() {
  const w = globalThis.__verityEffect;
  if (!w || w.el !== this) return null;
  const effects = [];
  const names = {value: 'value', checked: 'checked', selected: 'selected', expanded: 'aria-expanded',
                 pressed: 'aria-pressed', aria_checked: 'aria-checked', aria_selected: 'aria-selected',
                 open: 'open', focused: 'focus'};
  w.tracked.forEach((e, i) => {
    const now = w.state(e), then = w.before[i];
    for (const key of Object.keys(names)) {
      if (now[key] !== then[key]) effects.push((i === 0 ? 'the target' : 'its field ' + e.localName) + "'s " + names[key] + ' ' + JSON.stringify(then[key]) + ' -> ' + JSON.stringify(now[key]));
    }
  });
  if (w.records.length) effects.push(w.records.length + ' change(s) in its own scope: ' + Array.from(new Set(w.records)).slice(0, 5).join(', '));
  const shown = (e) => e.isConnected && (!e.checkVisibility || e.checkVisibility({visibilityProperty: true}));
  const dialogs = w.dialogs.filter(shown);
  if (dialogs.length) effects.push('a dialog opened or changed: ' + (dialogs[0].getAttribute('aria-label') || dialogs[0].localName));
  if (w.kind === 'scroll' && (scrollX !== w.scroll[0] || scrollY !== w.scroll[1])) effects.push('scrolled to ' + scrollX + ',' + scrollY);
  return effects;
}"""


@dataclass
class EffectWatch:
    """An act's watch: its target (in the world the watch lives in) and the document it began on."""

    element: ResolvedElement
    document: DocumentIdentity
    url: str
    scopes: list[str]


async def watch_effects(tab: Tab, element: ResolvedElement | None, kind: str) -> None:
    """Set up the watch before the gesture; an act with no target watches the focused element."""
    if element is None:
        element = await tab.active_element()
    scopes = await tab.call_on(element, _INSTALL, kind, _LANDMARKS)
    document = tab.document()
    tab.effect_watch = EffectWatch(element, document, document.url, list(scopes or []))


async def own_effects(tab: Tab) -> tuple[list[str], dict[str, Any]]:
    """What the tab's latest act changed by itself, in words, and what was watched."""
    watch = tab.effect_watch
    if watch is None:
        return [], {"watched": "nothing: no act set up a watch on this tab"}
    effects: list[str] = []
    document = tab.document()
    if not document.same_document(watch.document):
        effects.append(f"a new document: {watch.document.url} -> {document.url}")
    elif document.url != watch.url:
        effects.append(f"the URL changed: {watch.url} -> {document.url}")
    else:
        try:
            found = await tab.call_on(watch.element, _READ)
        except Exception:  # noqa: BLE001 - the watched world went with its document; the next check sees the new one
            found = None
        effects.extend(found or [])
    return effects, {"watched_scopes": watch.scopes, "document": watch.document.to_dict()}
