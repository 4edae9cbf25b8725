"""A page's readable text from its HTML: trafilatura's main-content extraction, in worker processes.

trafilatura is pure-Python parsing and scoring: about 0.15 s to import, as much again for its
first extraction of a short page (its justext fallback builds one stoplist from the stopwords of
all its 100 languages, once per process), and up to seconds on a large page. In the run's own
process every bit of that held the GIL the run's event loop needs to answer Chromium, so the
extraction runs in worker processes (`python -m runtime.browser.readable_text`). Each answers
one request at a time and warms itself up as it starts; a request that finds them all busy
starts another (up to MOST_WORKERS), so a page trafilatura takes long over never holds up the
readings of other runs. `verity run` starts the first worker first thing, so it is ready by the
first page (BENCHMARKS.md, "Run start"); anyone else starts it on first use.

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
    from a thread); the work is done by a worker process."""
    return _WORKERS.extract(html, url)


def start_worker() -> None:
    """Start a worker now (it warms up as it starts) rather than on the first extraction."""
    _WORKERS.start()


class _Workers:
    """The worker processes: one answers one request at a time; a request finding them all busy
    starts another, up to MOST_WORKERS, so a page that takes trafilatura long never holds up the
    readings of other runs (as extraction on threads never did)."""

    def __init__(self, most: int) -> None:
        self._most = most
        self._lock = threading.Lock()
        self._freed = threading.Condition(self._lock)
        self._idle: list[subprocess.Popen[bytes]] = []
        self._count = 0  # started and alive, idle or busy
        self._in_process: Any = None  # trafilatura here, once the workers failed
        self._given_up = False  # a worker failed, and so did the one that replaced it

    def start(self) -> None:
        with self._lock:
            if self._count == 0 and not self._given_up:
                self._spawn_idle()

    def extract(self, html: str, url: str) -> str:
        for attempt in range(2):  # a worker that died is replaced once
            process = self._take()
            if process is None:
                break
            try:
                done, text = _ask(process, html, url)
            except (OSError, ValueError) as error:
                self._drop(process, give_up=attempt == 1)
                _log.warning("the readable-text worker failed (%s); %s", error, "extracting in this process from now on" if attempt == 1 else "starting another")
                continue
            self._give_back(process)
            if done:
                return text
            # trafilatura itself failed on this page: fail here as the extraction fails.
            _log.debug("trafilatura failed in the worker: %s", text)
            break
        return self._extract_here(html, url)

    def _take(self) -> subprocess.Popen[bytes] | None:
        """An idle worker, a new one while fewer than the most run, or the first one freed."""
        with self._lock:
            while not self._given_up:
                while self._idle:
                    process = self._idle.pop()
                    if process.poll() is None:
                        return process
                    self._count -= 1  # it died idle
                if self._count < self._most:
                    if self._spawn_idle():
                        return self._idle.pop()
                    self._given_up = True
                    break
                self._freed.wait()
            return None

    def _give_back(self, process: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._idle.append(process)
            self._freed.notify()

    def _drop(self, process: subprocess.Popen[bytes], *, give_up: bool) -> None:
        process.kill()
        process.wait()
        with self._lock:
            self._count -= 1
            self._given_up = self._given_up or give_up
            self._freed.notify_all()

    def _spawn_idle(self) -> bool:
        """Start a worker into the idle list (the lock held); False when none can be started."""
        environment = {
            **chromium_environment(),
            **{k: v for k, v in os.environ.items() if k.startswith("PYTHON")},
            "PYTHONPATH": os.pathsep.join(filter(None, (_CODE_ROOT, os.environ.get("PYTHONPATH")))),
        }
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, env=environment,
            )
        except OSError as error:
            _log.warning("cannot start a readable-text worker (%s); extracting in this process", error)
            return False
        self._idle.append(process)
        self._count += 1
        return True

    def _extract_here(self, html: str, url: str) -> str:
        with self._lock:
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


# Beyond this many pages read at once, a reading waits for a worker to be free.
MOST_WORKERS = 4
_WORKERS = _Workers(MOST_WORKERS)


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
