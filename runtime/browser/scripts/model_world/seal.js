// Run in the isolated world of an agent's model's page function once it has returned
// (runtime/browser/action_handlers/recipe_scripts.py): whatever the function left behind in its
// world (a timer, a listener, an observer, a promise it did not await) can no longer write into
// the document, so nothing lands after the run stopped watching it (scripts/script_writes.js).
// Every setter of the DOM's interfaces, and their methods that change a document, throw from now
// on in this world; each model function runs in a world of its own, so the next is not sealed.
() => {
  const refuse = () => { throw new Error('this page function has returned: it no longer writes into the page'); };
  const CHANGES = new Set([
    'appendChild', 'insertBefore', 'replaceChild', 'removeChild', 'normalize', 'append', 'prepend', 'before', 'after',
    'replaceWith', 'replaceChildren', 'remove', 'insertAdjacentHTML', 'insertAdjacentText', 'insertAdjacentElement',
    'setAttribute', 'setAttributeNS', 'setAttributeNode', 'setAttributeNodeNS', 'removeAttribute', 'removeAttributeNS',
    'removeAttributeNode', 'toggleAttribute', 'attachShadow', 'setHTMLUnsafe', 'appendData', 'insertData', 'deleteData',
    'replaceData', 'splitText', 'write', 'writeln', 'open', 'execCommand', 'pushState', 'replaceState', 'insertNode',
    'surroundContents', 'deleteContents', 'extractContents', 'add', 'toggle', 'replace', 'setProperty', 'removeProperty',
    'setNamedItem', 'setNamedItemNS', 'removeNamedItem', 'removeNamedItemNS', 'insertRule', 'deleteRule', 'replaceSync',
    'addRule', 'removeRule', 'setRangeText', 'setSelectionRange', 'select', 'showModal', 'show', 'close',
  ]);
  // The DOM's interfaces: what derives from EventTarget, and the few that do not.
  const OTHERS = new Set(['DOMTokenList', 'CSSStyleDeclaration', 'NamedNodeMap', 'Range', 'Selection', 'History', 'CSSStyleSheet', 'StyleSheet']);
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    let type;
    try { type = globalThis[name]; } catch (e) { continue; }
    if (typeof type !== 'function' || !type.prototype) continue;
    const proto = type.prototype;
    if (proto !== EventTarget.prototype && !EventTarget.prototype.isPrototypeOf(proto) && !OTHERS.has(name)) continue;
    for (const key of Object.getOwnPropertyNames(proto)) {
      const held = Object.getOwnPropertyDescriptor(proto, key);
      if (!held || !held.configurable) continue;
      if (held.set) Object.defineProperty(proto, key, {...held, set: refuse});
      else if (typeof held.value === 'function' && CHANGES.has(key)) Object.defineProperty(proto, key, {...held, value: refuse});
    }
  }
}
