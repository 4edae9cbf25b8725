// Extracting fields (runtime/browser/action_handlers/field_reads.py).

// How one element reads, by `how` = {attr, value, trim}: a form control (input, textarea, select)
// reads what it holds now unless `value` is false; `attr: value` on one means the same (its
// attribute is only the markup's initial value); a multiple select reads its chosen values joined
// by ', '; anything else reads its text, trimmed unless `trim` is false. With `whence`, not the
// value but where it comes from (`whence` below).
const read = (el, how) => {
  const control = ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
  if (how.whence) return whence(el, how, control);
  const holds = () => el.tagName === 'SELECT' && el.multiple
    ? Array.from(el.selectedOptions).map(o => o.value).join(', ') : el.value;
  if (how.attr && !(how.attr === 'value' && control)) return el.getAttribute(how.attr);
  if (control && how.value !== false) return holds();
  if (how.value === true) return null;
  const text = el.innerText !== undefined ? el.innerText : (el.textContent || '');
  return how.trim === false ? text : text.trim();
};

// Attributes that hold where a shown element leads, which a person follows rather than reads.
const ADDRESSES = ['href', 'src'];

// Whether an attribute read states what the element shows: a person is shown the element's text,
// not its tooltip, alt text, aria-label or data-* attributes, so such a value is the page's word
// only when that text says it too (<data value>, a <time datetime> that repeats its words), whole:
// "612" is not stated by "612.35".
const statedAsText = (el, how, control) => {
  if (!how.attr || (how.attr === 'value' && control) || ADDRESSES.includes(how.attr)) return true;
  const squeeze = (text) => (text || '').replace(/\s+/g, ' ').trim();
  const value = squeeze(el.getAttribute(how.attr));
  if (value === '') return false;
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<!\\d|\\d[.,])${escaped}(?!\\d|[.,]\\d)`).test(squeeze(el.innerText));
};

// Where a read of `el` by `how` comes from, as an agent step judges its model's extracts:
// `shown`, whether a person sees the element (shown.js: rendered, not transparent, with a box
// inside the page that nothing clips away; its text painted, for a text read), `stated`, whether
// an attribute read says what the element's text shows (statedAsText), and `written`, whether
// what it reads is what an agent's model's own script wrote (script_writes.js).
const whence = (el, how, control) => {
  const {shownElement, shownRects, opaque} = verity.shownJudge();
  const contents = document.createRange();
  contents.selectNodeContents(el);
  const boxed = shownRects(el.getClientRects()) || shownRects(contents.getClientRects());
  const painted = control || how.attr ? true : opaque(getComputedStyle(el).webkitTextFillColor);
  return {
    shown: shownElement(el) && boxed && painted,
    stated: statedAsText(el, how, control),
    written: verity.scriptWrites.wroteRead(el, how, control),
  };
};

// Every field the top document's isolated world can answer, in one call: a CSS `all` field's
// matches, and each located field's search (the strict locator's, locate.js) with the match it
// takes read at once; with `withFingerprint`, the page fingerprint of the document they were read
// from (one JavaScript task: nothing can change the document between them).
// With `withFingerprint`, the fingerprint of the document read, and when its digest is not
// `signsUnless` (what it showed when it was validated), also what it shows about itself now
// (verity.pageSigns, with `signLimits`), so a page rewritten into a wall is judged by this one read.
verity.readFields = (fields, withFingerprint, signsUnless, signLimits) => {
  const values = {}, located = {}, elements = [];
  for (const [name, field] of Object.entries(fields)) {
    if (field.all) { values[name] = Array.from(document.querySelectorAll(field.selector)).map((el) => read(el, field.how)); continue; }
    let found;
    try { found = verity.locate(field.spec); } catch (e) { located[name] = {error: String(e)}; continue; }
    located[name] = found;
    if (found.scope_error) continue;
    const el = verity.located(field.index);
    values[name] = el ? read(el, field.how) : null;
    if (el) elements.push(el);
  }
  const fingerprint = withFingerprint ? verity.fingerprint() : null;
  const changed = fingerprint && signsUnless && fingerprint.digest !== signsUnless;
  const signs = changed ? {...verity.pageSigns(...signLimits, elements), title: verity.title()} : null;
  // What covers the page, or a value read, as the values are read: a layer slid or faded in over
  // them changes neither the page's text nor its tags, so the fingerprint does not see it.
  const cover = signs ? signs.cover : verity.coveringLayer(signLimits[0], elements);
  return {values, located, url: location.href, fingerprint, signs, cover};
};

// The same reading rule, for an element found by a ref or in an iframe (`this`).
verity.readElement = function (how) { return read(this, how); };
