"""A page's readable text from its HTML: trafilatura's main-content extraction, in a worker process.

trafilatura is pure-Python parsing and scoring: about 0.15 s to import, as much again for its
first extraction of a short page (its justext fallback builds one stoplist from the stopwords of
all its 100 languages, once per process), and up to seconds on a large page. In the run's own
process every bit of that held the GIL the run's event loop needs to answer Chromium, so the
extraction runs in a worker process of its own (`python -m runtime.browser.readable_text`),
started once per process and used one request at a time; it warms itself up as it starts.
`verity run` starts it first thing, so it is ready by the first page (BENCHMARKS.md, "Run
start"); anyone else starts it on first use.

The worker reads JSON lines {"html", "url"} on stdin and answers {"text"} (or {"error"}) on
stdout; it exits when its stdin closes, so it never outlives the process that started it by
more than the extraction it is busy with. Its environment is the allowlist Chromium gets (no API
keys), plus Python's own variables. A worker that dies is replaced once; when it cannot be
started, or its replacement fails too, the extraction runs in this process, as it always could.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

from runtime.browser.chromium_process import chromium_environment

_log = logging.getLogger(__name__)

# Short enough for trafilatura's own extractor to find too little, so its justext fallback (and
# the stoplist) is set up as a real page's first extraction would.
_WARM_UP_HTML = "<html><body><main><p>Warm-up paragraph.</p></main></body></html>"

# Where `runtime` is imported from here, so the worker runs this very code.
_CODE_ROOT = str(Path(__file__).resolve().parents[2])


def _extract(module: Any, html: str, url: str | None) -> str:
    return (module.extract(html, url=url, include_comments=False, include_tables=True) or "").strip()


def readable_text(html: str, url: str) -> str:
    """trafilatura's reading of `html` (its main content, tables included, comments not), or ""
    when it finds none: forms and one-line pages have no article-like block. Blocking (call it
    from a thread); the work is done by the worker process."""
    return _WORKER.extract(html, url)


def start_worker() -> None:
    """Start the worker now (it warms up as it starts) rather than on the first extraction."""
    _WORKER.start()


class _Worker:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._in_process: Any = None  # trafilatura here, once the worker failed
        self._given_up = False  # a worker failed, and so did the one that replaced it

    def start(self) -> None:
        with self._lock:
            self._ensure_started()

    def extract(self, html: str, url: str) -> str:
        with self._lock:
            for attempt in range(2):  # a worker that died is replaced once
                process = self._ensure_started()
                if process is None:
                    break
                try:
                    done, text = _ask(process, html, url)
                except (OSError, ValueError) as error:
                    self._end(process)
                    self._given_up = attempt == 1
                    _log.warning("the readable-text worker failed (%s); %s", error, "extracting in this process from now on" if self._given_up else "starting another")
                    continue
                if done:
                    return text
                # trafilatura itself failed on this page: fail here as the extraction fails.
                _log.debug("trafilatura failed in the worker: %s", text)
                break
            return self._extract_here(html, url)

    def _ensure_started(self) -> subprocess.Popen[bytes] | None:
        if self._given_up:
            return None
        if self._process is not None and self._process.poll() is None:
            return self._process
        environment = {
            **chromium_environment(),
            **{k: v for k, v in os.environ.items() if k.startswith("PYTHON")},
            "PYTHONPATH": os.pathsep.join(filter(None, (_CODE_ROOT, os.environ.get("PYTHONPATH")))),
        }
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, env=environment,
            )
        except OSError as error:
            _log.warning("cannot start the readable-text worker (%s); extracting in this process", error)
            self._process = None
        return self._process

    def _end(self, process: subprocess.Popen[bytes]) -> None:
        process.kill()
        process.wait()
        self._process = None

    def _extract_here(self, html: str, url: str) -> str:
        if self._in_process is None:
            import trafilatura

            self._in_process = trafilatura
        return _extract(self._in_process, html, url)


def _ask(process: subprocess.Popen[bytes], html: str, url: str) -> tuple[bool, str]:
    """(True, the text) or (False, trafilatura's error); raises when the worker is gone."""
    stdin, stdout = process.stdin, process.stdout
    assert stdin is not None and stdout is not None
    stdin.write(json.dumps({"html": html, "url": url}, ensure_ascii=False).encode("utf-8") + b"\n")
    stdin.flush()
    line = stdout.readline()
    if not line:
        raise ValueError("it exited")
    reply = json.loads(line)
    return ("text" in reply), str(reply.get("text", reply.get("error")))


_WORKER = _Worker()


def _serve(requests: IO[bytes], replies: IO[bytes]) -> None:
    """The worker's loop: warm up, then one reply line per request line until stdin closes."""
    import trafilatura

    _extract(trafilatura, _WARM_UP_HTML, None)
    for line in requests:
        try:
            request = json.loads(line)
            reply = {"text": _extract(trafilatura, request["html"], request["url"])}
        except Exception as error:  # noqa: BLE001 - the caller hears of it and extracts itself
            reply = {"error": f"{type(error).__name__}: {error}"}
        replies.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
        replies.flush()


if __name__ == "__main__":
    # Replies go to the original stdout; anything a library prints goes to stderr instead.
    reply_stream = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    _serve(sys.stdin.buffer, reply_stream)
