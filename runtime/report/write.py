"""Writing `report.html` into a run directory: at the end of every run, and by `verity report`."""

from __future__ import annotations

import os
from pathlib import Path

from runtime.report.page import render_report
from runtime.report.run_dir import read_run
from runtime.report.thumbnails import Thumbnails

REPORT_FILE = "report.html"


def write_report(run_dir: Path, thumbnails: Thumbnails | None = None) -> Path:
    """Render the run in `run_dir` and write `run_dir/report.html` atomically; returns its path.
    `thumbnails` may hold some already made (a run prefetches its screenshots' as it goes).
    Raises NotARunDirectory when `run_dir` holds no run, OSError when it cannot be written."""
    contents = read_run(run_dir)
    page = render_report(contents, thumbnails if thumbnails is not None else Thumbnails())
    target = run_dir / REPORT_FILE
    partial = target.with_name(REPORT_FILE + ".partial")
    partial.write_text(page, encoding="utf-8")
    os.replace(partial, target)
    return target
