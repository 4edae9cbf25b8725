"""The readable-text worker when it cannot work: the reading still comes, from this process, and
nothing keeps starting workers that die (runtime/browser/readable_text.py)."""

from __future__ import annotations

import logging

import pytest
import trafilatura

from runtime.browser import readable_text

ARTICLE = (
    "<html><body><nav><a href=/>Home</a></nav><article><h1>Silver slips</h1>"
    + "".join(f"<p>Line {i}: silver fell as the dollar firmed against most currencies, dealers said.</p>" for i in range(6))
    + "</article></body></html>"
)
URL = "http://127.0.0.1:1/silver.html"


def test_a_worker_that_cannot_run_leaves_the_reading_to_this_process(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # An interpreter that exits at once: every worker started with it dies before it answers.
    monkeypatch.setattr(readable_text.sys, "executable", "/bin/false")
    worker = readable_text._Worker()
    expected = (trafilatura.extract(ARTICLE, url=URL, include_comments=False, include_tables=True) or "").strip()
    assert "Silver slips" in expected and "Line 5" in expected, expected
    with caplog.at_level(logging.WARNING, logger=readable_text.__name__):
        first = worker.extract(ARTICLE, URL)
        second = worker.extract(ARTICLE, URL)
    assert first == second == expected
    failures = [r.getMessage() for r in caplog.records if "worker failed" in r.getMessage()]
    # The worker, and the one that replaced it, for the first reading; none for the second.
    assert len(failures) == 2, failures
    assert "from now on" in failures[-1], failures
