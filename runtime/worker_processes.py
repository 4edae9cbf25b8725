"""Worker processes for CPU-bound work a run must not do under its own GIL.

A run's event loop answers Chromium. Work that parses for milliseconds at a time (trafilatura's
reading of a page) holds the GIL while it runs, even on a worker thread, and the loop then waits
for it before it can read the browser's next message. In a process of its own that work costs
the loop nothing.

`WorkerPool` keeps processes running `python -m <module>` that answer JSON lines: one request
line in, one reply line out, `{"result": ...}` or `{"error": "..."}`. A worker answers one
request at a time; a request that finds every worker busy starts another, up to `most`, and
otherwise waits for one to be free. A worker that dies is replaced once; when none can be
started, or the replacement dies too, `ask` answers None from then on and the caller does the
work itself, as it always could.

A worker runs this very code: its PYTHONPATH starts with the directory `runtime` was imported
from, and the directory it was started in is not on its path. Its environment is an allowlist
(no API keys reach it), and it exits when its stdin closes, so it never outlives the process that
started it by more than the request it is on.

A worker module's `__main__` calls `serve()` with the function that prepares its handler.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from runtime.import_heap import imports_left_out_of_collections

if TYPE_CHECKING:
    import subprocess

_log = logging.getLogger(__name__)

# What a worker's environment keeps of ours: enough to find programs, files and the locale, and
# Python's own variables; never a credential.
ENVIRONMENT_ALLOWLIST = frozenset({"PATH", "HOME", "XDG_CACHE_HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR"})
ENVIRONMENT_PREFIXES = ("LC_", "PYTHON")

# Where `runtime` is imported from here, so a worker runs this very code.
_CODE_ROOT = str(Path(__file__).resolve().parents[1])

Handler = Callable[[dict[str, Any]], Any]


def worker_environment() -> dict[str, str]:
    """The allowlisted part of our environment, with this code on PYTHONPATH."""
    kept = {k: v for k, v in os.environ.items() if k in ENVIRONMENT_ALLOWLIST or k.startswith(ENVIRONMENT_PREFIXES)}
    kept["PYTHONPATH"] = os.pathsep.join(filter(None, (_CODE_ROOT, os.environ.get("PYTHONPATH"))))
    return kept


class WorkerPool:
    """Processes running `python -m module`; `what` names their work in log lines."""

    def __init__(self, module: str, *, most: int, what: str) -> None:
        self.module = module
        self.what = what
        self._most = most
        self._lock = threading.Lock()
        self._freed = threading.Condition(self._lock)
        self._idle: list[subprocess.Popen[bytes]] = []
        self._count = 0  # started and alive, idle or busy
        self._given_up = False  # a worker failed, and so did the one that replaced it

    def start(self) -> None:
        """Start a worker now (it prepares itself as it starts) rather than on the first request."""
        with self._lock:
            if self._count == 0 and not self._given_up:
                self._spawn_idle()

    def ask(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """A worker's reply to `request` ({"result": ...} or {"error": ...}), or None when no
        worker could answer it: the caller does the work itself. Blocking (call it from a thread)."""
        for attempt in range(2):  # a worker that died is replaced once
            process = self._take()
            if process is None:
                return None
            try:
                reply = _exchange(process, request)
            except (OSError, ValueError) as error:
                self._drop(process, give_up=attempt == 1)
                then = "working in this process from now on" if attempt == 1 else "starting another"
                _log.warning("the %s worker failed (%s); %s", self.what, error, then)
                continue
            self._give_back(process)
            return reply
        return None

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
        # Imported here: a worker imports this module too, and never starts a process itself.
        import subprocess

        try:
            process = subprocess.Popen(
                # -P: `-m` would put the current directory first on sys.path, and a `runtime`
                # package there would be imported instead of ours.
                [sys.executable, "-P", "-m", self.module], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, env=worker_environment(),
            )
        except OSError as error:
            _log.warning("cannot start a %s worker (%s); working in this process", self.what, error)
            return False
        self._idle.append(process)
        self._count += 1
        return True


def _exchange(process: subprocess.Popen[bytes], request: dict[str, Any]) -> dict[str, Any]:
    """The worker's reply to `request`; raises when the worker is gone."""
    stdin, stdout = process.stdin, process.stdout
    assert stdin is not None and stdout is not None
    stdin.write(json.dumps(request, ensure_ascii=False).encode("utf-8") + b"\n")
    stdin.flush()
    line = stdout.readline()
    if not line:
        raise ValueError("it exited")
    reply = json.loads(line)
    if not isinstance(reply, dict):
        raise ValueError("it answered something other than an object")
    return reply


def serve(prepare: Callable[[], Handler]) -> None:
    """A worker's main loop: `prepare()` (imports, warm-up) gives the handler, then one reply line
    per request line until stdin closes. Replies go to the original stdout; anything a library
    prints goes to stderr instead."""
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    # The preparation's imports build nearly all of a worker's heap, alive until it exits: with
    # the collector on, it walked that growing heap some 80 times (about 0.03 s of the readable-text
    # worker's start, BENCHMARKS.md "Run start"), so they are left out as `verity run` leaves its own.
    with imports_left_out_of_collections():
        handle = prepare()
    _answer(handle, sys.stdin.buffer, replies)


def _answer(handle: Handler, requests: IO[bytes], replies: IO[bytes]) -> None:
    for line in requests:
        try:
            reply = {"result": handle(json.loads(line))}
        except Exception as error:  # noqa: BLE001 - the caller hears of it and does the work itself
            reply = {"error": f"{type(error).__name__}: {error}"}
        replies.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
        replies.flush()
