"""The readable-text worker when it cannot work: the reading still comes, from this process, and
nothing keeps starting workers that die (runtime/browser/launch/readable_text.py, runtime/worker_processes.py)."""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path

import pytest
import trafilatura

from runtime import worker_processes
from runtime.browser.launch import readable_text

ARTICLE = (
    "<html><body><nav><a href=/>Home</a></nav><article><h1>Silver slips</h1>"
    + "".join(f"<p>Line {i}: silver fell as the dollar firmed against most currencies, dealers said.</p>" for i in range(6))
    + "</article></body></html>"
)
URL = "http://127.0.0.1:1/silver.html"
# Only a ceiling on a hang (a worker's start and warm-up take well under a second).
HANG_CEILING_S = 60


def test_a_worker_that_cannot_run_leaves_the_reading_to_this_process(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # An interpreter that exits at once: every worker started with it dies before it answers.
    monkeypatch.setattr(sys, "executable", "/bin/false")
    reader = readable_text._Reader(most=2)
    expected = (trafilatura.extract(ARTICLE, url=URL, include_comments=False, include_tables=True) or "").strip()
    assert "Silver slips" in expected and "Line 5" in expected, expected
    with caplog.at_level(logging.WARNING, logger=worker_processes.__name__):
        first = reader.extract(ARTICLE, URL)
        second = reader.extract(ARTICLE, URL)
    assert first == second == expected
    failures = [r.getMessage() for r in caplog.records if "worker failed" in r.getMessage()]
    # The worker, and the one that replaced it, for the first reading; none for the second.
    assert len(failures) == 2, failures
    assert "from now on" in failures[-1], failures


def test_a_reading_that_finds_every_worker_busy_gets_a_new_one() -> None:
    # The only worker is taken, as a long reading would hold it: the next reading must not wait
    # for it, but start a second worker and be answered.
    reader = readable_text._Reader(most=2)
    workers = reader.workers
    busy = workers._take()
    assert busy is not None and workers._count == 1
    answers: list[str] = []
    reading = threading.Thread(target=lambda: answers.append(reader.extract(ARTICLE, URL)))
    try:
        reading.start()
        reading.join(timeout=HANG_CEILING_S)
        assert not reading.is_alive(), "the reading waited for the busy worker"
        assert answers and answers[0].startswith("Silver slips"), answers
        assert workers._count == 2
    finally:
        workers._give_back(busy)
        for process in workers._idle:
            process.kill()


def test_the_justext_stoplist_is_built_once_and_read_back_with_the_same_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A page too short for trafilatura's own extractor, so its justext fallback and stoplist run.
    short = "<html><body><div><p>Gold 2345.60 USD at the close, dealers said on Friday.</p></div></body></html>"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    expected = (trafilatura.extract(short, url=URL, include_comments=False, include_tables=True) or "").strip()
    cache = readable_text._justext_stoplist_file(trafilatura.__version__)
    readings = []
    for _ in range(2):  # the first worker builds and writes the stoplist, the second reads it
        reader = readable_text._Reader(most=1)
        readings.append(reader.extract(short, URL))
        assert cache.is_file()
        for process in reader.workers._idle:
            process.kill()
    assert readings == [expected, expected], readings
    assert set(cache.read_text(encoding="utf-8").split("\n")) == set(trafilatura.external.jt_stoplist_init())
