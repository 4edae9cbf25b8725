// The layer drawn over a page's content (runtime/execute/judges/page_blockers.py judges it): a
// sign-in box, a paywall, a captcha or an "Access denied" notice a site puts in a fixed layer over
// an article whose text is still in the DOM underneath, shown, often blurred.
//
// What a person meets is what the pointer meets: the viewport is probed on a grid with
// elementFromPoint (through open and adopted closed shadow roots), and each hit's outermost fixed
// ancestor under <body> is a layer. A layer counts when it holds the viewport's centre or a
// quarter of its area (a header, a cookie bar, a corner dialog do neither), and the layers that
// count cover the page when they are hit at half the grid's points, or when the page is held under
// them: a modal dialog, aria-modal, the rest of the page inert or blurred, its scrolling locked.
// A layer the pointer passes through (pointer-events: none, a decorative gradient) is never hit.

const GRID = 5;
const SHARE = 0.5;
// A layer's text past this is a long page's to the judge, which reads no more: the signs stay small.
const TEXT_CHARS = 4000;

// The element a person's pointer meets at (x, y), inside shadow roots.
const hitAt = (x, y) => {
  let el = document.elementFromPoint(x, y);
  for (let depth = 0; el && depth < 16; depth++) {
    const root = verity.rootOf(el);
    const inner = root && root.elementFromPoint(x, y);
    if (!inner || inner === el) break;
    el = inner;
  }
  return el;
};

const parentOf = (el) => el.parentElement || (el.getRootNode() instanceof ShadowRoot ? el.getRootNode().host : null);

// The outermost fixed element holding `el`, below <body> (a body fixed to lock scrolling is the page).
const layerOf = (el, styles) => {
  let layer = null;
  for (let node = el; node && node !== document.body && node !== document.documentElement; node = parentOf(node)) {
    if (!styles.has(node)) styles.set(node, getComputedStyle(node).position);
    if (styles.get(node) === 'fixed') layer = node;
  }
  return layer;
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

// The layer covering the page, as blocker detection reads a page (headings, text, a password
// field, a captcha widget) with the share of the grid it covers and why the page is held; null
// when no layer covers it.
verity.coveringLayer = (limit) => {
  const width = innerWidth, height = innerHeight;
  if (!document.body || !width || !height) return null;
  const styles = new Map(), hits = new Map();
  for (let i = 0; i < GRID; i++) {
    for (let j = 0; j < GRID; j++) {
      const hit = hitAt((i + 0.5) * width / GRID, (j + 0.5) * height / GRID);
      const layer = hit && layerOf(hit, styles);
      if (layer) hits.set(layer, (hits.get(layer) || 0) + 1);
    }
  }
  if (!hits.size) return null;
  const counts = (layer) => {
    const box = layer.getBoundingClientRect();
    const area = Math.max(0, Math.min(box.right, width) - Math.max(box.left, 0)) * Math.max(0, Math.min(box.bottom, height) - Math.max(box.top, 0));
    const centre = box.left <= width / 2 && box.right >= width / 2 && box.top <= height / 2 && box.bottom >= height / 2;
    return centre || area >= width * height / 4;
  };
  // A fixed frame holding the page's main content (an app drawn in a fixed box) is the page itself.
  const layers = [...hits.keys()].filter((layer) => counts(layer) && !layer.querySelector('main,[role=main]'));
  if (!layers.length) return null;
  const share = layers.reduce((sum, layer) => sum + hits.get(layer), 0) / (GRID * GRID);
  const held = heldBy(layers);
  if (share < SHARE && !held.length) return null;
  const roots = layers.flatMap(rootsUnder);
  const within = (selector) => [...layers.flatMap((l) => [...(l.matches(selector) ? [l] : []), ...l.querySelectorAll(selector)]),
    ...roots.flatMap((r) => Array.from(r.querySelectorAll(selector)))];
  const shown = (el) => !el.checkVisibility || el.checkVisibility({visibilityProperty: true});
  const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const text = [...layers.map((l) => l.innerText || ''), ...roots.map(verity.shadowText)].filter(Boolean).join('\n');
  return {
    layers: layers.map(describe),
    share,
    held,
    headings: within('h1,h2,h3').filter(shown).map((h) => squash(h.innerText)).filter(Boolean).slice(0, 10),
    password: within('input[type=password]').some(shown),
    captcha: within(verity.captchaSelector).length > 0,
    text: text.slice(0, Math.min(limit, TEXT_CHARS)),
  };
};
