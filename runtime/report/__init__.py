"""The run report: one self-contained HTML page per run directory (`report.html`).

    path = write_report(Path("runs/r1"))   # reads verdict/output/plans/executions.json

It works offline and from the file alone: inline CSS, screenshot thumbnails as data: URIs, no
script. Everything the run recorded is escaped, since page text is written by whoever owns the page.
"""

from runtime.report.run_dir import NotARunDirectory, RunContents
from runtime.report.write import ReportDraft, draft_report, write_report

__all__ = ["NotARunDirectory", "ReportDraft", "RunContents", "draft_report", "write_report"]
