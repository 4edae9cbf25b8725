"""Writing `report.html` into a run directory: at the end of every run, and by `verity report`.

A run drafts its report (`draft_report`) as soon as its last state is recorded, while its
browser closes, and finishes it (`write_report(..., draft)`) once the verdict is written: most of
the page is the timeline, which needs only the records."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from runtime.report.page import render_records, render_report
from runtime.report.run_dir import RunContents, check_run_directory, read_final, read_records
from runtime.report.thumbnails import Thumbnails
from runtime.run_layout import REPORT_FILE


@dataclass(frozen=True)
class ReportDraft:
    """A run's records (plans.json, executions.json) and the sections rendered from them."""

    contents: RunContents
    records: str


def draft_report(run_dir: Path) -> ReportDraft:
    """Read the run's records and render their sections. A file that is missing or cannot be read
    is a problem the page lists, as in `write_report`."""
    contents = read_records(run_dir)
    return ReportDraft(contents, render_records(contents, Thumbnails()))


def write_report(run_dir: Path, draft: ReportDraft | None = None) -> Path:
    """Render the run in `run_dir` and write `run_dir/report.html` atomically; returns its path.
    `draft` is the run's records, read and rendered ahead (`draft_report`), not read again.
    Raises NotARunDirectory when `run_dir` holds no run, OSError when it cannot be written."""
    check_run_directory(run_dir)
    if draft is None:
        draft = draft_report(run_dir)
    contents = replace(draft.contents, problems=list(draft.contents.problems))
    read_final(contents)
    page = render_report(contents, draft.records)
    target = run_dir / REPORT_FILE
    partial = target.with_name(REPORT_FILE + ".partial")
    partial.write_text(page, encoding="utf-8")
    os.replace(partial, target)
    return target
