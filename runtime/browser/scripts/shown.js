// What a person can see on a page: whether an element, or a text, is shown.
//
// `innerText` and a non-empty bounding box are not enough for a check that a page *shows*
// something: text at opacity 0, in a transparent colour, at font size 0, clipped into a 1 px box or
// placed where no scrolling reaches is in both, and a page that wants a check to pass can put any
// claim there. An element or a text counts as shown here when:
//
// - it and its ancestors are rendered, visible and not fully transparent (`checkVisibility` with
//   opacity and visibility);
// - for a text, its glyphs are painted in a colour that is not fully transparent
//   (`-webkit-text-fill-color`, which follows `color` unless a page sets it);
// - it has a box of at least 1 x 1 px that starts inside the page, right of and below its origin
//   (text below the fold, or further down a scrolling box, is shown: a person scrolls to it);
// - no ancestor clips it away: a box under 2 px wide or high that hides its overflow, or a `clip`
//   rectangle of no area.
//
// Playwright's `isVisible` counts opacity 0 as visible; a verification here is stricter on
// purpose: it is evidence that a person would see the claim.

// `shownElement(el)`, `shownRects(rects)` and `opaque(colour)`, with a cache of what clips what
// for one read.
verity.shownJudge = () => {
  const clipCache = new Map();
  const noArea = (value) => {
    const parts = (value.match(/-?[\d.]+/g) || []).map(Number);
    return parts.length === 4 && (parts[1] - parts[3] <= 0 || parts[2] - parts[0] <= 0);
  };
  const clipsAway = (el) => {
    // The root's and the body's overflow apply to the viewport, which scrolls.
    if (el === document.documentElement || el === document.body) return false;
    const style = getComputedStyle(el);
    if (style.display === 'contents') return false;
    if (style.clip && style.clip !== 'auto' && noArea(style.clip)) return true;
    if (style.overflowX === 'visible' && style.overflowY === 'visible') return false;
    const box = el.getBoundingClientRect();
    return box.width < 2 || box.height < 2;
  };
  const clipped = (el) => {
    if (!el || el.nodeType !== 1) return false;
    if (clipCache.has(el)) return clipCache.get(el);
    const found = clipsAway(el) || clipped(el.parentElement);
    clipCache.set(el, found);
    return found;
  };
  const opaque = (colour) => {
    const values = (colour || '').match(/[\d.]+%?/g) || [];
    if (values.length < 4) return true;
    const alpha = values[3].endsWith('%') ? parseFloat(values[3]) / 100 : parseFloat(values[3]);
    return alpha > 0;
  };
  const inPage = (r) => r.width >= 1 && r.height >= 1 && r.right + scrollX > 0 && r.bottom + scrollY > 0;
  const shownRects = (rects) => Array.from(rects).some(inPage);
  const boxed = (el) => {
    while (el.parentElement && getComputedStyle(el).display === 'contents') el = el.parentElement;
    return el;
  };
  const shownElement = (el) => boxed(el).checkVisibility({opacityProperty: true, visibilityProperty: true}) && !clipped(el);
  return {shownElement, shownRects, opaque};
};

// The text nodes under <body> that a person can see, each block's text on a line of its own and
// cased as `text-transform` draws it (enough for a "the page shows this text" check, whitespace
// being collapsed). Text an agent's model's own script wrote is never the page's (script_writes.js). With `skipEditable`, text inside contenteditable content is left out: anyone
// typing there writes it, so it is not the page stating it.
verity.shownText = (skipEditable = false) => {
  const {shownElement, shownRects, opaque} = verity.shownJudge();
  if (!document.body) return '';
  const blockOf = (el) => {
    while (el && el !== document.body && getComputedStyle(el).display.startsWith('inline')) el = el.parentElement;
    return el;
  };
  // Per element holding text: null when its text cannot be seen, else its block and casing.
  const seen = new Map();
  const drawn = (el) => {
    if (!seen.has(el)) {
      const style = getComputedStyle(el);
      const visible = !(skipEditable && el.isContentEditable) && shownElement(el) && opaque(style.webkitTextFillColor);
      seen.set(el, visible ? {block: blockOf(el), transform: style.textTransform} : null);
    }
    return seen.get(el);
  };
  const cased = (text, transform) => transform === 'uppercase' ? text.toUpperCase()
    : transform === 'lowercase' ? text.toLowerCase()
    : transform === 'capitalize' ? text.replace(/(^|\s)(\S)/g, (m, space, first) => space + first.toUpperCase())
    : text;
  const parts = [];
  let lastBlock = null;
  const range = document.createRange();
  // An open (or adopted closed) shadow root is walked where its host stands (a light child it does
  // not slot has no box, so it is left out as it is not drawn).
  const walk = (root) => {
    if (verity.rootOf(root)) walk(verity.rootOf(root));
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeType === 1) {
        if (node.tagName === 'BR') parts.push('\n');
        if (verity.rootOf(node)) walk(verity.rootOf(node));
        continue;
      }
      if (!node.data.trim()) {
        parts.push(' ');  // the space between two inline elements
        continue;
      }
      const info = node.parentElement && drawn(node.parentElement);
      if (!info || verity.scriptWrites.wroteText(node)) continue;
      range.selectNodeContents(node);
      if (!shownRects(range.getClientRects())) continue;
      if (info.block !== lastBlock) parts.push('\n');
      lastBlock = info.block;
      parts.push(cased(node.data, info.transform));
    }
  };
  walk(document.body);
  return parts.join('');
};

// Whether the page shows `value` (whitespace collapsed on both sides), and the start of its
// visible text for evidence. The page's text (its innerText and its open shadow roots') is looked
// at first: a text it lacks is not shown, and that answer costs a fraction of walking every text
// node (0.03 s against 0.6 s on a page of 88,000 nodes), which a wait that polls asks many times.
// `editable: false`: text in contenteditable content does not count (see shownText). `erased`:
// text an agent's model's own script erased counts as shown, as a check that the page does not
// say it reads it (script_writes.js).
verity.textShown = (value, editable = true, erased = false) => {
  const squash = (text) => (text || '').replace(/\s+/g, ' ').trim();
  const wanted = squash(value);
  const all = squash(verity.allText());
  const shown = (all.includes(wanted) && squash(verity.shownText(!editable)).includes(wanted)) || (erased && verity.scriptWrites.erasedShown(wanted));
  return {shown, text: all.slice(0, 300)};
};
