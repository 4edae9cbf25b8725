// Every link of the page with what ranking a fallback search page's results needs (runtime/execute/reads/search_results.py):
// its URL, text, whether it sits in the page's own navigation (`navigation`: a CSS selector), and whether it shows.
// With `served`, also the links of the HTML the server sent for this URL (the same request again, from the cache when it
// can), so a link a script drew can be told apart from one the page came with.
verity.readLinks = async (navigation, served) => {
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const live = [...document.querySelectorAll('a[href]')].map((a) => ({
    href: a.href,
    key: a.href + '\n' + norm(a.textContent),
    text: norm(a.textContent) || norm(a.getAttribute('aria-label')) || norm(a.getAttribute('title')),
    navigation: !!a.closest(navigation),
    visible: a.getClientRects().length > 0,
  }));
  if (!served) return {url: location.href, live, served: null};
  let sent = null;
  try {
    const reply = await fetch(location.href, {credentials: 'include', cache: 'force-cache'});
    if (reply.ok) {
      const doc = new DOMParser().parseFromString(await reply.text(), 'text/html');
      const baseTag = doc.querySelector('base[href]');
      const base = baseTag ? new URL(baseTag.getAttribute('href'), location.href).href : location.href;
      sent = [];
      for (const a of doc.querySelectorAll('a[href]')) {
        try { sent.push(new URL(a.getAttribute('href'), base).href + '\n' + norm(a.textContent)); } catch (e) {}
      }
    }
  } catch (e) { sent = null; }
  return {url: location.href, live, served: sent};
};
