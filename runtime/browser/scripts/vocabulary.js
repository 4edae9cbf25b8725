// How elements are read: roles (WAI-ARIA 1.2 and HTML-AAM), accessible names (accname 1.2, as
// Chromium computes them: aria-labelledby, embedded control values, aria-label, <label>, alt,
// legend/caption, content with ::before/::after and slots, title, placeholder) and interactivity.
// Shared by the snapshot walker (snapshot.js) and the locator (locate.js), so a role and a name
// mean the same in snapshots, refs, strictness counts and locators. Computed in the page:
// Chromium's own tree (Accessibility.getFullAXTree) costs ~5 s on a 17k-link page, and a name is
// only needed for the elements a walk keeps or a locator tests.

const SKIP = new Set(['SCRIPT','STYLE','NOSCRIPT','TEMPLATE','HEAD','TITLE','META','LINK']);
const HEADINGS = new Set(['h1','h2','h3','h4','h5','h6']);
const INTERACTIVE_TAGS = new Set(['button','select','textarea','summary','details']);
const INTERACTIVE_ROLES = new Set(['button','link','checkbox','radio','textbox','searchbox','combobox',
  'listbox','option','menuitem','menuitemcheckbox','menuitemradio','tab','switch','slider','spinbutton',
  'treeitem','gridcell']);
// WAI-ARIA 1.2 roles; `role="foo button"` takes the first token in this list.
const ARIA_ROLES = new Set(['alert','alertdialog','application','article','banner','blockquote','button',
  'caption','cell','checkbox','code','columnheader','combobox','complementary','contentinfo','definition',
  'deletion','dialog','directory','document','emphasis','feed','figure','form','generic','grid','gridcell',
  'group','heading','img','image','insertion','link','list','listbox','listitem','log','main','mark','marquee',
  'math','menu','menubar','menuitem','menuitemcheckbox','menuitemradio','meter','navigation','none','note',
  'option','paragraph','presentation','progressbar','radio','radiogroup','region','row','rowgroup',
  'rowheader','scrollbar','search','searchbox','separator','slider','spinbutton','status','strong',
  'subscript','superscript','switch','tab','table','tablist','tabpanel','term','textbox','time','timer',
  'toolbar','tooltip','tree','treegrid','treeitem']);
// Roles ARIA gives no name (a paragraph, a caption, a term, ...): a role locator finds none of
// them by a name, as in Playwright, whatever title they carry.
const NAMELESS_ROLES = new Set(['caption', 'code', 'definition', 'deletion', 'emphasis', 'generic', 'insertion', 'mark',
  'paragraph', 'presentation', 'strong', 'subscript', 'suggestion', 'superscript', 'term', 'time']);
// Roles whose accessible name comes from their content (WAI-ARIA 1.2 "name from: contents").
const NAME_FROM_CONTENT = new Set(['button','cell','checkbox','columnheader','gridcell','heading','link',
  'menuitem','menuitemcheckbox','menuitemradio','option','radio','row','rowheader','switch','tab','tooltip',
  'treeitem']);
const INPUT_ROLES = {button:'button', submit:'button', reset:'button', image:'button', checkbox:'checkbox',
  radio:'radio', range:'slider', number:'spinbutton', search:'searchbox', hidden:'', file:'button'};
const TEXT_INPUTS = new Set(['', 'text', 'email', 'tel', 'url', 'search']);
// A <summary> has no role of its own (html-aam; Playwright finds none): it stays interactive.
const TAG_ROLES = {button:'button', textarea:'textbox', h1:'heading',
  h2:'heading', h3:'heading', h4:'heading', h5:'heading', h6:'heading', option:'option', datalist:'listbox',
  li:'listitem', ul:'list', ol:'list', menu:'list', nav:'navigation', main:'main', table:'table',
  tr:'row', tbody:'rowgroup', thead:'rowgroup', tfoot:'rowgroup', p:'paragraph', dialog:'dialog',
  label:'label', iframe:'iframe', article:'article', hr:'separator', fieldset:'group', optgroup:'group',
  details:'group', figure:'figure', output:'status', progress:'progressbar', meter:'meter', dt:'term',
  dd:'definition', dfn:'term', svg:'img', math:'math', search:'search', blockquote:'blockquote'};
const LANDMARK_SCOPES = new Set(['article','aside','main','nav','section']);
const LANDMARK_ROLES = new Set(['banner','complementary','contentinfo','form','main','navigation','region','search']);
const LANDMARK_NAME_CHARS = 80;
// Zero-width spaces and soft hyphens are not part of a name or a text (as Playwright reads them).
const squash = (s) => (s || '').replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
const cap = (s, n) => s.length > n ? s.slice(0, n) : s;

// The readers, with caches of their own: one read (a walk, a page of a snapshot, a locator's
// search) asks `verity.elementVocabulary()` once and keeps what it computes for its own length.
verity.elementVocabulary = () => {
  // Cached for one read: an element's hidden state, role and name are computed once however many
  // locators, counts or parents ask.
  const hiddenCache = new Map(), roleCache = new Map(), nameCache = new Map();
  // The parent in the flattened tree: a slotted node's slot, a shadow root's host.
  const flatParent = (el) => el.assignedSlot || el.parentElement || (el.parentNode && el.parentNode.host) || null;
  const closestFlat = (el, test) => { for (let n = el; n; n = flatParent(n)) if (test(n)) return n; return null; };
  // Inside an aria-hidden="true" subtree (crossing shadow roots): not in the accessibility tree.
  const ariaHiddenAbove = (el) => {
    let hidden = hiddenCache.get(el);
    if (hidden !== undefined) return hidden;
    if (el.getAttribute('aria-hidden') === 'true') hidden = true;
    else { const parent = flatParent(el); hidden = parent ? ariaHiddenAbove(parent) : false; }
    hiddenCache.set(el, hidden);
    return hidden;
  };
  const styleHides = (style) => style.display === 'none' || style.visibility === 'hidden' || style.visibility === 'collapse';
  // Hidden from the accessibility tree: aria-hidden, display:none (here or above), visibility.
  const hiddenForAria = (el) => SKIP.has(el.tagName) || ariaHiddenAbove(el) || styleHides(getComputedStyle(el)) ||
    (getComputedStyle(el).display !== 'contents' && !el.checkVisibility());
  const focusable = (el) => el.hasAttribute('tabindex') || (el.matches('a[href], area[href], button, input, select, textarea, summary, iframe, [contenteditable]:not([contenteditable=false])') && !el.matches(':disabled'));
  const namedByAuthor = (el) => !!(squash(el.getAttribute('aria-label')) || el.getAttribute('aria-labelledby') || el.getAttribute('title'));

  const implicitRole = (el, tag) => {
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : '';
      case 'input': {
        const type = (el.getAttribute('type') || '').toLowerCase();
        if (el.hasAttribute('list') && (TEXT_INPUTS.has(type) || !(type in INPUT_ROLES))) return 'combobox';
        if (type in INPUT_ROLES) return INPUT_ROLES[type];
        return 'textbox';
      }
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'img': return el.getAttribute('alt') === '' && !namedByAuthor(el) ? 'presentation' : 'img';
      // A section or form is a landmark only when it is named.
      case 'section': return namedByAuthor(el) ? 'region' : '';
      case 'form': return namedByAuthor(el) ? 'form' : '';
      // An aside is complementary wherever it is (Playwright's reading); a header or footer
      // inside sectioning content or main is no landmark.
      case 'aside': return 'complementary';
      case 'header': case 'footer': {
        const scoped = closestFlat(flatParent(el) || el, (n) => n !== el && LANDMARK_SCOPES.has(n.localName));
        return scoped ? '' : (tag === 'header' ? 'banner' : 'contentinfo');
      }
      case 'td': { const t = el.closest('table'); return t && /^(grid|treegrid)$/.test(roleOf(t, 'table')) ? 'gridcell' : 'cell'; }
      case 'th': {
        const scope = (el.getAttribute('scope') || '').toLowerCase();
        if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
        if (scope === 'col' || scope === 'colgroup') return 'columnheader';
        // No scope: Chromium's guess. Beside a data cell with content it heads its row; among
        // header cells, or alone in its row, it heads a column (alone in a one-row table: nothing).
        const before = el.previousElementSibling, after = el.nextElementSibling;
        if (!before && !after) {
          const table = el.parentElement && el.parentElement.localName === 'tr' ? el.closest('table') : null;
          return table && table.rows.length <= 1 ? '' : 'columnheader';
        }
        const dataCell = (n) => !!n && n.localName === 'td' && (n.children.length > 0 || !!n.textContent.trim());
        if (before && before.localName === 'th' && after && after.localName === 'th') return 'columnheader';
        return dataCell(before) || dataCell(after) ? 'rowheader' : 'columnheader';
      }
    }
    return TAG_ROLES[tag] || '';
  };
  const roleOf = (el, tag) => {
    let role = roleCache.get(el);
    if (role !== undefined) return role;
    role = null;
    const attribute = el.getAttribute('role');
    if (attribute) for (const token of attribute.toLowerCase().split(/\s+/)) {
      if (!ARIA_ROLES.has(token)) continue;
      // A focusable or author-named element keeps its own role (ARIA's presentational conflict rule).
      if ((token === 'none' || token === 'presentation') && (focusable(el) || namedByAuthor(el))) break;
      role = token === 'image' ? 'img' : token === 'none' ? 'presentation' : token;
      break;
    }
    if (role === null) role = inheritsPresentation(el, tag || el.localName) ? 'presentation' : implicitRole(el, tag || el.localName);
    roleCache.set(el, role);
    return role;
  };
  // The parts a table or a list owns are presentational with it (a layout table's rows and cells,
  // a presentational list's items): ARIA's inheritance of presentation, as Playwright reads it.
  const PRESENTATION_PARENTS = {td: ['tr'], th: ['tr'], tr: ['thead', 'tbody', 'tfoot', 'table'], thead: ['table'],
    tbody: ['table'], tfoot: ['table'], li: ['ol', 'ul', 'menu'], dd: ['dl', 'div'], dt: ['dl', 'div']};
  const inheritsPresentation = (el, tag) => {
    const parents = PRESENTATION_PARENTS[tag];
    const parent = el.parentElement;
    return !!(parents && parent && parents.includes(parent.localName) && roleOf(parent, parent.localName) === 'presentation');
  };

  // CSS generated content (::before / ::after) as text: the quoted strings of `content`. Asking
  // each element's pseudo styles costs more than the rest of its name, so the document's style
  // sheets are read once for the rules that set `content` on a pseudo-element, the elements those
  // rules can match are found in one query, and only they are asked (every element when a sheet
  // cannot be read or a selector not queried, and elements in shadow roots).
  let pseudoRules;
  const pseudoCandidates = () => {
    if (pseudoRules !== undefined) return pseudoRules;
    const bases = new Set(['q']);
    const visit = (rules) => {
      for (const rule of rules) {
        if (rule.cssRules && rule.cssRules.length) visit(rule.cssRules);
        if (!rule.selectorText || !rule.style || !rule.style.getPropertyValue('content')) continue;
        for (const part of rule.selectorText.split(',')) {
          if (!/::?(before|after)\b/i.test(part)) continue;
          const base = part.replace(/::?(before|after)\b.*$/i, '').trim();
          bases.add(!base || /[>+~]$/.test(base) ? '*' : base);
        }
      }
    };
    try {
      for (const sheet of [...document.styleSheets, ...(document.adoptedStyleSheets || [])]) visit(sheet.cssRules);
      pseudoRules = new Set(document.querySelectorAll([...bases].join(', ')));
    } catch (e) {
      pseudoRules = null;
    }
    return pseudoRules;
  };
  const pseudoText = (el, which) => {
    const rules = pseudoCandidates();
    if (rules !== null && !rules.has(el) && el.getRootNode() === document) return '';
    const content = getComputedStyle(el, which).content;
    if (!content || content === 'none' || content === 'normal') return '';
    let out = '';
    content.replace(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g, (_, a, b) => { out += (a ?? b).replace(/\\(.)/g, '$1'); return ''; });
    return out;
  };
  const CONTROL_VALUE_ROLES = new Set(['textbox','searchbox','combobox','listbox','slider','spinbutton','range']);
  const controlValue = (el, role) => {
    if (role === 'textbox' || role === 'searchbox') return el.value !== undefined ? el.value : el.textContent;
    if (role === 'combobox' || role === 'listbox') {
      if (el.localName === 'select') return Array.from(el.selectedOptions || []).map(o => o.text).join(' ');
      if (el.localName === 'input') return el.value;
      const selected = el.querySelectorAll('[role=option][aria-selected=true]');
      return Array.from(selected).map(o => textAlternative(o, {visited: new Set(), includeHidden: false, labelled: true, root: false})).join(' ');
    }
    return el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || el.value || '';
  };
  const flatChildren = (el) => {
    if (el.localName === 'slot') {
      const assigned = el.assignedNodes({flatten: true});
      if (assigned.length) return assigned;
    }
    return el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
  };
  const contentText = (el, ctx) => {
    let out = pseudoText(el, '::before');
    for (const child of flatChildren(el)) {
      if (child.nodeType === 3) { out += child.data; continue; }
      if (child.nodeType !== 1 || SKIP.has(child.tagName)) continue;
      const style = getComputedStyle(child);
      // Whatever is not an inline box is a word of its own (a block, a flex item, a display:
      // contents wrapper, a <br>), spaced from its neighbours even when it says nothing, a
      // display:none one included: Playwright's reading.
      const spaced = style.display !== 'inline' || child.localName === 'br';
      if (!ctx.includeHidden && (styleHides(style) || child.getAttribute('aria-hidden') === 'true')) {
        if (spaced) out += ' ';
        continue;
      }
      const text = textAlternative(child, ctx);
      out += spaced ? ' ' + text + ' ' : text;
    }
    return out + pseudoText(el, '::after');
  };
  const LABELABLE = new Set(['button','input','meter','output','progress','select','textarea']);
  // accname 1.2's text alternative of one node; `ctx.root` is the element whose name is asked.
  const textAlternative = (el, ctx) => {
    if (ctx.visited.has(el)) return '';
    ctx.visited.add(el);
    const tag = el.localName;
    const inner = {...ctx, root: false};
    // 2B: aria-labelledby, unless we are already following one.
    const labelledBy = ctx.labelled ? null : el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const root = el.getRootNode();
      // An element that names itself among them gives its own content ("Delete" of
      // aria-labelledby="self file" reads "Delete report.pdf"), as accname and Playwright have it.
      const unvisited = () => new Set([...ctx.visited].filter((node) => node !== el));
      const parts = labelledBy.split(/\s+/).filter(Boolean).map((id) => root.getElementById ? root.getElementById(id) : null)
        .filter(Boolean).map((ref) => textAlternative(ref, {visited: ref === el ? unvisited() : ctx.visited, includeHidden: hiddenForAria(ref), labelled: true, root: false}));
      const text = squash(parts.join(' '));
      if (text) return text;
    }
    const role = roleOf(el, tag);
    // 2C: a control inside a label or a name being computed contributes its value.
    if (!ctx.root && CONTROL_VALUE_ROLES.has(role)) return controlValue(el, role);
    // 2D: aria-label.
    const ariaLabel = squash(el.getAttribute('aria-label'));
    if (ariaLabel) return ariaLabel;
    // 2E: what HTML itself names an element by.
    if (role !== 'presentation') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (tag === 'input' && (type === 'button' || type === 'submit' || type === 'reset')) {
        if (el.hasAttribute('value')) return el.value;
        if (type !== 'button') return type === 'submit' ? 'Submit' : 'Reset';
      }
      if (LABELABLE.has(tag) && el.labels && el.labels.length && !(tag === 'input' && type === 'hidden')) {
        // A hidden <label> still names its control, with what it holds (as Chromium and
        // Playwright have it): it is read as a hidden element aria-labelledby names is.
        const text = squash(Array.from(el.labels).map((label) => textAlternative(label, {...inner, includeHidden: ctx.includeHidden || hiddenForAria(label)})).join(' '));
        if (text) return text;
      }
      if (tag === 'input' && type === 'image') {
        const alt = el.getAttribute('alt');
        if (alt) return alt;
        if (el.getAttribute('title')) return el.getAttribute('title');
        return 'Submit';
      }
      if (tag === 'img' || tag === 'area') {
        const alt = el.getAttribute('alt');
        if (alt && alt.trim()) return alt;
      }
      if (tag === 'svg') {
        const title = Array.from(el.children).find((c) => c.localName === 'title');
        if (title && title.textContent.trim()) return title.textContent;
      }
      const caption = {fieldset: 'legend', figure: 'figcaption', table: 'caption'}[tag];
      if (caption) {
        const c = Array.from(el.children).find((n) => n.localName === caption);
        if (c && (ctx.includeHidden || !hiddenForAria(c))) { const text = squash(textAlternative(c, inner)); if (text) return text; }
      }
    }
    // 2F: the content, for roles named by it and for everything inside a name being computed.
    if (NAME_FROM_CONTENT.has(role) || !ctx.root || tag === 'label' || tag === 'legend' || tag === 'caption' || tag === 'figcaption') {
      const text = contentText(el, inner);
      if (text.trim()) return ctx.root ? squash(text) : text;
    }
    // 2I: the tooltip, then (for text fields) the placeholder.
    const title = el.getAttribute('title');
    if (title && title.trim()) return title;
    const placeholder = el.getAttribute('placeholder');
    if ((tag === 'input' || tag === 'textarea') && placeholder) return placeholder;
    return '';
  };
  // The accessible name of an element, whole (no cap: a long name still matches).
  const nameOf = (el, tag, role) => {
    let name = nameCache.get(el);
    if (name === undefined) {
      // Most names on a big page are a link's or a button's own text: same answer, less work.
      role = roleOf(el, tag);
      if (NAME_FROM_CONTENT.has(role) && !el.firstElementChild && !el.shadowRoot && !LABELABLE.has(tag) &&
          !el.hasAttribute('aria-label') && !el.hasAttribute('aria-labelledby'))
        name = squash(pseudoText(el, '::before') + el.textContent + pseudoText(el, '::after'));
      if (!name) name = squash(textAlternative(el, {visited: new Set(), includeHidden: false, labelled: false, root: true}));
      nameCache.set(el, name);
    }
    return name;
  };
  const textOf = (el) => cap(squash(el.textContent), 120);
  const isInteractive = (el, tag, role) =>
    INTERACTIVE_ROLES.has(role) || INTERACTIVE_TAGS.has(tag) || (tag === 'a' && el.hasAttribute('href')) ||
    (tag === 'input' && el.type !== 'hidden') || el.hasAttribute('onclick') ||
    (el.hasAttribute('contenteditable') && el.getAttribute('contenteditable') !== 'false') ||
    (el.hasAttribute('tabindex') && el.tabIndex >= 0);

  return {
    SKIP, HEADINGS, LANDMARK_ROLES, LANDMARK_NAME_CHARS, NAMELESS_ROLES, squash, cap, flatParent, ariaHiddenAbove, hiddenForAria, roleOf,
    textAlternative, nameOf, textOf, isInteractive,
  };
};
