"""Binds features/report_thumbnails.feature: a run's thumbnails are made by a worker process
(runtime/report/thumbnails.py, runtime/worker_processes.py), and by the process that asked when
no worker can make them."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, scenarios, then, when

from runtime import worker_processes
from runtime.report import thumbnails
from tests.report.test_report_thumbnail_prefetch import _screenshot

scenarios("report_thumbnails.feature")

# Asks ahead for the first screenshot's thumbnail and collects it, kills the worker, does the same
# for the second; prints both thumbnails and sizes, the two worker pids, and whether Pillow was
# imported in this interpreter.
WORKER_SCRIPT = """
import json, sys
from pathlib import Path
from runtime.report import thumbnails as th
paths = [Path(p) for p in json.loads(sys.stdin.read())]
made = th.Thumbnails()
made.prefetch(paths[0])
first = made.data_uri(paths[0])
(worker,) = th._WORKERS._idle
worker.kill()
worker.wait()
made.prefetch(paths[1])
second = made.data_uri(paths[1])
print(json.dumps({"uris": [first, second], "sizes": [made.size(p) for p in paths],
                  "pids": [worker.pid, th._WORKERS._idle[0].pid],
                  "pillow_here": any(m == "PIL" or m.startswith("PIL.") for m in sys.modules)}))
"""


@pytest.fixture
def shots(tmp_path: Path) -> list[Path]:
    return [_screenshot(tmp_path / "first.png"), _screenshot(tmp_path / "second.png", 1280, 720)]


@when("a fresh interpreter asks ahead for two screenshots' thumbnails, killing the worker between them", target_fixture="worker_run")
def worker_run(shots: list[Path]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", WORKER_SCRIPT], input=json.dumps([str(p) for p in shots]), capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout)


@then("both thumbnails are the ones this process makes of those screenshots")
def same_thumbnails(worker_run: dict[str, Any], shots: list[Path]) -> None:
    here = thumbnails.Thumbnails()
    expected = [here.data_uri(p) for p in shots]
    assert all(uri is not None and uri.startswith("data:image/jpeg;base64,") for uri in expected), expected
    assert worker_run["uris"] == expected
    assert worker_run["sizes"] == [[800, 600], [1280, 720]]


@then("Pillow is not among that interpreter's modules")
def no_pillow(worker_run: dict[str, Any]) -> None:
    assert worker_run["pillow_here"] is False


@then("the second thumbnail came from another worker process")
def another_worker(worker_run: dict[str, Any]) -> None:
    first, second = worker_run["pids"]
    assert first != second, worker_run["pids"]


@given("worker processes exit as soon as they start")
def exiting_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    # An interpreter that exits at once, and a pool of the thumbnails' own that starts with it.
    monkeypatch.setattr(sys, "executable", "/bin/false")
    monkeypatch.setattr(thumbnails, "_WORKERS", worker_processes.WorkerPool(thumbnails._WORKERS.module, most=1, what="thumbnail"))


@when("a thumbnail is asked for ahead and then collected", target_fixture="collected")
def collected(shots: list[Path], caplog: pytest.LogCaptureFixture) -> str | None:
    made = thumbnails.Thumbnails()
    with caplog.at_level(logging.WARNING, logger=worker_processes.__name__):
        made.prefetch(shots[0])
        uri = made.data_uri(shots[0])
    made.close()
    return uri


@then("it is the one this process makes of that screenshot")
def made_here(collected: str | None, shots: list[Path]) -> None:
    assert collected is not None and collected == thumbnails.make_thumbnail(shots[0], thumbnails.THUMBNAIL_WIDTH)[0]


@then("the log says the thumbnail worker failed and the work stays in this process from now on")
def logged(caplog: pytest.LogCaptureFixture) -> None:
    failures = [r.getMessage() for r in caplog.records if r.getMessage().startswith("the thumbnail worker failed")]
    # The worker, then the one that replaced it.
    assert len(failures) == 2, failures
    assert failures[-1].endswith("working in this process from now on"), failures
