"""Importing modules without the garbage collector walking what they build: a command's imports
(runtime/cli) and a worker process's preparation (runtime/worker_processes.py)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def imports_left_out_of_collections() -> Iterator[None]:
    """Import with the garbage collector off, then freeze what the imports built.

    Imports build most of a command's heap (classes, functions, compiled patterns: about 100,000
    objects for `verity run`, alive until exit). While they run, the collector would walk that
    growing heap about 150 times, about 0.05 s of CPU; afterwards every full collection, and the
    one at interpreter exit, would walk all of it again, about 0.1 s (BENCHMARKS.md, "Run
    start"). What the command itself allocates later is collected as always.
    """
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()
