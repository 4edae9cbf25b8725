// Run in the isolated world of an agent's model's page function once it has returned
// (runtime/browser/action_handlers/recipe_scripts.py): whatever the function left behind in its
// world (a timer, a listener, an observer, a promise it did not await) can no longer write into
// the document, so nothing lands after the run stopped watching it (scripts/script_writes.js).
// Every setter of the DOM's interfaces, and their methods that change a document, throw from now
// on in this world; each model function runs in a world of its own, so the next is not sealed.
// The world spans the top document's same-origin frames (the function can reach their documents),
// so each frame's interfaces in it are sealed too, and no element opens a frame's document or
// window to it any more (a frame that loads a new document later is out of its reach), nor its
// dataset.
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
  // Getters that hand out something to write through which no setter of an interface stands
  // for: a frame's document or window, and an element's dataset (a DOMStringMap's named
  // properties; one the function took before it returned stays writable).
  const OPENERS = ['contentDocument', 'contentWindow', 'getSVGDocument'];
  const GETTERS = new Map([
    ['HTMLIFrameElement', OPENERS], ['HTMLFrameElement', OPENERS], ['HTMLObjectElement', OPENERS], ['HTMLEmbedElement', OPENERS],
    ['HTMLElement', ['dataset']], ['SVGElement', ['dataset']], ['MathMLElement', ['dataset']],
  ]);
  // A window's frames: by index, and by the frame elements of its document and its open shadow
  // roots (a frame inside a shadow root has no index).
  const framesOf = (win, doc) => {
    const found = new Set();
    for (let i = 0; i < win.length; i++) { try { found.add(win[i]); } catch (e) { /* gone */ } }
    const scan = (root) => {
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) scan(el.shadowRoot);
        if ('contentWindow' in el && el.contentWindow) found.add(el.contentWindow);
      }
    };
    if (doc) scan(doc);
    return found;
  };
  const seal = (win) => {
    let doc = null;
    try { doc = win.document; } catch (e) { doc = null; }
    // The frames first: once sealed, this window's elements no longer open them. A cross-origin
    // frame is not sealed (this world has no part in it), but a same-origin one inside it is.
    for (const child of framesOf(win, doc)) seal(child);
    if (!doc) return;
    for (const name of Object.getOwnPropertyNames(win)) {
      let type;
      try { type = win[name]; } catch (e) { continue; }
      if (typeof type !== 'function' || !type.prototype) continue;
      const proto = type.prototype;
      if (proto !== win.EventTarget.prototype && !win.EventTarget.prototype.isPrototypeOf(proto) && !OTHERS.has(name)) continue;
      for (const key of Object.getOwnPropertyNames(proto)) {
        const held = Object.getOwnPropertyDescriptor(proto, key);
        if (!held || !held.configurable) continue;
        if ((GETTERS.get(name) || []).includes(key)) Object.defineProperty(proto, key, held.get ? {...held, get: refuse} : {...held, value: refuse});
        else if (held.set) Object.defineProperty(proto, key, {...held, set: refuse});
        else if (typeof held.value === 'function' && CHANGES.has(key)) Object.defineProperty(proto, key, {...held, value: refuse});
      }
    }
  };
  seal(globalThis);
}
