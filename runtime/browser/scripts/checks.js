// What verify and wait ask of a page (runtime/browser/action_handlers/checks.py, waiting.py).
// Whether a text is shown is shown.js's.

// The element's state as a check reads it; `visible` is "shown" (shown.js): a person could see
// it, scrolling if need be. Called with `this` = the element.
verity.elementState = function () {
  const {shownElement, shownRects} = verity.shownJudge();
  return {
    exists: this.isConnected,
    visible: this.isConnected && shownElement(this) && shownRects(this.getClientRects()),
    enabled: !this.disabled,
    // An <option> is checked when it is chosen, as Playwright's checked state has it.
    checked: this.tagName === 'OPTION' ? this.selected : !!this.checked,
    selected: this.tagName === 'OPTION' ? this.selected : this.getAttribute('aria-selected') === 'true',
    value: 'value' in this ? String(this.value) : (this.innerText || '').trim(),
    // What an agent's model's own script made (script_writes.js): the element, or its value.
    inserted: verity.scriptWrites.inserted(this),
    valueWritten: verity.scriptWrites.wroteRead(this, {}, ['INPUT', 'TEXTAREA', 'SELECT'].includes(this.tagName)),
  };
};

// Whether the first element `css` matches has a box and is not hidden by its style.
verity.selectorVisible = (css) => {
  const el = document.querySelector(css);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  return r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
};

// How many resources the document has fetched so far (a network-idle wait watches it grow).
verity.resourceCount = () => performance.getEntriesByType('resource').length;
