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
//   does *not* say something still counts (`erasedShown`).
//
// Something written counts as the model's while it still holds what the model left: a page that
// later writes over it, or copies the text elsewhere (its own echo of a draft, as a search page
// echoes a typed query), states it itself. What the page's own scripts change while the function
// runs (an async function lets them) is counted as the model's too: the stricter reading.

let record = null;
let watching = null;

const current = () => {
  if (!record || record.doc !== document) {
    record = {doc: document, texts: new WeakMap(), attrs: new WeakMap(), inserted: new WeakSet(), values: new WeakMap(), title: null, url: null, erased: []};
  }
  return record;
};

// The record of this document, or null (none yet, or one of a document since replaced).
const mine = () => (record && record.doc === document ? record : null);

const CONTROLS = 'input,textarea,select';
// Bounds on the erased lines kept per document.
const ERASED_LINES = 200;
const ERASED_LINE_CHARS = 500;
const squash = (text) => (text || '').replace(/\s+/g, ' ').trim();
const OPTIONS = {subtree: true, childList: true, characterData: true, attributes: true};

// Every control of the document and its open (or adopted) shadow roots, with its value.
const controlValues = (roots) => {
  const values = new Map();
  for (const root of [document, ...roots]) for (const el of root.querySelectorAll(CONTROLS)) values.set(el, el.value);
  return values;
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

// Before the model's function runs: what the document holds now, and an observer of its changes.
const begin = () => {
  current();
  const roots = verity.shadowRoots();
  const records = [];
  const observer = new MutationObserver((found) => { records.push(...found); });
  for (const root of [document, ...roots]) observer.observe(root, OPTIONS);
  const shown = verity.shownText().split('\n').map(squash).filter(Boolean);
  watching = {doc: document, observer, records, roots: new Set(roots), values: controlValues(roots), title: document.title, url: location.href, shown};
};

// After it ran: what it changed is kept as its own (nothing when the document went meanwhile).
const end = () => {
  const watch = watching;
  watching = null;
  if (!watch || watch.doc !== document) return;
  const rec = current();
  const records = [...watch.records, ...watch.observer.takeRecords()];
  watch.observer.disconnect();
  for (const r of records) {
    if (r.type === 'characterData') rec.texts.set(r.target, r.target.data);
    else if (r.type === 'attributes') {
      if (!rec.attrs.has(r.target)) rec.attrs.set(r.target, new Map());
      rec.attrs.get(r.target).set(r.attributeName, r.target.getAttribute(r.attributeName));
    } else for (const node of r.addedNodes) if (node.isConnected) markInserted(rec, node);
  }
  const roots = verity.shadowRoots();
  for (const root of roots) if (!watch.roots.has(root)) markInserted(rec, root);
  for (const [el, value] of controlValues(roots)) if (watch.values.get(el) !== value) rec.values.set(el, value);
  if (document.title !== watch.title) rec.title = {now: document.title, before: watch.title};
  if (location.href !== watch.url) rec.url = {now: location.href, before: watch.url};
  const after = squash(verity.shownText());
  for (const line of watch.shown) {
    if (rec.erased.length >= ERASED_LINES) break;
    if (!after.includes(line)) rec.erased.push(line.slice(0, ERASED_LINE_CHARS));
  }
};

// The URL the page is at by its own doing: the one it had before the model's script moved it
// (without a new document), while it is still where the script left it.
const pageUrl = () => {
  const url = mine() && record.url;
  return url && location.href === url.now ? url.before : location.href;
};

// Whether the text `wanted` (whitespace collapsed) was shown before the model's script erased it.
const erasedShown = (wanted) => !!mine() && record.erased.some((line) => line.includes(wanted));

// Whether the model's script inserted `el` (or an element it sits in).
const inserted = (el) => !!mine() && record.inserted.has(el);

// Whether a text node holds what the model's script left there.
const wroteText = (node) => !!mine() && record.texts.get(node) === node.data;

// Whether what `read` (field_reads.js) takes from `el` by `how` is the model's: its value when it
// set it, an attribute it set (any attribute of an element it inserted), or a text holding a text
// node it wrote.
const wroteRead = (el, how, control) => {
  if (!mine()) return false;
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
      if (node.data.trim() && wroteText(node)) return true;
    }
    return false;
  };
  const shadow = verity.rootOf(el);
  return (shadow && within(shadow)) || within(el);
};

// The title the page gave itself: the one it had before the model's script changed it, while the
// title is still what the model left.
const pageTitle = () => {
  const title = mine() && record.title;
  return title && document.title === title.now ? title.before : document.title;
};

verity.scriptWrites = {begin, end, wroteText, wroteRead, pageTitle, pageUrl, erasedShown, inserted};
verity.pageUrl = pageUrl;
