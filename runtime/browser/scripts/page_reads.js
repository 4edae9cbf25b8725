// Reading a page (runtime/browser/action_handlers/read.py and the tab): what it shows and holds,
// read in the isolated world, where the page's own scripts cannot stand in for the DOM.

verity.url = () => location.href;
verity.origin = () => location.origin;
// The title the page gave itself (not one an agent's model's own script set: script_writes.js).
verity.title = () => verity.scriptWrites.pageTitle();
verity.innerText = () => document.body ? document.body.innerText : '';
verity.pageHtml = () => document.documentElement ? document.documentElement.outerHTML : '';
verity.documentHtml = () => document.documentElement.outerHTML;
verity.elementHtml = function () { return this.outerHTML; };
verity.isConnected = function () { return this.isConnected; };
// The focused element (the body when nothing has focus).
verity.activeElement = () => document.activeElement || document.body || document.documentElement;

// What observe shows above the snapshot: the URL, the title and the start of the text.
verity.observeHead = (textChars) => [location.href, document.title, (document.body ? document.body.innerText : '').slice(0, textChars)];

// The closed shadow roots the driver found through DevTools (runtime/browser/tab/closed_roots.py),
// by host. Only the page's judgments read them (signs, keywords, shown text, the fingerprint):
// locators and snapshots keep to open roots, as Playwright's do.
verity.closedRoots = new Map();
verity.adoptClosedRoot = function () { verity.closedRoots.set(this.host, this); };
verity.rootOf = (el) => el.shadowRoot || verity.closedRoots.get(el) || null;

// Every open shadow root of a document (this one by default), and every closed one adopted,
// nested ones included, in document order: what innerText, querySelectorAll and a TreeWalker of
// the document leave out (a web component's content, or a sign-in wall a script puts in a shadow
// root attached to the body after validation).
verity.shadowRoots = (doc = document) => {
  const roots = [];
  const scan = (root) => {
    for (const el of root.querySelectorAll('*')) {
      const shadow = verity.rootOf(el);
      if (shadow) { roots.push(shadow); scan(shadow); }
    }
  };
  scan(doc);
  return roots;
};

// How many nodes of the document this world reaches, counted as DevTools' DOM.performSearch
// counts them for "<" (every element, and every text or comment holding "<"), through open and
// adopted shadow roots and same-origin frames: fewer than DevTools counts means a closed root
// this world has not read. XPath counts the texts natively (a walk in script costs several times
// more on a huge page); it takes a document or an element as its context, not a shadow root.
verity.reachableNodes = () => {
  const marked = "count(.//text()[contains(., '<')]|.//comment()[contains(., '<')])";
  const markedUnder = (node) => node.nodeType === Node.TEXT_NODE || node.nodeType === Node.COMMENT_NODE
    ? Number(node.data.includes('<'))
    : node.nodeType === Node.ELEMENT_NODE || node.nodeType === Node.DOCUMENT_NODE
      ? document.evaluate(marked, node, null, XPathResult.NUMBER_TYPE, null).numberValue : 0;
  const inDocument = (doc) => {
    const roots = verity.shadowRoots(doc);
    let count = doc.getElementsByTagName('*').length + markedUnder(doc);
    for (const root of roots) {
      count += root.querySelectorAll('*').length;
      for (const child of root.childNodes) count += markedUnder(child);
    }
    for (const frame of verity.deepAll('iframe,frame', roots, doc)) if (frame.contentDocument) count += inDocument(frame.contentDocument);
    return count;
  };
  return inDocument(document);
};

// The text a shadow root shows (its rendered children's innerText; a nested root has its own entry).
verity.shadowText = (root) => Array.from(root.children)
  .filter(el => !['STYLE', 'SCRIPT', 'TEMPLATE', 'LINK'].includes(el.tagName)).map(el => el.innerText || '').join('\n');

// The page's innerText and then every open shadow root's text: all the text it renders.
verity.allText = (roots = verity.shadowRoots()) =>
  [document.body ? document.body.innerText : '', ...roots.map(verity.shadowText)].filter(Boolean).join('\n');

// Every element matching `selector` in the document (or `doc`) and in its shadow roots `roots`.
verity.deepAll = (selector, roots = verity.shadowRoots(), doc = document) =>
  [...doc.querySelectorAll(selector), ...roots.flatMap(root => Array.from(root.querySelectorAll(selector)))];

// What a page fingerprint hashes: URL, DOM structure, form values and visible text, open shadow
// roots included (a script that rewrites only a shadow root changes the fingerprint too).
verity.fingerprint = () => {
  const els = document.getElementsByTagName('*');
  const tags = new Array(els.length);
  let shadowed = false;
  for (let i = 0; i < els.length; i++) { tags[i] = els[i].tagName; shadowed = shadowed || !!els[i].shadowRoot; }
  shadowed = shadowed || verity.closedRoots.size > 0;
  const roots = shadowed ? verity.shadowRoots() : [];
  for (const root of roots) { tags.push('#shadow'); for (const el of root.querySelectorAll('*')) tags.push(el.tagName); }
  const fields = verity.deepAll('input,textarea,select', roots)
    .map(e => e.type === 'checkbox' || e.type === 'radio' ? String(e.checked) : e.value);
  return {url: location.href, structure: tags.join(','), fields: fields.join('\u0001'), text: verity.allText(roots)};
};

// A document's headings as blocker detection reads them: the main heading first (the judge reads
// the first as the page's own): the first heading of the main content (<main>, role=main; its h1
// if it has one), else the first h1, else the first heading. A site's logo or a sidebar heading
// before the content is not what the page says it is. The others follow in page order. Open
// shadow roots count (verity.deepAll). `doc` may be a same-origin frame's (script_writes.js).
// `verity.rendered`: an element rendered and not `visibility: hidden` (the judges' own test, laxer
// than shown.js's "a person sees it").
verity.rendered = (el) => !el.checkVisibility || el.checkVisibility({visibilityProperty: true});
verity.headingsOf = (doc = document, roots = verity.shadowRoots(doc)) => {
  const found = verity.deepAll('h1,h2,h3', roots, doc).filter(verity.rendered);
  const main = verity.deepAll('main, [role=main]', roots, doc)[0];
  const inMain = main ? found.filter((h) => main.contains(h)) : [];
  const first = inMain.find((h) => h.tagName === 'H1') || inMain[0] || found.find((h) => h.tagName === 'H1') || found[0];
  return (first ? [first, ...found.filter((h) => h !== first)] : found)
    .map((h) => h.innerText.replace(/\s+/g, ' ').trim()).filter(Boolean).slice(0, 30);
};
verity.showsPassword = (doc = document, roots = verity.shadowRoots(doc)) =>
  verity.deepAll('input[type=password]', roots, doc).some(verity.rendered);

// What blocker detection needs that the readable text loses: headings, the visible text (the shown
// text on a page of up to `shownLimit` characters of innerText, else the innerText), a password
// field, a captcha widget (the common providers' frames and containers), and the layer that
// covers the page, if one does. Open shadow roots count as the document: a wall drawn by a web
// component is a wall. What an agent's model's own script erased (a wall's heading, its form, its
// words) still counts: the page said it (script_writes.js, `erasedSigns`).
verity.pageSigns = (limit, shownLimit, values = []) => {
  const roots = verity.shadowRoots();
  const erased = verity.scriptWrites.erasedSigns();
  const now = verity.headingsOf(document, roots);
  const headings = erased.headings.length ? [...erased.headings, ...now.filter((h) => !erased.headings.includes(h))].slice(0, 30) : now;
  const password = verity.showsPassword(document, roots) || erased.password;
  const captcha = verity.deepAll(verity.captchaSelector, roots).length > 0;
  const inner = verity.allText(roots);
  const source = inner.length <= shownLimit ? 'shown' : 'inner_text';
  const text = [...erased.lines, source === 'shown' ? verity.shownText() : inner].join('\n');
  // A layer drawn over the content is judged as what a person meets first (covering_layer.js), and
  // one over a value read (`values`, elements) as what covers that value.
  return {headings, password, captcha, text: text.slice(0, limit), source, cover: verity.coveringLayer(limit, values)};
};
verity.captchaSelector = 'iframe[src*="recaptcha"],iframe[src*="hcaptcha"],' +
  'iframe[src*="challenges.cloudflare.com"],.g-recaptcha,.h-captcha,.cf-turnstile,[data-sitekey],' +
  '#captcha,.captcha,[id*="geetest"],[class*="geetest"],[class*="nc_wrapper"]';

// The signs of the document an element lives in (called on the element, in its frame's world):
// a value read inside a frame is judged by the frame document it came from.
// Its origin too: a srcdoc or about:blank frame's URL says nothing of where its content is from.
verity.frameSigns = function (limit, shownLimit) {
  return {...verity.pageSigns(limit, shownLimit), title: verity.title(), url: location.href, origin: location.origin};
};

// Everything prepare_page reads, in one JavaScript task: the HTML, URL, title, signs and
// fingerprint all belong to the one document.
verity.pageReads = (visibleChars, shownLimit) => ({
  html: document.documentElement ? document.documentElement.outerHTML : '',
  url: location.href,
  title: verity.title(),
  signs: verity.pageSigns(visibleChars, shownLimit),
  fingerprint: verity.fingerprint(),
});

// Covers, for one capture, every field whose value and every text that shows one of the given
// values with a black box (position: absolute in page coordinates, so a full-page capture is
// covered too); returns how many boxes it drew. `unmaskSecrets` takes the boxes it drew away.
verity.maskSecrets = function (values) {
  const boxes = [];
  const cover = (rect) => { if (rect.width > 0 && rect.height > 0) boxes.push(rect); };
  const shows = (text) => values.some((v) => text.includes(v));
  for (const field of document.querySelectorAll('input, textarea')) {
    if (field.type !== 'password' && shows(field.value || '')) cover(field.getBoundingClientRect());
  }
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const value of values) {
      for (let at = node.data.indexOf(value); at >= 0; at = node.data.indexOf(value, at + value.length)) {
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + value.length);
        for (const rect of range.getClientRects()) cover(rect);
      }
    }
  }
  if (!boxes.length) return 0;
  const layer = document.createElement('div');
  layer.setAttribute('data-verity-secret-mask', '');
  layer.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647;pointer-events:none';
  for (const r of boxes) {
    const box = document.createElement('div');
    box.style.cssText = `position:absolute;background:#000;left:${r.left + scrollX}px;top:${r.top + scrollY}px;width:${r.width}px;height:${r.height}px`;
    layer.appendChild(box);
  }
  document.documentElement.appendChild(layer);
  // Kept in this (isolated) world: what is taken away after the capture is this layer, never an
  // element the page marked the same way.
  verity.maskLayers = [...(verity.maskLayers || []), layer];
  return boxes.length;
};
verity.unmaskSecrets = () => {
  (verity.maskLayers || []).forEach((layer) => layer.remove());
  verity.maskLayers = [];
};

// The elements a seed-003 XPath scan lists: in the viewport or the whole document, `limit` at
// most, each with its XPath, tag, text and box.
verity.xpathScan = (scope, limit) => {
  const selector = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[role],[onclick],[contenteditable],h1,h2,h3,h4,h5,h6';
  const xpathOf = (el) => {
    const steps = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentNode) {
      let index = 1;
      for (let sib = node.previousElementSibling; sib; sib = sib.previousElementSibling)
        if (sib.tagName === node.tagName) index++;
      steps.unshift(node.tagName.toLowerCase() + '[' + index + ']');
    }
    return '/' + steps.join('/');
  };
  const out = [];
  let total = 0;
  for (const el of document.querySelectorAll(selector)) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (scope === 'viewport' && (r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth)) continue;
    total++;
    if (out.length >= limit) continue;
    out.push({xpath: xpathOf(el), tag: el.tagName.toLowerCase(),
              text: (el.innerText || el.value || el.getAttribute('aria-label') || '').trim().slice(0, 120),
              bbox: {x: Math.round(r.x), y: Math.round(r.y + scrollY), w: Math.round(r.width), h: Math.round(r.height)}});
  }
  return {elements: out, total};
};
