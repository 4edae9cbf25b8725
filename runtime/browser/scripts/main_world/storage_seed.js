// Seeds localStorage (runtime/browser/session/storage.py): run before the page's own scripts on
// every new document of the primary tab, it writes `seed[origin]`'s entries on the first document
// of a seeded origin; `mark` in sessionStorage keeps later documents from writing them again over
// the page's own changes.
(function (seed, mark) {
  var origin = location.origin;
  if (!Object.prototype.hasOwnProperty.call(seed, origin)) return;
  try {
    if (sessionStorage.getItem(mark)) return;
    sessionStorage.setItem(mark, '1');
    var entries = seed[origin];
    for (var name in entries) localStorage.setItem(name, entries[name]);
  } catch (e) {}
})
