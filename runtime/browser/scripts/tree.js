// The page as an accessibility tree, in the shape models are trained to read: the YAML of
// Playwright's `ariaSnapshot({mode: 'ai'})` (`- role "name" [state] [ref=…]: value`, children
// two spaces in, text as `- text: …`). This file builds the tree of one frame's document (or of
// one element); tree_render.js writes it within a budget and searches it.
//
// Roles and names are the element vocabulary's (vocabulary.js), the ones locators and refs use,
// with these choices for a small tree:
// - an element with no role of its own (a div, a span, a form or section without a name) is not a
//   line: its children stand in its place, and its text, when it holds nothing else, becomes a
//   `generic` line (a block) or joins the text around it (an inline span, <b>, <code>);
// - a name that comes from the content (links, buttons, headings, options, cells) is written once,
//   as the name: the text under it is not repeated, only interactive elements inside it are;
// - a label's text is the name of its control, so it is not repeated either; nor is a legend or a
//   caption, the name of its group or table;
// - a row of text cells is one line, its cells' text joined by ` | `.
// Hidden content is not in the tree: display:none, content-visibility:hidden, visibility:hidden
// (its visible descendants stay), aria-hidden, opacity 0 (a form control excepted: pages hide the
// native checkbox under a drawn one), and text a person cannot see (a transparent colour, a zero
// font size, clipped to nothing). A page that hides instructions for a model in such text cannot
// reach it through the tree.

// Roles that are no line of their own.
const TRANSPARENT_ROLES = new Set(['', 'generic', 'presentation', 'none', 'label']);
// Roles named by their content whose name is written and whose text is not (vocabulary's list,
// less rows and cells, which show their cells and content instead when it is more than text).
const NAMED_BY_CONTENT = new Set(['button', 'checkbox', 'heading', 'link', 'menuitem', 'menuitemcheckbox',
  'menuitemradio', 'option', 'radio', 'switch', 'tab', 'tooltip', 'treeitem']);
const CELL_ROLES = new Set(['cell', 'gridcell', 'columnheader', 'rowheader']);
// Form fields: a run of siblings holding one is never collapsed (a form's fields all matter).
const FIELD_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'checkbox', 'radio', 'switch',
  'slider', 'spinbutton']);
const CONTROL_TAGS = new Set(['input', 'select', 'textarea', 'button']);
const VALUE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'slider', 'spinbutton']);
const CHECKED_ROLES = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
const SELECTED_ROLES = new Set(['option', 'tab', 'row', 'gridcell', 'treeitem', 'cell']);
// Elements whose inside is not read as a tree.
const LEAF_TAGS = new Set(['input', 'textarea', 'img', 'svg', 'math', 'progress', 'meter', 'hr', 'iframe',
  'frame', 'video', 'audio', 'canvas', 'object', 'embed']);
const NAME_CHARS = 100;
const TEXT_CHARS = 160;

// One build: `verity.treeBuilder().build(element)` is the list of top nodes the element comes to
// (itself, or its children when it is no line of its own). A node is {el, role, name, states,
// value, kids, inter (interactive elements in it), fields (form fields in it), size and lines
// (its full rendering, at indentation 0), sig (its shape)}; a text is {text}.
verity.treeBuilder = () => {
  const {SKIP, squash, roleOf, nameOf, isInteractive} = verity.elementVocabulary();
  const {opaque} = verity.shownJudge();
  const active = document.activeElement;
  const clipCache = new Map();
  // A box under 2 px that hides its overflow, or a clip of no area (the "screen reader only" text).
  const clipped = (el) => {
    if (!el || el.nodeType !== 1 || el === document.body || el === document.documentElement) return false;
    let found = clipCache.get(el);
    if (found !== undefined) return found;
    const style = getComputedStyle(el);
    found = false;
    if (style.display !== 'contents' && (style.overflowX !== 'visible' || style.overflowY !== 'visible' || (style.clip && style.clip !== 'auto'))) {
      const box = el.getBoundingClientRect();
      found = box.width < 2 || box.height < 2;
    }
    found = found || clipped(el.parentElement);
    clipCache.set(el, found);
    return found;
  };
  const flatChildren = (el) => {
    if (el.localName === 'slot') {
      const assigned = el.assignedNodes({flatten: true});
      if (assigned.length) return assigned;
    }
    return el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
  };
  const capped = (text, n) => text.length > n ? text.slice(0, n - 1) + '…' : text;
  // What a node adds to a name computed from its ancestor's content, up to `n` characters.
  const flatText = (nodes, n) => {
    let out = '';
    const add = (node) => {
      if (out.length >= n) return;
      if (node.text !== undefined) out += ' ' + node.text;
      else if (node.name) out += ' ' + node.name;
      else if (node.value) out += ' ' + node.value;
      else for (const kid of node.kids) add(kid);
    };
    for (const node of nodes) add(node);
    return squash(out);
  };
  const lineSize = (node) => node.text !== undefined ? node.text.length + 10
    : 4 + node.role.length + (node.name ? node.name.length + 3 : 0) + node.states.length + 14 + (node.value ? node.value.length + 2 : 0);
  const finish = (node) => {
    let size = lineSize(node), lines = 1, inter = node.inter || 0, fields = node.fields || 0;
    const shape = [];
    for (const kid of node.kids || []) {
      size += kid.size + 2 * kid.lines;
      lines += kid.lines;
      inter += kid.inter;
      fields += kid.fields;
      if (shape.length < 8) shape.push(kid.text !== undefined ? 'text' : kid.role + (kid.kids.length ? '+' : ''));
    }
    Object.assign(node, {own: lineSize(node), size, lines, inter, fields, sig: node.role + (shape.length ? '(' + shape.join(',') + ')' : '')});
    return node;
  };
  const textNode = (text) => finish({text, kids: [], inter: 0, fields: 0});
  // Adjacent texts as one; whitespace collapsed; empty ones gone.
  const tidy = (kids) => {
    const out = [];
    for (const kid of kids) {
      const last = out[out.length - 1];
      if (kid.raw !== undefined && last && last.raw !== undefined) last.raw += kid.raw;
      else out.push(kid);
    }
    const kept = [];
    for (const kid of out) {
      if (kid.raw === undefined) { kept.push(kid); continue; }
      const text = squash(kid.raw);
      if (text) kept.push(textNode(capped(text, TEXT_CHARS)));
    }
    return kept;
  };
  // Whether the text an element holds directly can be seen.
  const textShown = (el, style) => style.visibility === 'visible' && parseFloat(style.fontSize) > 0 &&
    opaque(style.webkitTextFillColor) && !clipped(el);

  const states = (el, tag, role, interactive) => {
    let out = '';
    if (CHECKED_ROLES.has(role)) {
      const aria = el.getAttribute('aria-checked');
      const checked = tag === 'input' ? (el.indeterminate ? 'mixed' : el.checked) : aria === 'mixed' ? 'mixed' : aria === 'true';
      if (checked === 'mixed') out += ' [checked=mixed]';
      else if (checked) out += ' [checked]';
    }
    if (interactive && (el.disabled || el.getAttribute('aria-disabled') === 'true')) out += ' [disabled]';
    const expanded = tag === 'summary' && el.parentElement && el.parentElement.localName === 'details'
      ? String(el.parentElement.open) : el.getAttribute('aria-expanded');
    if (expanded === 'true') out += ' [expanded]';
    else if (expanded === 'false') out += ' [expanded=false]';
    if (role === 'heading') {
      const level = parseInt(el.getAttribute('aria-level') || (/^h([1-6])$/.exec(tag) || [])[1] || '2', 10);
      out += ` [level=${level}]`;
    } else if (role === 'treeitem' && el.hasAttribute('aria-level')) out += ` [level=${parseInt(el.getAttribute('aria-level'), 10)}]`;
    if (SELECTED_ROLES.has(role) && ((tag === 'option' && el.selected) || el.getAttribute('aria-selected') === 'true')) out += ' [selected]';
    const pressed = el.getAttribute('aria-pressed');
    if (pressed === 'true') out += ' [pressed]';
    else if (pressed === 'mixed') out += ' [pressed=mixed]';
    if (el === active && interactive) out += ' [active]';
    return out;
  };
  const valueOf = (el, tag, role) => {
    if (!VALUE_ROLES.has(role)) return '';
    if (tag === 'input') return (el.type || '').toLowerCase() === 'password' ? '' : String(el.value || '');
    if (tag === 'textarea') return String(el.value || '');
    if (role === 'slider' || role === 'spinbutton') return el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || '';
    return '';
  };

  // The nodes `el` comes to, appended to `out` (texts as {raw} until tidied). `inSelect`: an
  // option of a native select, which is chosen through its select, not by a ref of its own.
  const visit = (el, out, inSelect) => {
    if (SKIP.has(el.tagName) || el.getAttribute('aria-hidden') === 'true') return;
    const tag = el.localName;
    if (tag === 'br') { out.push({raw: '\n'}); return; }
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.contentVisibility === 'hidden') return;
    if (style.opacity === '0' && !CONTROL_TAGS.has(tag)) return;
    const parentTag = el.parentElement ? el.parentElement.localName : '';
    // The name of the group, table or figure above: said there.
    if ((tag === 'legend' && parentTag === 'fieldset') || (tag === 'caption' && parentTag === 'table') ||
        (tag === 'figcaption' && parentTag === 'figure')) return;
    const visible = style.visibility === 'visible';
    const role = roleOf(el, tag);
    const interactive = visible && isInteractive(el, tag, role);
    const kids = [];
    if (!LEAF_TAGS.has(tag)) {
      let shown = null;
      for (const child of flatChildren(el)) {
        if (child.nodeType === 3) {
          if (!child.data.trim()) { if (child.data) kids.push({raw: ' '}); continue; }
          if (shown === null) shown = textShown(el, style);
          if (shown) kids.push({raw: child.data});
        } else if (child.nodeType === 1) visit(child, kids, inSelect || tag === 'select');
      }
    }
    const onlyText = kids.some((kid) => kid.raw !== undefined && kid.raw.trim()) && kids.every((kid) => kid.raw !== undefined);
    const transparent = !visible || (TRANSPARENT_ROLES.has(role) && !interactive);
    // Inline text joins the text around it, as it reads.
    if (transparent && visible && onlyText && style.display.startsWith('inline') && tag !== 'label') { out.push(...kids); return; }
    const tidied = tidy(kids);
    // A label's text names its control: only the interactive things in it remain.
    if (tag === 'label' && el.control && el.control.checkVisibility()) { for (const kid of tidied) if (kid.inter) out.push(kid); return; }
    if (transparent) {
      // A block of text is a line of its own (with a ref); anything else stands in its place.
      if (visible && onlyText) out.push(finish({el, role: 'generic', name: '', states: '', value: capped(tidied.map((kid) => kid.text).join(' '), TEXT_CHARS), kids: [], inter: 0, fields: 0}));
      else out.push(...tidied);
      return;
    }
    if ((tag === 'img' || tag === 'svg') && !interactive && !nameOf(el, tag, role)) return;
    const node = {el, role: TRANSPARENT_ROLES.has(role) ? 'generic' : role, name: '', states: states(el, tag, role, interactive),
      value: valueOf(el, tag, role), kids: [], inter: interactive ? 1 : 0, fields: FIELD_ROLES.has(role) ? 1 : 0, noRef: inSelect && tag === 'option'};
    if (tag === 'iframe' || tag === 'frame') node.frame = true;
    const authored = el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby');
    if (NAMED_BY_CONTENT.has(node.role) || (node.role === 'generic' && interactive)) {
      // The name a person reads: the shown content (accname's, unless the page names it itself).
      const name = authored || CONTROL_TAGS.has(tag) || tag === 'img' ? nameOf(el, tag, role) : flatText(tidied, NAME_CHARS + 1) || nameOf(el, tag, role);
      node.name = capped(squash(name), NAME_CHARS);
      node.kids = tidied.filter((kid) => kid.inter);
    } else if (CELL_ROLES.has(node.role) && (onlyText || !tidied.length)) {
      node.name = capped(authored ? squash(nameOf(el, tag, role)) : flatText(tidied, NAME_CHARS + 1), NAME_CHARS);
    } else {
      if (node.role !== 'row' && node.role !== 'paragraph' && node.role !== 'listitem') node.name = capped(squash(nameOf(el, tag, role)), NAME_CHARS);
      if (onlyText && !node.value && node.role !== 'row') node.value = capped(tidied.map((kid) => kid.text).join(' '), TEXT_CHARS);
      else {
        // A lone block of text inside a line is that line's text.
        if (tidied.length === 1 && tidied[0].role === 'generic' && !tidied[0].kids.length && !tidied[0].inter && !node.value) node.value = tidied[0].value;
        else node.kids = tidied;
      }
      // A row of text cells reads as one line, its cells in order: `- row: Price | 2,345.60`.
      if (node.role === 'row' && !node.value && node.kids.length && node.kids.every((kid) => CELL_ROLES.has(kid.role) && !kid.kids.length && !kid.inter)) {
        node.value = capped(node.kids.map((kid) => kid.name || '-').join(' | '), TEXT_CHARS);
        node.kids = [];
      }
    }
    // An empty container (a paragraph a script has not filled yet) says nothing.
    if (!interactive && !node.frame && !node.name && !node.value && !node.kids.length && !LEAF_TAGS.has(tag)) return;
    out.push(finish(node));
  };

  // The top nodes of `root` (an element, or the document's body).
  const build = (root) => {
    const out = [];
    const body = document.body || document.documentElement;
    if (root === body || root === document.documentElement) {
      const style = getComputedStyle(body);
      let shown = null;
      for (const child of flatChildren(body)) {
        if (child.nodeType === 3) {
          if (!child.data.trim()) continue;
          if (shown === null) shown = textShown(body, style);
          if (shown) out.push({raw: child.data});
        } else if (child.nodeType === 1) visit(child, out, false);
      }
    } else visit(root, out, false);
    return tidy(out);
  };
  return {build};
};
