// Writing a frame's accessibility tree (tree.js) for a model within a budget of characters, and
// searching it. Refs are given as lines are written (snapshot.js `refIndex`): `[ref=s3:e12]`, or
// `[ref=s3:f1e4]` in the tab's second frame, so a ref resolves to the very element of its line.
//
// Nothing is left out without a line saying so and how to reach it:
// - a node whose content does not fit (or lies deeper than `depth`) ends in `: … (12 link)`, the
//   interactive elements inside it counted: a partial snapshot under its ref shows them;
// - a run of same-shaped siblings (table rows, cards, list items holding links) keeps its first
//   few; then one line counts the rest: `- … 495 more row (495 link): browser_snapshot ref=… start=5`.
//   A run holding form fields is never collapsed;
// - when the budget ends inside a list, one line counts what is left and where it starts.
// Within the budget the page is filled in document order, each node sure of its own line (or its
// stub) before an earlier sibling takes the rest: the whole outline shows before the details.

const COLLAPSE_RUN = 6;
const COLLAPSE_KEEP = 3;
// What a stub adds to its line, and what a "more" line takes.
const STUB_CHARS = 24;
const MORE_CHARS = 90;
// Kept for an iframe's document, which the driver writes after this frame (tab/snapshot_tree.py).
const FRAME_CHARS = 1500;
const PATH_NAME_CHARS = 40;
const SNIPPET_CHARS = 60;

const PLAIN_SCALAR = /^[^\s\-?:,[\]{}#&*!|>'"%@`][^\n]*$/;
// A value as YAML writes it: plain when it reads back the same, else quoted.
const scalar = (text) => PLAIN_SCALAR.test(text) && !/: | #|\s$/.test(text) ? text : JSON.stringify(text);

// The interactive elements inside `nodes` by role, most first ("12 link, 2 button"), or how many
// lines they would take.
const summary = (nodes) => {
  const counts = new Map();
  let lines = 0;
  const count = (node) => {
    lines += node.lines;
    if (!node.inter) return;
    const own = node.inter - node.kids.reduce((sum, kid) => sum + kid.inter, 0);
    if (own > 0) counts.set(node.role, (counts.get(node.role) || 0) + own);
    for (const kid of node.kids) count(kid);
  };
  for (const node of nodes) count(node);
  if (!counts.size) return `${lines} line${lines === 1 ? '' : 's'}`;
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([role, n]) => `${n} ${role}`).join(', ');
};

// Where spare room goes first among siblings: the main content, then the rest, then the page's
// furniture (its navigation, header, footer, sidebars).
const FIRST_ROLES = new Set(['main']);
const LAST_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search']);
const claim = (node) => FIRST_ROLES.has(node.role) ? 0 : LAST_ROLES.has(node.role) ? 2 : 1;

// One writing of one frame: `options` = {prefix ('s3:' or 's3:f1'), level (the indentation it
// starts at), depth, budget, rootRef (what a "more" line of the top list names)}. What it writes
// is a list of entries: lines, and {line, frame} for an iframe whose document the driver writes.
const writer = (options) => {
  const refOf = (node) => node.noRef || !node.el ? '' : `${options.prefix}e${verity.refIndex(node.el) + 1}`;
  const lineOf = (node, level, ending) => {
    const pad = '  '.repeat(level);
    if (node.text !== undefined) return `${pad}- text: ${scalar(node.text)}`;
    const ref = refOf(node);
    let line = `${pad}- ${node.role}${node.name ? ' ' + JSON.stringify(node.name) : ''}${node.states}${ref ? ` [ref=${ref}]` : ''}`;
    if (node.value) line += ': ' + scalar(node.value);
    else if (ending) line += ending;
    return line;
  };
  const reach = (ref, start) => `browser_snapshot ${ref ? `ref=${ref} ` : ''}start=${start}`;
  const size = (entries) => entries.reduce((sum, entry) => sum + (typeof entry === 'string' ? entry.length : entry.line.length + entry.frame.chars) + 1, 0);
  const fits = (line, allowed) => line.length + 1 <= allowed ? [line] : [];
  const stub = (node, level, allowed) => fits(lineOf(node, level, `: … (${summary(node.kids)})`), allowed);

  // One node within `allowed` characters: whole, or its line and what of its content fits, or its
  // stub; nothing when not even its line fits.
  const node = (item, level, allowed, depth) => {
    if (item.frame) {
      const line = lineOf(item, level, '');
      if (line.length + 1 > allowed) return [];
      const chars = depth > 1 ? Math.max(0, Math.min(FRAME_CHARS, allowed - line.length - 1)) : 0;
      return [{line, frame: {level, index: verity.refIndex(item.el), depth: depth === Infinity ? null : depth - 1, chars}}];
    }
    if (!item.kids.length) return fits(lineOf(item, level, ''), allowed);
    if (depth <= 1) return stub(item, level, allowed);
    const head = lineOf(item, level, ':');
    // A node that fits whole is written whole; a bigger one needs room for some of its content.
    const whole = item.size + 2 * level * item.lines <= allowed;
    if (!whole && head.length + 1 + MORE_CHARS > allowed) return stub(item, level, allowed);
    const inner = list(item.kids, level + 1, allowed - head.length - 1, depth - 1, 0, true, refOf(item));
    return inner.shown ? [head, ...inner] : stub(item, level, allowed);
  };

  // `kids` from `from` on, within `budget`; `collapse`: runs of same-shaped siblings shortened.
  const list = (kids, level, budget, depth, from, collapse, parentRef) => {
    const items = [];
    for (let i = from; i < kids.length;) {
      const kid = kids[i];
      let j = i + 1;
      if (collapse && kid.kids.length && !kid.fields) while (j < kids.length && kids[j].sig === kid.sig && !kids[j].fields) j++;
      if (j - i >= COLLAPSE_RUN) {
        for (let m = i; m < i + COLLAPSE_KEEP; m++) items.push({at: m, node: kids[m]});
        items.push({at: i + COLLAPSE_KEEP, run: j});
      } else for (let m = i; m < j; m++) items.push({at: m, node: kids[m]});
      i = j;
    }
    const pad = '  '.repeat(level);
    const more = (at, end, what) => {
      const rest = kids.slice(at, end);
      return `${pad}- … ${rest.length} more${what ? ' ' + what : ''} (${summary(rest)}): ${reach(parentRef, at)}`;
    };
    const least = items.map((it) => it.run !== undefined ? MORE_CHARS
      : 2 * level + it.node.own + (it.node.kids.length ? STUB_CHARS : 0) + 1);
    const total = least.reduce((a, b) => a + b, 0);
    if (total > budget) {
      // Not every item fits, even shortened: in document order while they fit, then one line
      // counts the rest.
      const out = [];
      let used = 0;
      for (let k = 0; k < items.length; k++) {
        const it = items[k];
        const room = budget - used - (k + 1 < items.length ? MORE_CHARS : 0);
        const written = it.run !== undefined ? fits(more(it.at, it.run, kids[it.at].role || 'text'), room + MORE_CHARS)
          : room > 0 ? node(it.node, level, room, depth) : [];
        if (!written.length) { out.push(more(it.at, kids.length, '')); break; }
        out.push(...written);
        out.shown = (out.shown || 0) + 1;
        used += size(written);
      }
      return out;
    }
    // Every item has room for its line (or its stub); the room to spare goes to the main content
    // first, then in document order.
    const parts = new Array(items.length);
    const order = items.map((_, k) => k).sort((a, b) => (items[a].run === undefined ? claim(items[a].node) : 1) -
      (items[b].run === undefined ? claim(items[b].node) : 1) || a - b);
    let extra = budget - total;
    for (const k of order) {
      const it = items[k];
      const room = least[k] + extra;
      parts[k] = it.run !== undefined ? [more(it.at, it.run, kids[it.at].role || 'text')] : node(it.node, level, room, depth);
      if (!parts[k].length) parts[k] = [more(it.at, it.at + 1, '')];
      extra = Math.max(0, extra - (size(parts[k]) - least[k]));
    }
    const out = parts.flat();
    out.shown = items.length;
    return out;
  };
  // The entries as lines, and where each iframe's document goes.
  const finish = (entries) => {
    const lines = [], frames = [];
    let used = 0;
    for (const entry of entries) {
      if (typeof entry === 'string') { lines.push(entry); used += entry.length + 1; continue; }
      frames.push({...entry.frame, at: lines.length});
      lines.push(entry.line);
      used += entry.line.length + 1 + entry.frame.chars;
    }
    return {lines, frames, used};
  };
  return {lineOf, refOf, list, finish};
};

// The tree of the frame's document (`root` null) or of the element behind local index `root`,
// written as lines within `options.budget` characters (and `depth` levels, `start`: the first
// child of the root to show, no run of its children collapsed). Answers {lines, frames (iframes
// written, for the driver to fill with their documents), used}, {stale} or {frame} (the root is
// an iframe: its document is the tree).
verity.renderTree = (snapshotId, root, options) => {
  if (!verity.holdsSnapshot(snapshotId)) return {stale: true};
  const {build} = verity.treeBuilder();
  const depth = options.depth === null || options.depth === undefined ? Infinity : options.depth;
  const start = options.start === null || options.start === undefined ? 0 : options.start;
  const collapse = options.start === null || options.start === undefined;
  const out = writer(options);
  let top, rootNode = null;
  if (root === null || root === undefined) top = build(document.body || document.documentElement);
  else {
    const el = verity.snapshotElement(snapshotId, root);
    if (!el || !el.isConnected) return {stale: true};
    if (el.localName === 'iframe' || el.localName === 'frame') return {frame: true};
    top = build(el);
    if (top.length === 1 && top[0].el === el && top[0].kids.length) rootNode = top[0];
  }
  let entries;
  if (rootNode) {
    const head = out.lineOf(rootNode, options.level, ':');
    entries = [head, ...out.list(rootNode.kids, options.level + 1, options.budget - head.length - 1, depth, start, collapse, out.refOf(rootNode))];
  } else entries = out.list(top, options.level, options.budget, depth, start, collapse, options.rootRef || '');
  return {...out.finish(entries), empty: top.length === 0};
};

// The nodes of the frame's tree whose line matches `pattern` (text, ignoring case, or a regular
// expression), each as its path of ancestors ending in the node itself; at most `limit`, and how
// many matched. Iframes met are answered too, for the driver to search their documents.
verity.findInTree = (snapshotId, pattern, regex, limit, prefix) => {
  if (!verity.holdsSnapshot(snapshotId)) return {stale: true};
  const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
  let search;
  if (regex) {
    const expression = new RegExp(pattern.source, pattern.flags.replace('g', ''));
    search = (text) => { const m = expression.exec(text); return m ? m.index : -1; };
  } else {
    const needle = squash(pattern).toLowerCase();
    search = (text) => text.toLowerCase().indexOf(needle);
  }
  const out = writer({prefix, level: 0});
  const short = (node) => {
    const ref = out.refOf(node);
    const name = node.name && node.name.length <= PATH_NAME_CHARS ? ' ' + JSON.stringify(node.name) : '';
    return `${node.role}${name}${ref ? ` [ref=${ref}]` : ''}`;
  };
  const matches = [], frames = [], path = [];
  let total = 0;
  const describe = (node, at) => {
    let last;
    if (node.text !== undefined) {
      const from = Math.max(0, at - SNIPPET_CHARS);
      last = `text: ${scalar((from ? '…' : '') + node.text.slice(from, at + SNIPPET_CHARS) + (at + SNIPPET_CHARS < node.text.length ? '…' : ''))}`;
    } else last = out.lineOf(node, 0, '').replace(/^- /, '');
    const ancestors = path.length > 4 ? [path[0], null, ...path.slice(-3)] : path;
    return [...ancestors.map((a) => a === null ? '…' : short(a)), last].join(' > ');
  };
  const visit = (node) => {
    const own = node.text !== undefined ? node.text : [node.name, node.value].filter(Boolean).join(' ');
    const at = own ? search(own) : -1;
    if (at >= 0) {
      total++;
      if (matches.length < limit) matches.push(describe(node, node.text !== undefined ? at : 0));
    }
    if (node.frame) frames.push({index: verity.refIndex(node.el), path: [...path.map(short), short(node)].join(' > ')});
    path.push(node);
    for (const kid of node.kids) visit(kid);
    path.pop();
  };
  for (const node of verity.treeBuilder().build(document.body || document.documentElement)) visit(node);
  return {matches, total, frames};
};
