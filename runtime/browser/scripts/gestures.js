// Acting on a page like a person would (runtime/browser/action_handlers/gestures.py): each of
// these is called with `this` = the element acted on, unless it says otherwise.

// Scrolls the element into view (centred, or with `block` 'nearest' only as far as it takes: a
// drag's destination must not scroll its source away), waits for a finite animation moving it to
// end (2 s at most), then until its box is stable (the same in two animation frames, 1 s at most:
// a sliding accordion or a dialog still moving in), and answers 'ok:fx,fy' with the point to
// press as fractions of its box: the centre, or else the first visible part of a 5x5 grid when
// something covers the centre (a person clicks the part they can see).
verity.prepareClick = async function (block) {
  if (!this.isConnected) return 'detached';
  this.scrollIntoView({block, inline: block, behavior: 'instant'});
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  const box = () => { const b = this.getBoundingClientRect(); return [b.left, b.top, b.width, b.height].join(); };
  // A finite CSS transition or animation moving the element (on it or an ancestor) is waited for
  // first, by the page's own animation clock: two equal frames of a busy machine can come while a
  // compositor-driven slide is still under way.
  const moving = document.getAnimations().filter((a) => {
    const target = a.effect && a.effect.target;
    const finite = a.effect && a.effect.getComputedTiming().iterations !== Infinity;
    return a.playState === 'running' && finite && target && target.nodeType === 1 && (target === this || target.contains(this));
  });
  if (moving.length) {
    const limit = new Promise((resolve) => setTimeout(resolve, 2000));
    await Promise.race([Promise.all(moving.map((a) => a.finished.catch(() => null))), limit]);
  }
  const started = performance.now();
  let last = box();
  while (performance.now() - started < 1000) {
    await frame();
    const now = box();
    if (now === last) break;
    last = now;
  }
  if (!this.isConnected) return 'detached';
  const r = this.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return 'hidden';
  // Disabled as a person meets it: by itself or its <fieldset> (:disabled), or by aria-disabled
  // on it or an ancestor (across shadow roots); pressing it anyway would be a false attempt.
  if (this.matches(':disabled')) return 'disabled';
  for (let n = this; n; n = n.assignedSlot || n.parentElement || (n.parentNode && n.parentNode.host))
    if (n.nodeType === 1 && n.getAttribute('aria-disabled') === 'true') return 'disabled';
  // Still outside the viewport after scrolling into view (left: -9999px): no point of it can be
  // pressed, and nothing covers it either.
  if (r.right <= 0 || r.bottom <= 0 || r.left >= innerWidth || r.top >= innerHeight) return 'off_screen';
  const root = this.getRootNode();
  const probe = root.elementFromPoint ? root : this.ownerDocument;
  const mine = (hit) => { let node = hit; while (node) { if (node === this) return true; node = node.parentNode || node.host; } return false; };
  const points = [[0.5, 0.5]];
  for (const fy of [0.1, 0.3, 0.5, 0.7, 0.9]) for (const fx of [0.1, 0.3, 0.5, 0.7, 0.9]) points.push([fx, fy]);
  for (const [fx, fy] of points) {
    if (mine(probe.elementFromPoint(r.left + r.width * fx, r.top + r.height * fy))) return 'ok:' + fx + ',' + fy;
  }
  const hit = probe.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  if (!hit) return 'covered';
  const id = hit.id ? '#' + hit.id : '';
  const cls = typeof hit.className === 'string' && hit.className ? '.' + hit.className.trim().split(/\s+/).join('.') : '';
  return 'covered:' + hit.tagName.toLowerCase() + id + cls;
};

// Resolves once no new resource has finished loading for 100 ms after the pointer moved (1 s at
// most). Of the document, not of an element.
verity.hoverSettled = () => new Promise((resolve) => {
  const count = () => performance.getEntriesByType('resource').length;
  const started = performance.now();
  let seen = count(), quietSince = started;
  const step = () => {
    const now = performance.now(), current = count();
    if (current !== seen) { seen = current; quietSince = now; }
    if (now - quietSince >= 100 || now - started >= 1000) resolve(true); else requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
});

// A hover without a box to put the pointer on: the events a pointer arriving would fire.
verity.dispatchHover = function () {
  for (const t of ['mouseover', 'mouseenter', 'mousemove']) this.dispatchEvent(new MouseEvent(t, {bubbles: t !== 'mouseenter'}));
};

verity.click = function () { this.click(); };

verity.focus = function () { this.focus(); };

verity.scrollIntoCenter = function () { this.scrollIntoView({block: 'center', behavior: 'instant'}); };

// The document scrolled by (dx, dy), and where it is scrolled to.
verity.scrollBy = (dx, dy) => window.scrollBy({left: dx, top: dy, behavior: 'instant'});
verity.scrollPosition = () => ({x: scrollX, y: scrollY});

// Finds the text to select inside the element (its first occurrence across its text nodes, or all
// of its text when `wanted` is empty), scrolls it into view and answers the page points a person
// presses and releases at to select it by dragging: inside the first character's left half and the
// last one's right half, so the caret lands just before the first and just after the last.
verity.textEnds = function (wanted) {
  if (!this.isConnected) return {state: 'detached'};
  const walker = this.ownerDocument.createTreeWalker(this, NodeFilter.SHOW_TEXT);
  const nodes = [];
  let all = '';
  for (let n = walker.nextNode(); n; n = walker.nextNode()) { nodes.push([n, all.length]); all += n.data; }
  const content = all.replace(/\s+$/, '');
  const begin = wanted ? all.indexOf(wanted) : all.search(/\S/);
  const length = wanted ? wanted.length : content.length - begin;
  if (begin < 0 || length <= 0) return {state: 'no_text', text: all.trim().slice(0, 200)};
  const at = (offset) => { for (let i = nodes.length - 1; i >= 0; i--) if (nodes[i][1] <= offset) return [nodes[i][0], offset - nodes[i][1]]; return null; };
  const charRect = (offset) => { const [node, local] = at(offset); const r = document.createRange(); r.setStart(node, local); r.setEnd(node, local + 1); return r.getBoundingClientRect(); };
  this.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  const first = charRect(begin), last = charRect(begin + length - 1);
  if (!first.width || !last.width) return {state: 'hidden'};
  return {state: 'ok', text: all.slice(begin, begin + length),
          start: [first.left + Math.min(1, first.width / 4), first.top + first.height / 2],
          end: [last.right - Math.min(1, last.width / 4), last.top + last.height / 2]};
};

verity.prepareType = function (clear) {
  if (!this.isConnected) return 'detached';
  const tag = this.tagName.toLowerCase();
  const type = (this.getAttribute('type') || '').toLowerCase();
  // Date and time fields take typed digits too, as key presses (segment by segment, in the
  // browser's locale order): inserted text does not reach their segments.
  const segmented = ['date','time','month','week','datetime-local'].includes(type);
  const textual = segmented || ['text','search','email','url','tel','password','number',''].includes(type);
  const editable = this.isContentEditable || tag === 'textarea' || (tag === 'input' && textual);
  if (!editable) return 'not_editable';
  if (this.matches(':disabled') || this.readOnly) return 'disabled';
  this.scrollIntoView({block: 'center', behavior: 'instant'});
  this.focus();
  if (clear) {
    if (this.isContentEditable) { this.textContent = ''; }
    else { this.value = ''; this.dispatchEvent(new Event('input', {bubbles: true})); }
  }
  // A password field's text is a secret: the caller is told before it is typed.
  return segmented ? 'ok:keys:' + type : (type === 'password' ? 'ok:secret' : 'ok');
};

// Sets a date/time field's value as the browser does after a person's edit: the value through
// the input's own setter, then `input` and `change`, the events a page's listeners see.
verity.setFieldValue = function (value) {
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(this, value);
  if (this.value !== value) return false;
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return true;
};

// What a field holds now.
verity.heldValue = function () {
  return {tag: this.localName, type: (this.getAttribute('type') || '').toLowerCase(), contenteditable: !!this.isContentEditable,
          value: 'value' in this ? String(this.value) : null, text: this.isContentEditable ? this.innerText : null};
};

// `mode` replace: the option becomes the only chosen one (a multiple select's others are let go,
// as a plain click on it does); add / remove change only that option of a <select multiple>, as a
// Ctrl+click does, and answer the options chosen afterwards.
verity.selectOption = function (value, label, mode) {
  if (!this.isConnected) return {state: 'detached'};
  if (this.tagName.toLowerCase() !== 'select') return {state: 'not_select'};
  if (this.matches(':disabled')) return {state: 'disabled'};
  if (mode !== 'replace' && !this.multiple) return {state: 'not_multiple'};
  const norm = (s) => s.replace(/\s+/g, ' ').trim().toLowerCase();
  const options = Array.from(this.options);
  const match = options.find(o => value !== null ? o.value === value : norm(o.text) === norm(label));
  if (!match) return {state: 'no_option', options: options.map(o => ({value: o.value, label: o.text.trim()}))};
  if (match.disabled) return {state: 'option_disabled'};
  if (mode === 'replace') { for (const o of options) o.selected = o === match; }
  else match.selected = mode === 'add';
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {state: 'ok', value: match.value, label: match.text.trim(), chosen: Array.from(this.selectedOptions).map(o => o.value)};
};

// What the elements to read at the press read then, by name, and which event it was.
let atPress = null;

// Arms a one-shot reading of the element's text at the first trusted keydown, mouseup or click to
// reach the page: the gesture's own event, in the same task as the page's handler for it, so the
// text is what that handler sees (a price that ticks between a read and the press cannot differ).
verity.armReadAtPress = function (name, fresh) {
  const el = this;
  if (fresh || !atPress) atPress = {values: {}, events: {}};
  const box = atPress;
  box.values[name] = null;
  const types = ['keydown', 'mouseup', 'click'];
  const take = (e) => {
    if (!e.isTrusted) return;
    box.values[name] = (el.textContent || '').replace(/\s+/g, ' ').trim();
    box.events[name] = e.type;
    for (const t of types) removeEventListener(t, take, true);
  };
  for (const t of types) addEventListener(t, take, true);
};

// What the armed readings read (of the document, not of an element).
verity.readAtPress = () => atPress ? {values: atPress.values, events: atPress.events} : null;

// The URL a click on this element would follow: the closest link's href (absolute, as the
// browser resolves it), or for a submit control its form's action (a formaction of its own first).
verity.followedUrl = function () {
  const link = this.closest ? this.closest('a[href], area[href]') : null;
  if (link) return {via: 'link', url: link.href, target: link.target || ''};
  const type = (this.getAttribute('type') || (this.tagName === 'BUTTON' ? 'submit' : '')).toLowerCase();
  if (this.form && (type === 'submit' || type === 'image')) {
    const url = this.hasAttribute('formaction') ? this.formAction : this.form.action;
    return {via: 'form', url: url, method: (this.form.method || 'get').toLowerCase()};
  }
  return null;
};

// Where a press really landed: armed on the target just before the mouse goes down, read after
// the click. A page still moving (a section opening) can slide another element under the pointer
// between the last hit test and the press; the mousedown's own target says which one it was.
verity.armPressWitness = function () {
  const witness = {el: this, hit: null};
  verity.pressWitness = witness;
  this.ownerDocument.addEventListener('mousedown', (e) => { witness.hit = e.composedPath()[0] || e.target; }, {capture: true, once: true});
};

// Whether the witnessed press landed on the target or inside it (null: no press was seen).
verity.pressWitnessed = function () {
  const w = verity.pressWitness;
  if (!w || w.el !== this || !w.hit) return null;
  for (let n = w.hit; n; n = n.parentNode || n.host) if (n === this) return {on_target: true};
  const hit = w.hit.nodeType === 1 ? w.hit : w.hit.parentElement;
  const text = hit ? (hit.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 40) : '';
  return {on_target: false, hit: hit ? hit.localName + (hit.id ? '#' + hit.id : '') + (text ? ' "' + text + '"' : '') : '#text'};
};
