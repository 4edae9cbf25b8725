"""A page's readable text from its HTML: trafilatura's main-content extraction, in worker processes.

trafilatura is pure-Python parsing and scoring: about 0.15 s to import, as much again for its
first extraction of a short page (its justext fallback builds one stoplist from the stopwords of
all its 100 languages, once per process), and up to seconds on a large page. In the run's own
process every bit of that held the GIL the run's event loop needs to answer Chromium, so the
extraction runs in worker processes (`python -m runtime.browser.launch.readable_text`, kept by a
`WorkerPool`: runtime/worker_processes.py). Each answers one request at a time and warms itself
up as it starts; a request that finds them all busy starts another (up to MOST_WORKERS), so a
page trafilatura takes long over never holds up the readings of other runs. `verity run` starts
the first worker first thing, so it is ready by the first page (BENCHMARKS.md, "Run start");
anyone else starts it on first use. When no worker can be started, or trafilatura fails in one,
the extraction runs in this process, as it always could.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from runtime.worker_processes import WorkerPool, serve

_log = logging.getLogger(__name__)

# Short enough for trafilatura's own extractor to find too little, so its justext fallback (and
# the stoplist) is set up as a real page's first extraction would.
_WARM_UP_HTML = "<html><body><main><p>Warm-up paragraph.</p></main></body></html>"

# Beyond this many pages read at once, a reading waits for a worker to be free.
MOST_WORKERS = 4


def _extract(module: Any, html: str, url: str | None) -> str:
    return (module.extract(html, url=url, include_comments=False, include_tables=True) or "").strip()


def readable_text(html: str, url: str) -> str:
    """trafilatura's reading of `html` (its main content, tables included, comments not), or ""
    when it finds none: forms and one-line pages have no article-like block. Blocking (call it
    from a thread); the work is done by a worker process."""
    return _READER.extract(html, url)


def start_worker() -> None:
    """Start a worker now (it warms up as it starts) rather than on the first extraction."""
    _READER.workers.start()


class _Reader:
    """Readings by the worker processes, or by this process when they cannot give one."""

    def __init__(self, most: int) -> None:
        self.workers = WorkerPool(__name__, most=most, what="readable-text")
        self._lock = threading.Lock()
        self._in_process: Any = None  # trafilatura here, once a reading had to be done here

    def extract(self, html: str, url: str) -> str:
        reply = self.workers.ask({"html": html, "url": url})
        if reply is not None and "error" not in reply:
            return str(reply.get("result") or "")
        if reply is not None:
            # trafilatura itself failed on this page: fail here as the extraction fails.
            _log.debug("trafilatura failed in the worker: %s", reply["error"])
        return self._extract_here(html, url)

    def _extract_here(self, html: str, url: str) -> str:
        with self._lock:
            if self._in_process is None:
                import trafilatura

                self._in_process = trafilatura
        return _extract(self._in_process, html, url)


_READER = _Reader(MOST_WORKERS)


def _justext_stoplist_file(version: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "verity" / f"justext-stoplist-{version}.txt"


def _give_justext_its_stoplist(trafilatura: Any) -> None:
    """trafilatura's justext fallback first builds one stoplist from the stopword files of all its
    languages (0.18 s of CPU in every process, BENCHMARKS.md "Run start"); the words are written
    to a cache file the first time and read back after (0.03 s). Only membership in the stoplist
    is ever asked, so its order does not matter. Anything unexpected leaves trafilatura to build
    its own, as it always could."""
    external = getattr(trafilatura, "external", None)
    if external is None or getattr(external, "JT_STOPLIST", ()) is not None or not hasattr(external, "jt_stoplist_init"):
        return
    cache = _justext_stoplist_file(getattr(trafilatura, "__version__", "unknown"))
    try:
        words = tuple(cache.read_text(encoding="utf-8").split("\n"))
    except OSError:
        words = ()
    if len(words) > 1000:
        external.JT_STOPLIST = words
        return
    built = external.jt_stoplist_init()
    with contextlib.suppress(OSError):
        cache.parent.mkdir(parents=True, exist_ok=True)
        partial = cache.with_name(f"{cache.name}.{os.getpid()}")
        partial.write_text("\n".join(built), encoding="utf-8")
        os.replace(partial, cache)


def _prepared() -> Callable[[dict[str, Any]], str]:
    """The worker's handler, after trafilatura's import and first extraction."""
    import trafilatura
    import trafilatura.external

    _give_justext_its_stoplist(trafilatura)
    _extract(trafilatura, _WARM_UP_HTML, None)
    return lambda request: _extract(trafilatura, request["html"], request["url"])


if __name__ == "__main__":
    serve(_prepared)
