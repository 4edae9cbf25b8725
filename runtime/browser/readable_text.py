"""A page's readable text from its HTML: trafilatura's main-content extraction.

trafilatura is imported on first use, not with the browser package: it takes about 0.15 s to
import. Its first extraction of a short page costs as much again: its justext fallback then
builds one stoplist from the stopwords of all its 100 languages, once per process.
`warm_up()` pays both ahead of time, on a thread, so a run that starts Chromium can do it while
it waits (BENCHMARKS.md, "Run start"); an extraction that starts meanwhile waits for it rather
than doing the same work again.
"""

from __future__ import annotations

import threading
from typing import Any

# Short enough for trafilatura's own extractor to find too little, so its justext fallback (and
# the stoplist) is set up as a real page's first extraction would.
_WARM_UP_HTML = "<html><body><main><p>Warm-up paragraph.</p></main></body></html>"

_set_up = threading.Lock()
_module: Any = None


def _trafilatura(*, warm: bool = False) -> Any:
    global _module
    with _set_up:
        if _module is None or warm:
            import trafilatura

            if warm:
                _extract(trafilatura, _WARM_UP_HTML, None)
            _module = trafilatura
        return _module


def _extract(module: Any, html: str, url: str | None) -> str | None:
    return module.extract(html, url=url, include_comments=False, include_tables=True)


def readable_text(html: str, url: str) -> str:
    """trafilatura's reading of `html` (its main content, tables included, comments not), or ""
    when it finds none: forms and one-line pages have no article-like block. Blocking; CPU-bound."""
    return (_extract(_trafilatura(), html, url) or "").strip()


def warm_up() -> None:
    """Import trafilatura and run it once on a small document (blocking)."""
    _trafilatura(warm=True)


def warm_up_in_background() -> None:
    """`warm_up()` on a daemon thread."""
    threading.Thread(target=warm_up, name="readable text warm-up", daemon=True).start()
