// Form controls acted on by their state (runtime/browser/action_handlers/form_controls.py): each
// is called with `this` = the element acted on (the control, or a label naming one).

// The control a check acts on and its checked state: a native checkbox or radio, or an element
// whose role is checkbox, radio, switch or menuitemcheckbox.
verity.checkable = function () {
  if (!this.isConnected) return {state: 'detached'};
  const el = this.control || this;
  const tag = el.localName, type = (el.getAttribute('type') || '').toLowerCase();
  if (tag === 'input' && (type === 'checkbox' || type === 'radio')) return {state: 'ok', kind: type, checked: !!el.checked};
  const role = (el.getAttribute('role') || '').toLowerCase();
  if (['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio'].includes(role))
    return {state: 'ok', kind: role, checked: el.getAttribute('aria-checked') === 'true'};
  return {state: 'not_checkable', tag, type, role};
};

// The file input an upload acts on and the names of the files it holds.
verity.fileInput = function () {
  if (!this.isConnected) return {state: 'detached'};
  const el = this.control || this;
  if (el.localName !== 'input' || (el.getAttribute('type') || '').toLowerCase() !== 'file') return {state: 'not_file_input', tag: el.localName};
  if (el.matches(':disabled')) return {state: 'disabled'};
  return {state: 'ok', multiple: el.multiple, held: Array.from(el.files || []).map((f) => f.name)};
};
