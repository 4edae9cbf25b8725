// Whether `hit` is `this` or inside it, across shadow roots (runtime/browser/action_handlers/
// gestures.py asks it of two nodes resolved in the page's own world: a press lands on the element).
function (hit) {
  let node = hit;
  while (node) {
    if (node === this) return true;
    node = node.parentNode || node.host;
  }
  return false;
}
