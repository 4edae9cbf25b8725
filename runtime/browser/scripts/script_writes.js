// What an agent's model wrote into the document with a page script of its own (browser_evaluate).
//
// A model that may run a function in the page can write "Order confirmed", a price or a title
// itself; the document then holds its words, which the page never said. So the run watches the
// document while such a function runs and keeps, in this isolated world (neither the page nor the
// model's own world can reach it, and no attribute of the document marks anything), what it wrote:
//
// - each text node it changed or inserted (inside inserted elements and shadow roots it attached
//   too), with the text it left there;
// - each attribute it set, with the value it left, and every element it inserted;
// - each form control whose value it changed, with that value;
// - the title, when it changed it, and the title the page had before; the same for the URL, which
//   history.pushState or a fragment moves without the page going anywhere;
// - the lines of shown text it erased (removed, overwrote or hid), which a check that the page
//   does *not* say something still counts (`erasedShown`);
// - what the document said about itself that it erased: headings, a shown password field, those
//   lines (`erasedSigns`). Blocker detection reads them with what the page shows now
//   (page_reads.js), so a function that strips a sign-in wall's heading and form does not turn the
//   wall into the target.
//
// The same holds inside every same-origin frame the function can reach from the top document (an
// iframe, a nested one, a srcdoc one, one it made itself, and their shadow roots): the top
// document's world watches their documents too, and keeps each one's record. A frame's own world
// (the same world, in the frame) asks the top's for the record of its document when a check or an
// extract reads there. A frame document that loads while the function runs is watched from its
// load on; one from a source the function wrote (a srcdoc, a blank frame, a data: URL) is the
// model's throughout, as is any frame it made or sent to such a source, whatever its origin
// (`framedByModel`). Other cross-origin frames are out of its reach.
//
// Something written counts as the model's while it still holds what the model left: a page that
// later writes over it, or copies the text elsewhere (its own echo of a draft, as a search page
// echoes a typed query), states it itself. What the page's own scripts change while the function
// runs (an async function lets them) is counted as the model's too: the stricter reading.

// The records of this world's documents, by document (kept in the top document's world).
const records = new WeakMap();
let watching = null;

const recordOf = (doc) => {
  if (!records.has(doc)) records.set(doc, {texts: new WeakMap(), attrs: new WeakMap(), inserted: new WeakSet(), values: new WeakMap(), sent: new WeakSet(), title: null, url: null, erased: [], headings: [], password: false});
  return records.get(doc);
};

// The record of this document, or null: the top document's world keeps the records (the model's
// function runs there), so a frame's world asks it; a frame it cannot reach (cross-origin) has none.
// (Asked once per text node of a read: the top's namespace is kept once found.)
let owner = null;
const keeper = () => {
  if (!owner) {
    try { owner = verity.of(top) || null; } catch (e) { owner = null; }
  }
  return owner;
};
const mine = () => (keeper() && keeper().scriptWrites.recorded(document)) || null;
const recorded = (doc) => records.get(doc);

const CONTROLS = 'input,textarea,select';
// Bounds on the erased lines kept per document.
const ERASED_LINES = 200;
const ERASED_LINE_CHARS = 500;
const squash = (text) => (text || '').replace(/\s+/g, ' ').trim();
const OPTIONS = {subtree: true, childList: true, characterData: true, attributes: true};

// Every control of `doc` and of its open (or adopted) shadow roots, with its value.
const controlValues = (doc, roots) => {
  const values = new Map();
  for (const root of [doc, ...roots]) for (const el of root.querySelectorAll(CONTROLS)) values.set(el, el.value);
  return values;
};

// `doc` and every same-origin frame document inside it, nested ones too (behind a cross-origin
// frame as well: a window's frames are reached by index whatever their parent's origin), each
// with its shadow roots.
const documents = (doc = document, found = [], seen = new Set()) => {
  if (seen.has(doc)) return found;
  seen.add(doc);
  const roots = verity.shadowRoots(doc);
  found.push({doc, roots});
  const enter = (inner) => { if (inner && inner.documentElement) documents(inner, found, seen); };
  for (const frame of verity.deepAll('iframe,frame', roots, doc)) {
    try { enter(frame.contentDocument); } catch (e) { /* cross-origin */ }
  }
  const behind = (win) => {
    for (let i = 0; i < win.length; i++) {
      let child = null;
      let inner = null;
      try { child = win[i]; inner = child.document; } catch (e) { inner = null; }
      if (inner) enter(inner);
      else if (child) behind(child);
    }
  };
  if (doc.defaultView) behind(doc.defaultView);
  return found;
};

// Marks `node` and everything inside it (the shadow roots of its elements too) as inserted.
const markInserted = (rec, node) => {
  if (node.nodeType === Node.TEXT_NODE) { rec.texts.set(node, node.data); return; }
  if (node.nodeType !== Node.ELEMENT_NODE && node.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return;
  if (node.nodeType === Node.ELEMENT_NODE) rec.inserted.add(node);
  const shadow = node.nodeType === Node.ELEMENT_NODE && verity.rootOf(node);
  if (shadow) markInserted(rec, shadow);
  for (const child of node.childNodes) markInserted(rec, child);
};

// What a document says about itself, as blocker detection reads it: its title, its headings, whether
// it shows a password field, and its rendered lines (a frame's; the top document's lines are its
// shown text, read once by `begin` for `erasedShown`).
const signsOf = (doc, roots) => ({
  title: doc.title,
  headings: verity.headingsOf(doc, roots),
  password: verity.showsPassword(doc, roots),
  lines: doc === document || !doc.body ? [] : doc.body.innerText.split('\n').map(squash).filter(Boolean),
});

// Before the model's function runs: what the documents hold now, and an observer of their changes
// (a frame document that loads meanwhile is watched from its load on).
const begin = () => {
  const found = [];
  const observer = new MutationObserver((changes) => { found.push(...changes); });
  const watched = new Map();
  // A frame the function sends elsewhere through its window (location, a link or form aimed at it).
  const sent = [];
  const stops = [];
  const watch = (start) => {
    for (const {doc, roots} of documents(start)) {
      if (watched.has(doc)) continue;
      for (const root of [doc, ...roots]) observer.observe(root, OPTIONS);
      watched.set(doc, {roots: new Set(roots), values: controlValues(doc, roots), signs: signsOf(doc, roots)});
      const loaded = (e) => {
        const frame = e.target;
        if (frame.tagName !== 'IFRAME' && frame.tagName !== 'FRAME') return;
        try { if (frame.contentDocument) watch(frame.contentDocument); } catch (error) { /* cross-origin */ }
      };
      doc.addEventListener('load', loaded, true);
      stops.push(() => doc.removeEventListener('load', loaded, true));
      const win = doc.defaultView;
      if (doc === document || !win || !win.navigation || !win.frameElement) continue;
      const frame = win.frameElement;
      const heard = (e) => { sent.push({frame, url: e.destination.url}); };
      win.navigation.addEventListener('navigate', heard);
      stops.push(() => win.navigation.removeEventListener('navigate', heard));
    }
  };
  watch(document);
  watched.get(document).signs.lines = verity.shownText().split('\n').map(squash).filter(Boolean);
  watching = {doc: document, observer, found, watched, sent, stops, url: location.href};
};

// A source whose document is written by whoever writes the URL (data:, blob:, about:, javascript:).
const madeSource = (url) => !/^https?:/i.test(url || '');

// After it ran: what it changed is kept as its own (nothing when the document went meanwhile).
const end = () => {
  const watch = watching;
  watching = null;
  if (!watch || watch.doc !== document) return;
  const changes = [...watch.found, ...watch.observer.takeRecords()];
  watch.observer.disconnect();
  for (const stop of watch.stops) { try { stop(); } catch (e) { /* the frame went */ } }
  for (const {frame, url} of watch.sent) if (madeSource(url)) recordOf(frame.ownerDocument).sent.add(frame);
  for (const r of changes) {
    const rec = recordOf(r.target.ownerDocument || r.target);
    if (r.type === 'characterData') rec.texts.set(r.target, r.target.data);
    else if (r.type === 'attributes') {
      if (!rec.attrs.has(r.target)) rec.attrs.set(r.target, new Map());
      rec.attrs.get(r.target).set(r.attributeName, r.target.getAttribute(r.attributeName));
    } else for (const node of r.addedNodes) if (node.isConnected) markInserted(rec, node);
  }
  const shownNow = squash(verity.shownText());
  for (const {doc, roots} of documents()) {
    const rec = recordOf(doc);
    const before = watch.watched.get(doc);
    if (before) keepErased(rec, before.signs, doc, roots, doc === document ? shownNow : null);
    // A frame document that began while the function ran, from a source it wrote (a srcdoc, a
    // blank frame, a data: URL), is all its own; one a server sent is that server's.
    if (!before && !madeSource(doc.URL)) continue;
    if (!before) markInserted(rec, doc.documentElement);
    for (const root of roots) if (!before || !before.roots.has(root)) markInserted(rec, root);
    for (const [el, value] of controlValues(doc, roots)) if (!before || before.values.get(el) !== value) rec.values.set(el, value);
  }
  if (location.href !== watch.url) recordOf(document).url = {now: location.href, before: watch.url};
};

// What the function erased of what `doc` said about itself (`before`, read by `begin`), added to
// its record; and the title it set, beside the one the page gave itself (which stays the page's
// through several functions).
const keepErased = (rec, before, doc, roots, shownNow) => {
  const after = shownNow !== null ? shownNow : squash(doc.body ? doc.body.innerText : '');
  for (const line of before.lines) {
    if (rec.erased.length >= ERASED_LINES) break;
    if (!after.includes(line) && !rec.erased.includes(line)) rec.erased.push(line.slice(0, ERASED_LINE_CHARS));
  }
  const headings = verity.headingsOf(doc, roots);
  if (before.headings.some((h) => !headings.includes(h))) rec.headings = [...before.headings, ...rec.headings.filter((h) => !before.headings.includes(h))].slice(0, 30);
  if (before.password && !verity.showsPassword(doc, roots)) rec.password = true;
  if (doc.title !== before.title) rec.title = {now: doc.title, before: rec.title && rec.title.now === before.title ? rec.title.before : before.title};
};

// The URL the page is at by its own doing: the one it had before the model's script moved it
// (without a new document), while it is still where the script left it.
const pageUrl = () => {
  const record = mine();
  const url = record && record.url;
  return url && location.href === url.now ? url.before : location.href;
};

// What this document said about itself before the model's script erased it: headings (in the
// order blocker detection reads them), a shown password field, lines of text.
const NOTHING_ERASED = Object.freeze({headings: [], password: false, lines: []});
const erasedSigns = () => {
  const record = mine();
  return record ? {headings: record.headings, password: record.password, lines: record.erased} : NOTHING_ERASED;
};

// Whether the text `wanted` (whitespace collapsed) was shown before the model's script erased it.
const erasedShown = (wanted) => {
  const record = mine();
  return !!record && record.erased.some((line) => line.includes(wanted));
};

// Whether the model's script inserted `el` (or an element it sits in).
const inserted = (el) => {
  const record = mine();
  return !!record && record.inserted.has(el);
};

// Whether a text node holds what the model's script left there.
const wroteText = (node) => {
  const record = mine();
  return !!record && record.texts.get(node) === node.data;
};

// Whether what `read` (field_reads.js) takes from `el` by `how` is the model's: its value when it
// set it, an attribute it set (any attribute of an element it inserted), or a text holding a text
// node it wrote.
const wroteRead = (el, how, control) => {
  const record = mine();
  if (!record) return false;
  if (record.inserted.has(el)) return true;
  if (how.attr && !(how.attr === 'value' && control)) {
    const attrs = record.attrs.get(el);
    return !!attrs && attrs.has(how.attr) && attrs.get(how.attr) === el.getAttribute(how.attr);
  }
  if (control && how.value !== false) return record.values.has(el) && record.values.get(el) === el.value;
  const within = (root) => {
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      if (node.nodeType === Node.ELEMENT_NODE) { if (verity.rootOf(node) && within(verity.rootOf(node))) return true; continue; }
      if (node.data.trim() && record.texts.get(node) === node.data) return true;
    }
    return false;
  };
  const shadow = verity.rootOf(el);
  return (shadow && within(shadow)) || within(el);
};

// The title the page gave itself: the one it had before the model's script changed it, while the
// title is still what the model left.
const pageTitle = () => {
  const record = mine();
  const title = record && record.title;
  return title && document.title === title.now ? title.before : document.title;
};

// Whether the frame element `this`, showing `url`, holds a document of the model's making
// (runtime/browser/tab/model_frames.py): its script inserted the element, set its srcdoc, or sent
// it to a source it wrote itself (a data: or blob: URL, by src or through the frame's window)
// while the frame still shows such a source. A frame it pointed at a site's http(s) page shows
// what that server says.
verity.framedByModel = function (url) {
  const record = mine();
  if (!record) return false;
  if (record.inserted.has(this)) return true;
  const attrs = record.attrs.get(this);
  const holds = (name) => !!attrs && attrs.has(name) && attrs.get(name) === this.getAttribute(name);
  if (holds('srcdoc')) return true;
  return madeSource(url) && ((holds('src') && madeSource(this.src)) || record.sent.has(this));
};

// The frame element `this` was sent by the model's function to a source it wrote itself, as the
// driver heard (runtime/browser/tab/model_frames.py): a frame of another origin, whose navigation
// its parent's document does not hear.
verity.frameSentByModel = function () {
  if (keeper()) keeper().scriptWrites.recordOf(this.ownerDocument).sent.add(this);
};

verity.scriptWrites = {begin, end, recorded, recordOf, wroteText, wroteRead, pageTitle, pageUrl, erasedShown, erasedSigns, inserted};
verity.pageUrl = pageUrl;
