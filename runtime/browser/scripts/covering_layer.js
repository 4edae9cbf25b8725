// The layer drawn over a page's content (runtime/execute/judges/page_blockers.py judges it): a
// sign-in box, a paywall, a captcha or an "Access denied" notice a site draws over an article whose
// text is still in the DOM underneath, shown, often blurred.
//
// What a person meets is what is drawn on top. The viewport is probed on a grid, and at the centre
// of each value read when values are given, with elementsFromPoint, through open and adopted closed
// shadow roots. A hit's layer is its outermost fixed ancestor under <body>, or else its outermost
// absolute or sticky ancestor drawn over something outside it (a paywall laid over its article's
// wrapper); a transparent one is no layer. What hit testing cannot meet is taken by box and paint
// order among the positioned elements beside the hit's ancestors: a wall drawn with
// pointer-events: none (the pointer passes through it, a person does not), and whatever lies over a
// value off the viewport. A layer counts when it holds the viewport's centre or a quarter of its
// area (a header, a cookie bar, a corner dialog do neither) or lies over a value read, and the
// layers that count cover the page when they are hit at half the grid's points, lie over a value,
// or hold the page under them: a modal dialog, aria-modal, the rest of the page inert or blurred,
// its scrolling locked. A frame in a layer is read by its document: here when the page can read it
// (same origin), else by the driver in the frame's own world (runtime/browser/tab/cover_frames.py).

const GRID = 5;
const SHARE = 0.5;
// A layer's text past this is a long page's to the judge, which reads no more: the signs stay small.
const TEXT_CHARS = 4000;
// The controls a layer offers (its buttons and links), by name, for the judge to find a way past it.
const CONTROLS = 16;
const CONTROL_CHARS = 60;
const CONTROL = 'button,a[href],[role=button],input[type=button],input[type=submit]';

const parentOf = (el) => el.parentElement || (el.getRootNode() instanceof ShadowRoot ? el.getRootNode().host : null);

// Whether `outer` holds `el`, across shadow roots.
const inside = (outer, el) => {
  for (let node = el; node; node = parentOf(node)) if (node === outer) return true;
  return false;
};

// What is drawn at (x, y): the top element, taken inside shadow roots, and the document's whole
// stack there, top first, asked only when needed (a list hit test costs more on a big page).
const stackAt = (x, y) => {
  let el = document.elementFromPoint(x, y);
  for (let depth = 0; el && depth < 16; depth++) {
    const root = verity.rootOf(el);
    const inner = root && root.elementFromPoint(x, y);
    if (!inner || inner === el) break;
    el = inner;
  }
  let stack = null;
  return {top: el, stack: () => (stack = stack || document.elementsFromPoint(x, y))};
};

// A parent with more children than this holds rows of content (a table's, a list's), not layers.
const SIBLINGS = 64;
const styleOf = (el) => getComputedStyle(el);
const drawn = (el) => !el.checkVisibility || el.checkVisibility({opacityProperty: true, visibilityProperty: true});
const holdsPoint = (el, x, y) => {
  const box = el.getBoundingClientRect();
  return box.width > 0 && box.height > 0 && x >= box.left && x <= box.right && y >= box.top && y <= box.bottom;
};

// Whether `el` paints something at (x, y): a background, a backdrop, or a child (a few levels down) that does.
const paintsAt = (el, x, y, depth = 0) => {
  if (!holdsPoint(el, x, y)) return false;
  const s = styleOf(el);
  const transparent = s.backgroundColor === 'transparent' || /,\s*0\)$/.test(s.backgroundColor);
  if (!transparent || s.backgroundImage !== 'none' || s.backdropFilter !== 'none' || ['IMG', 'SVG', 'CANVAS', 'VIDEO', 'IFRAME'].includes(el.tagName.toUpperCase())) return true;
  return depth < 3 && Array.from(el.children).slice(0, SIBLINGS).some((child) => paintsAt(child, x, y, depth + 1));
};

// The children of `parent` drawn apart from the flow (fixed, absolute, sticky), shown, with
// whether the pointer passes through each (what hit testing cannot meet). Cached per probe.
const drawnApart = (parent, cache) => {
  if (!cache.has(parent)) {
    const children = parent.children && parent.children.length <= SIBLINGS ? Array.from(parent.children) : [];
    cache.set(parent, children.filter((el) => ['fixed', 'absolute', 'sticky'].includes(styleOf(el).position) && drawn(el))
      .map((el) => ({el, passes: styleOf(el).pointerEvents === 'none'})));
  }
  return cache.get(parent);
};

const zIndex = (el) => { const z = parseInt(styleOf(el).zIndex, 10); return Number.isNaN(z) ? 0 : z; };

// Whether `layer`, a positioned element, is painted over its sibling `node` (null: the parent's own content).
const paintedOver = (layer, node) => {
  if (!node || styleOf(node).position === 'static') return zIndex(layer) >= 0;
  if (zIndex(layer) !== zIndex(node)) return zIndex(layer) > zIndex(node);
  return !!(node.compareDocumentPosition(layer) & Node.DOCUMENT_POSITION_FOLLOWING);
};

// The outermost element drawn apart from the flow that is painted over `top` at (x, y), beside
// one of its ancestors: of those the pointer passes through only (`passing`), where hit testing
// met `top`; of any, at a point off the viewport, where nothing can be hit-tested.
const drawnOver = (top, x, y, cache, passing) => {
  let found = null;
  const chain = top === document.body || top === document.documentElement ? [[null, document.body]] : [];
  for (let node = top; node && node !== document.body && node !== document.documentElement; node = parentOf(node)) {
    chain.push([node, node.parentElement || node.parentNode]);
  }
  for (const [node, parent] of chain) {
    if (!parent) continue;
    const over = drawnApart(parent, cache).find(({el, passes}) => (passes || !passing) && el !== node && paintedOver(el, node) && paintsAt(el, x, y));
    if (over) found = over.el;
  }
  return found;
};

const isPage = (el) => !!el.querySelector('main,[role=main]');

// The layer `top` belongs to: its outermost fixed ancestor below <body> (a body fixed to lock
// scrolling is the page; a fixed frame holding the page's main content is the page itself), or
// else its outermost absolute or sticky ancestor over something of `stack()` (what is drawn
// there) outside it.
const layerOf = (top, stack, styles) => {
  let fixed = null, over = null;
  for (let node = top; node && node !== document.body && node !== document.documentElement; node = parentOf(node)) {
    if (!styles.has(node)) styles.set(node, styleOf(node).position);
    const position = styles.get(node);
    if (position === 'fixed') fixed = node;
    else if ((position === 'absolute' || position === 'sticky') && stack().some((el) => !inside(node, el) && !inside(el, node))) over = node;
  }
  const layer = fixed && !isPage(fixed) ? fixed : over;
  return layer && drawn(layer) ? layer : null;
};

// Every shadow root under `el`, its own included.
const rootsUnder = (el) => {
  const own = verity.rootOf(el);
  return [...(own ? [own, ...verity.shadowRoots(own)] : []), ...verity.shadowRoots(el)];
};

const holds = (layers, el) => layers.some((layer) => layer.contains(el) || el.contains(layer));

// Why the page is held under `layers`, beyond the share they cover.
const heldBy = (layers) => {
  const reasons = [];
  const inLayers = (selector) => layers.some((l) => l.matches(selector) || l.querySelector(selector) || rootsUnder(l).some((r) => r.querySelector(selector)));
  if (inLayers('[aria-modal=true]')) reasons.push('aria-modal');
  if (inLayers('dialog:modal')) reasons.push('modal dialog');
  const page = [document.body, ...document.body.children, ...document.querySelectorAll('main,article,[role=main]')].filter((el) => !holds(layers, el));
  if (page.some((el) => el.inert)) reasons.push('page inert');
  const blurred = page.some((el) => getComputedStyle(el).filter.includes('blur'))
    || layers.some((l) => getComputedStyle(l).backdropFilter.includes('blur'));
  if (blurred) reasons.push('page blurred');
  const locked = [document.documentElement, document.body].some((el) => {
    const style = getComputedStyle(el);
    return ['hidden', 'clip'].includes(style.overflowY) || (el === document.body && style.position === 'fixed');
  });
  if (locked) reasons.push('scrolling locked');
  return reasons;
};

const describe = (el) => {
  const id = el.id ? `#${el.id}` : '';
  const cls = typeof el.className === 'string' && el.className.trim() ? `.${el.className.trim().split(/\s+/).slice(0, 2).join('.')}` : '';
  const role = el.getAttribute('role') ? `[role=${el.getAttribute('role')}]` : '';
  return `${el.tagName.toLowerCase()}${id}${cls}${role}`;
};

const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();

// The frames the page cannot read (another origin) of the latest layer found: the driver reads
// their documents in their own worlds (runtime/browser/tab/cover_frames.py).
let unreadFrames = [];

// The documents of the frames among `frames` the page can read (same origin), and those it cannot.
const frameDocuments = (frames) => {
  const read = [], unread = [];
  for (const frame of frames) {
    let doc = null;
    try { doc = frame.contentDocument; } catch { doc = null; }
    if (doc && doc.body) read.push(doc);
    else unread.push(frame);
  }
  return {read, unread};
};

// What blocker detection reads of `layers`, as of a page (headings, text, a password field, a
// captcha widget, in their shadow roots and the documents of their frames the page can read),
// with the controls they offer.
const signsOf = (layers, limit) => {
  const roots = layers.flatMap(rootsUnder);
  const within = (selector) => [...layers.flatMap((l) => [...(l.matches(selector) ? [l] : []), ...l.querySelectorAll(selector)]),
    ...roots.flatMap((r) => Array.from(r.querySelectorAll(selector)))];
  const frames = frameDocuments(within('iframe,frame'));
  const all = (selector) => [...within(selector), ...frames.read.flatMap((doc) => Array.from(doc.querySelectorAll(selector)))];
  const text = [...layers.map((l) => l.innerText || ''), ...roots.map(verity.shadowText), ...frames.read.map((doc) => doc.body.innerText || '')]
    .filter(Boolean).join('\n');
  const named = (el) => squash(el.getAttribute('aria-label') || el.innerText || el.value || el.title).slice(0, CONTROL_CHARS);
  const source = (frame) => { try { return new URL(frame.src || 'about:blank', location.href).href; } catch { return 'about:blank'; } };
  unreadFrames = frames.unread;
  return {
    headings: all('h1,h2,h3').filter(verity.rendered).map((h) => squash(h.innerText)).filter(Boolean).slice(0, 10),
    password: all('input[type=password]').some(verity.rendered),
    captcha: all(verity.captchaSelector).length > 0,
    controls: all(CONTROL).filter(verity.rendered).map(named).filter(Boolean).slice(0, CONTROLS),
    frames: [...frames.read.map((doc) => doc.URL), ...frames.unread.map(source)],
    unread_frames: frames.unread.map(source),
    text: text.slice(0, Math.min(limit, TEXT_CHARS)),
  };
};

// Which of the latest layer's unread frames this frame element is (-1 for none).
verity.coverFrameIndex = function () { return unreadFrames.indexOf(this); };

// A frame's document as a layer, read in its own world: what signsOf reads of one.
verity.frameLayer = (limit) => (document.body ? signsOf([document.body], limit) : null);

// The layers drawn over the page, with the share of the grid's points they were met at and
// whether one lies over a value read (`values`, elements).
const probeLayers = (values) => {
  const width = innerWidth, height = innerHeight;
  const styles = new Map(), hits = new Map(), overValue = new Set(), cache = new Map();
  const layerAt = (x, y) => {
    const {top, stack} = stackAt(x, y);
    if (!top) return null;
    const over = drawnOver(top, x, y, cache, true);
    return over ? layerOf(over, () => [...stack(), top], styles) : layerOf(top, stack, styles);
  };
  for (let i = 0; i < GRID; i++) {
    for (let j = 0; j < GRID; j++) {
      const layer = layerAt((i + 0.5) * width / GRID, (j + 0.5) * height / GRID);
      if (layer) hits.set(layer, (hits.get(layer) || 0) + 1);
    }
  }
  for (const value of values) {
    const box = value.getBoundingClientRect();
    const x = box.left + box.width / 2, y = box.top + box.height / 2;
    if (!box.width || !box.height) continue;
    const onScreen = x >= 0 && y >= 0 && x <= width && y <= height;
    const over = onScreen ? null : drawnOver(value, x, y, cache, false);
    const layer = onScreen ? layerAt(x, y) : over && layerOf(over, () => [value], styles);
    if (layer && !inside(layer, value)) { overValue.add(layer); if (!hits.has(layer)) hits.set(layer, 0); }
  }
  return {hits, overValue};
};

// The layer covering the page, as blocker detection reads a page (headings, text, a password
// field, a captcha widget, and the frames' documents it holds) with the share of the grid it
// covers, why the page is held and the controls it offers; null when no layer covers it.
verity.coveringLayer = (limit, values = []) => {
  const width = innerWidth, height = innerHeight;
  if (!document.body || !width || !height) return null;
  const {hits, overValue} = probeLayers(values);
  if (!hits.size) return null;
  const counts = (layer) => {
    if (isPage(layer)) return false;
    if (overValue.has(layer)) return true;
    const box = layer.getBoundingClientRect();
    const area = Math.max(0, Math.min(box.right, width) - Math.max(box.left, 0)) * Math.max(0, Math.min(box.bottom, height) - Math.max(box.top, 0));
    const centre = box.left <= width / 2 && box.right >= width / 2 && box.top <= height / 2 && box.bottom >= height / 2;
    return centre || area >= width * height / 4;
  };
  const layers = [...hits.keys()].filter(counts);
  if (!layers.length) return null;
  const share = layers.reduce((sum, layer) => sum + hits.get(layer), 0) / (GRID * GRID);
  const held = heldBy(layers);
  if (layers.some((layer) => overValue.has(layer))) held.push('over a value read');
  if (share < SHARE && !held.length) return null;
  // A value read inside a layer is the layer's word, not the page's under it.
  const holdsValue = values.some((value) => layers.some((layer) => inside(layer, value)));
  return {layers: layers.map(describe), share, held, holds_value: holdsValue, ...signsOf(layers, limit)};
};
